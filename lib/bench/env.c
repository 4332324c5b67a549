/* bench: the environment a measurement was taken in, for the report. The device's part
 * is in env_device.c, so that a program timing its own calls links without OpenCL. */
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "stepscope/bench.h"
#include "stepscope/version.h"

/* The value of the first "key : value" line starting with `key`, trimmed. */
static void read_keyed_line(const char *path, const char *key, char *out, size_t cap)
{
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    char line[512];
    size_t klen = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, klen) != 0) continue;
        const char *colon = strchr(line, ':');
        if (!colon) continue;
        const char *v = colon + 1;
        while (*v == ' ' || *v == '\t')
            v++;
        snprintf(out, cap, "%s", v);
        break;
    }
    fclose(f);
    size_t n = strlen(out);
    while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
        out[--n] = 0;
}

static void read_first_line(const char *path, char *out, size_t cap)
{
    out[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (!fgets(out, (int)cap, f)) out[0] = 0;
    fclose(f);
    size_t n = strlen(out);
    while (n && (out[n - 1] == '\n' || out[n - 1] == ' '))
        out[--n] = 0;
}

void sts_bench_env_collect_host(sts_bench_env *env)
{
    memset(env, 0, sizeof *env);
    read_keyed_line("/proc/cpuinfo", "model name", env->cpu_model, sizeof env->cpu_model);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    env->cpu_count = cpus > 0 ? (unsigned)cpus : 0;
    read_first_line("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", env->governor, sizeof env->governor);
    struct utsname u;
    if (uname(&u) == 0) snprintf(env->os, sizeof env->os, "%s %s %s %s", u.sysname, u.release, u.version, u.machine);
#if defined(__clang__)
    snprintf(env->compiler, sizeof env->compiler, "clang %s", __VERSION__);
#elif defined(__GNUC__)
    snprintf(env->compiler, sizeof env->compiler, "gcc %s", __VERSION__);
#else
    snprintf(env->compiler, sizeof env->compiler, "unknown C compiler");
#endif
    snprintf(env->stepscope_version, sizeof env->stepscope_version, "%s", sts_version());
    time_t now = time(NULL);
    struct tm tm;
    if (gmtime_r(&now, &tm)) strftime(env->timestamp, sizeof env->timestamp, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

sts_status sts_bench_env_add_runtime(sts_bench_env *env, const char *key, const char *value)
{
    if (env->nruntime >= STS_BENCH_MAX_RUNTIME) return STS_ERR_LIMIT;
    sts_bench_kv *kv = &env->runtime[env->nruntime++];
    snprintf(kv->key, sizeof kv->key, "%s", key ? key : "");
    snprintf(kv->value, sizeof kv->value, "%s", value ? value : "");
    return STS_OK;
}

void sts_bench_env_print(FILE *f, const sts_bench_env *env)
{
    fprintf(f, "  cpu        %s (%u online), governor %s\n", env->cpu_model[0] ? env->cpu_model : "unknown",
            env->cpu_count, env->governor[0] ? env->governor : "unreadable");
    fprintf(f, "  os         %s\n", env->os);
    fprintf(f, "  built with %s; stepscope %s\n", env->compiler, env->stepscope_version);
    if (env->backend[0])
        fprintf(f, "  runtime    %s%s%s\n", env->backend, env->runtime_device[0] ? " / " : "", env->runtime_device);
    for (size_t i = 0; i < env->nruntime; i++)
        fprintf(f, "  %-10s %s\n", env->runtime[i].key, env->runtime[i].value);
    if (env->has_device)
        fprintf(f, "  device     %s / %s (%s; driver %s; %s)\n", env->device.platform, env->device.name,
                env->device.is_gpu   ? "GPU"
                : env->device.is_cpu ? "CPU"
                                     : "other",
                env->device.driver_version, env->device.opencl_c_version);
}
