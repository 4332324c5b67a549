/* Replays a fuzz target's corpus without libFuzzer, so `make test` runs it under the
 * normal and sanitizer builds: every file named on the command line, or found in a
 * directory named there (one level), is passed to LLVMFuzzerTestOneInput.
 * Prints "ok <target> corpus (N inputs)", or SKIP when there are no inputs. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: %s: cannot open\n", path);
        return -1;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap) {
            uint8_t *b = realloc(buf, cap * 2);
            if (!b) break;
            buf = b;
            cap *= 2;
        }
    }
    fclose(f);
    if (!buf) return -1;
    /* An exact-size copy, so reads past the end are caught by the sanitizers. */
    uint8_t *exact = malloc(n ? n : 1);
    if (exact) {
        memcpy(exact, buf, n);
        LLVMFuzzerTestOneInput(exact, n);
    }
    free(exact);
    free(buf);
    return exact ? 0 : -1;
}

static const char *target_name(const char *argv0)
{
    static char name[256];
    const char *base = strrchr(argv0, '/');
    base = base ? base + 1 : argv0;
    snprintf(name, sizeof name, "%s", base);
    char *suffix = strstr(name, "_replay");
    if (suffix) *suffix = 0;
    return name;
}

int main(int argc, char **argv)
{
    const char *target = target_name(argv[0]);
    long inputs = 0;
    int bad = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) continue;
        if (!S_ISDIR(st.st_mode)) {
            bad |= replay_file(argv[i]) != 0;
            inputs++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        struct dirent *de;
        while (d && (de = readdir(d))) {
            if (de->d_name[0] == '.') continue;
            char path[4096];
            if (snprintf(path, sizeof path, "%s/%s", argv[i], de->d_name) >= (int)sizeof path) continue;
            if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) continue;
            bad |= replay_file(path) != 0;
            inputs++;
        }
        if (d) closedir(d);
    }
    if (bad) {
        printf("FAIL %s corpus (unreadable input)\n", target);
        return 1;
    }
    if (inputs == 0) {
        printf("SKIP %s corpus (no inputs)\n", target);
        return 0;
    }
    printf("ok %s corpus (%ld inputs)\n", target, inputs);
    return 0;
}
