/* bench: the JSON report (schema "stepscope.bench/1", described in docs/bench.md). */
#include <stdio.h>

#include "stepscope/bench.h"
#include "stepscope/json.h"

#define SCHEMA "stepscope.bench/1"

static const char dispatch_boundary[] =
    "call returns its handle; the clock stops before any wait (not the cost of the work)";
static const char outlier_rule[] = "modified z-score |0.6745 (x - median) / MAD| > 3.5";

static double secs(double ns)
{
    return ns / 1e9;
}

static void seconds_array(sts_jsonw *w, const char *key, const int64_t *v, size_t n)
{
    sts_jsonw_key(w, key);
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < n; i++) {
        if (v[i] < 0)
            sts_jsonw_null(w);
        else
            sts_jsonw_f64(w, secs((double)v[i]));
    }
    sts_jsonw_arr_end(w);
}

/* A duration known only when n > 0: null otherwise. */
static void key_seconds_or_null(sts_jsonw *w, const char *key, size_t n, double ns)
{
    if (n)
        sts_jsonw_kv_f64(w, key, secs(ns));
    else
        sts_jsonw_kv_null(w, key);
}

static void stats_object(sts_jsonw *w, const char *key, const sts_stats *s, const unsigned char *outlier)
{
    sts_jsonw_key(w, key);
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_u64(w, "n", s->n);
    sts_jsonw_kv_f64(w, "min_seconds", secs(s->min));
    sts_jsonw_kv_f64(w, "median_seconds", secs(s->median));
    sts_jsonw_kv_f64(w, "mean_seconds", secs(s->mean));
    sts_jsonw_kv_f64(w, "max_seconds", secs(s->max));
    sts_jsonw_kv_f64(w, "stddev_seconds", secs(s->stddev));
    sts_jsonw_kv_f64(w, "mad_seconds", secs(s->mad));
    sts_jsonw_kv_f64(w, "cv", s->cv);
    if (outlier) {
        sts_jsonw_key(w, "outliers");
        sts_jsonw_arr_begin(w);
        for (size_t i = 0; i < s->n; i++)
            if (outlier[i]) sts_jsonw_u64(w, i);
        sts_jsonw_arr_end(w);
        sts_jsonw_kv_str(w, "outlier_rule", outlier_rule);
    }
    sts_jsonw_obj_end(w);
}

static void shape_array(sts_jsonw *w, int ndim, const int64_t *dims)
{
    sts_jsonw_arr_begin(w);
    for (int i = 0; i < ndim; i++)
        sts_jsonw_i64(w, dims[i]);
    sts_jsonw_arr_end(w);
}

static void check_object(sts_jsonw *w, const sts_bench_check *c)
{
    if (c->checked)
        sts_jsonw_kv_f64(w, "max_abs_error", c->max_abs_error);
    else
        sts_jsonw_kv_null(w, "max_abs_error");
    sts_jsonw_kv_f64(w, "atol", c->atol);
    sts_jsonw_kv_f64(w, "rtol", c->rtol);
    sts_jsonw_key(w, "check");
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_bool(w, "checked", c->checked);
    sts_jsonw_kv_bool(w, "passed", c->checked && c->passed);
    sts_jsonw_kv_str(w, "reference", c->reference[0] ? c->reference : "host, double-precision accumulation");
    sts_jsonw_key(w, "leaves");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < c->nleaves; i++) {
        const sts_check_leaf *l = &c->leaves[i];
        sts_jsonw_obj_begin(w);
        sts_jsonw_kv_str(w, "name", l->name);
        sts_jsonw_key(w, "shape");
        shape_array(w, l->ndim, l->shape);
        sts_jsonw_kv_u64(w, "values", l->count);
        sts_jsonw_kv_u64(w, "mismatches", l->mismatches);
        sts_jsonw_kv_f64(w, "max_abs_error", l->max_abs_error);
        sts_jsonw_obj_end(w);
    }
    sts_jsonw_arr_end(w);
    sts_jsonw_obj_end(w);
}

/* "backend", "device" and "versions": the caller's runtime when it described one (JAX,
 * PyTorch, Python), else the OpenCL device, else "host". */
static void device_fields(sts_jsonw *w, const sts_bench_env *env)
{
    char backend[300];
    if (env && env->backend[0])
        snprintf(backend, sizeof backend, "%s", env->backend);
    else if (env && env->has_device)
        snprintf(backend, sizeof backend, "OpenCL %s / %s", env->device.platform, env->device.name);
    else
        snprintf(backend, sizeof backend, "host");
    sts_jsonw_kv_str(w, "backend", backend);
    sts_jsonw_kv_str(w, "device",
                     env && env->runtime_device[0] ? env->runtime_device
                     : env && env->has_device      ? env->device.name
                                                   : "");
    sts_jsonw_key(w, "versions");
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "stepscope", env ? env->stepscope_version : "");
    sts_jsonw_kv_str(w, "compiler", env ? env->compiler : "");
    for (size_t i = 0; env && i < env->nruntime; i++)
        sts_jsonw_kv_str(w, env->runtime[i].key, env->runtime[i].value);
    if (env && env->has_device) {
        sts_jsonw_kv_str(w, "opencl_platform", env->device.platform_version);
        sts_jsonw_kv_str(w, "opencl_device", env->device.device_version);
        sts_jsonw_kv_str(w, "opencl_c", env->device.opencl_c_version);
        sts_jsonw_kv_str(w, "driver", env->device.driver_version);
    }
    sts_jsonw_obj_end(w);
}

static void timing_fields(sts_jsonw *w, const sts_bench_result *r)
{
    sts_jsonw_kv_f64(w, "first_call_seconds", secs((double)r->first_call_ns));
    key_seconds_or_null(w, "first_call_device_seconds", r->first_device_ns >= 0, (double)r->first_device_ns);
    sts_jsonw_kv_i64(w, "warmup", r->warmup);
    sts_jsonw_kv_u64(w, "repeats", r->nsamples);
    seconds_array(w, "warm_samples_seconds", r->samples_ns, r->nsamples);
    sts_jsonw_kv_f64(w, "warm_median_seconds", secs(r->stats.median));
    sts_jsonw_kv_f64(w, "first_to_warm_median_ratio", sts_bench_first_to_warm_ratio(r));
    stats_object(w, "warm_stats", &r->stats, r->outlier);
    seconds_array(w, "device_samples_seconds", r->device_ns, r->nsamples);
    key_seconds_or_null(w, "device_median_seconds", r->device_stats.n, r->device_stats.median);
    sts_jsonw_key(w, "host_overhead_samples_seconds");
    sts_jsonw_arr_begin(w);
    for (size_t i = 0; i < r->nsamples; i++) {
        if (r->device_ns[i] < 0)
            sts_jsonw_null(w);
        else
            sts_jsonw_f64(w, secs((double)(r->samples_ns[i] - r->device_ns[i])));
    }
    sts_jsonw_arr_end(w);
    key_seconds_or_null(w, "host_overhead_median_seconds", r->overhead_stats.n, r->overhead_stats.median);
    sts_jsonw_kv_str(w, "dispatch_only_boundary", dispatch_boundary);
    seconds_array(w, "dispatch_only_seconds", r->dispatch_ns, r->ndispatch);
    key_seconds_or_null(w, "dispatch_only_median_seconds", r->dispatch_stats.n, r->dispatch_stats.median);
    sts_jsonw_kv_f64(w, "harness_overhead_seconds", secs((double)r->harness_overhead_ns));
}

static void result_fields(sts_jsonw *w, const sts_bench_result *r, const sts_bench_env *env)
{
    sts_jsonw_kv_str(w, "name", r->name);
    sts_jsonw_kv_str(w, "workload", r->name);
    device_fields(w, env);
    for (size_t i = 0; i < r->nshapes; i++) {
        sts_jsonw_key(w, r->shapes[i].key);
        shape_array(w, r->shapes[i].ndim, r->shapes[i].dims);
    }
    sts_jsonw_kv_str(w, "dtype", r->dtype);
    sts_jsonw_kv_str(w, "boundary", r->boundary);
    timing_fields(w, r);
    check_object(w, &r->check);
    sts_jsonw_kv_bool(w, "unstable", r->unstable);
    sts_jsonw_key(w, "warnings");
    sts_jsonw_arr_begin(w);
    if (r->warning[0]) sts_jsonw_str(w, r->warning);
    sts_jsonw_arr_end(w);
}

static void env_object(sts_jsonw *w, const sts_bench_env *env)
{
    sts_jsonw_key(w, "environment");
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "cpu_model", env->cpu_model);
    sts_jsonw_kv_u64(w, "cpu_count", env->cpu_count);
    if (env->governor[0])
        sts_jsonw_kv_str(w, "cpu_governor", env->governor);
    else
        sts_jsonw_kv_null(w, "cpu_governor");
    sts_jsonw_kv_str(w, "os", env->os);
    sts_jsonw_kv_str(w, "compiler", env->compiler);
    sts_jsonw_kv_str(w, "stepscope_version", env->stepscope_version);
    sts_jsonw_kv_str(w, "timestamp", env->timestamp);
    if (env->backend[0] || env->nruntime) {
        sts_jsonw_key(w, "runtime");
        sts_jsonw_obj_begin(w);
        sts_jsonw_kv_str(w, "backend", env->backend);
        sts_jsonw_kv_str(w, "device", env->runtime_device);
        for (size_t i = 0; i < env->nruntime; i++)
            sts_jsonw_kv_str(w, env->runtime[i].key, env->runtime[i].value);
        sts_jsonw_obj_end(w);
    }
    if (env->has_device) {
        const sts_device_info *d = &env->device;
        sts_jsonw_key(w, "opencl");
        sts_jsonw_obj_begin(w);
        sts_jsonw_kv_str(w, "platform", d->platform);
        sts_jsonw_kv_str(w, "platform_version", d->platform_version);
        sts_jsonw_kv_str(w, "device", d->name);
        sts_jsonw_kv_str(w, "vendor", d->vendor);
        sts_jsonw_kv_str(w, "device_version", d->device_version);
        sts_jsonw_kv_str(w, "driver_version", d->driver_version);
        sts_jsonw_kv_str(w, "opencl_c_version", d->opencl_c_version);
        sts_jsonw_kv_str(w, "type", d->is_gpu ? "GPU" : d->is_cpu ? "CPU" : "other");
        sts_jsonw_kv_u64(w, "compute_units", d->compute_units);
        sts_jsonw_kv_u64(w, "max_work_group_size", d->max_work_group_size);
        sts_jsonw_kv_u64(w, "local_mem_bytes", d->local_mem_bytes);
        sts_jsonw_obj_end(w);
    }
    sts_jsonw_obj_end(w);
}

sts_status sts_bench_write_json(FILE *f, const sts_bench_result *main, const sts_bench_env *env,
                                const sts_bench_result *const *variants, size_t nvariants, sts_error *err)
{
    sts_jsonw *w = sts_jsonw_create(f, STS_JSON_INDENTED);
    if (!w) return sts_error_set(err, STS_ERR_NOMEM, -1, "writing the bench report: out of memory");
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "schema", SCHEMA);
    result_fields(w, main, env);
    if (env) env_object(w, env);
    if (nvariants) {
        sts_jsonw_key(w, "variants");
        sts_jsonw_obj_begin(w);
        for (size_t i = 0; i < nvariants; i++) {
            sts_jsonw_key(w, variants[i]->name);
            sts_jsonw_obj_begin(w);
            result_fields(w, variants[i], env);
            sts_jsonw_obj_end(w);
        }
        sts_jsonw_obj_end(w);
    }
    sts_jsonw_obj_end(w);
    sts_status st = sts_jsonw_finish(w);
    sts_jsonw_free(w);
    if (st != STS_OK) return sts_error_set(err, st, -1, "writing the bench report failed: %s", sts_strerror(st));
    return STS_OK;
}
