/* gen_wide: writes a Chrome trace that is wide rather than long, for the scaling
 * benchmark of the model and the analysis: many processes and lanes, few events each.
 *
 *   gen_wide [--compact] PROCESSES LANES SLICES_PER_LANE OUT
 *
 * Lane k is thread k + 1 of process k % PROCESSES + 1. Each process gets a
 * process_name, every lane a thread_name; each lane holds SLICES_PER_LANE / 2 parent
 * slices, each with one child in its middle half (so nesting is exercised), laid out
 * one after another. Lanes are written interleaved, a slice of each in turn, as a
 * machine-wide profiler would write them, so no lane's events are contiguous.
 * Timestamps are whole microseconds. Deterministic; prints what it wrote, which the
 * benchmark checks the reader's counts against. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int usage(void)
{
    fprintf(stderr, "usage: gen_wide [--compact] PROCESSES LANES SLICES_PER_LANE OUT\n");
    return 2;
}

int main(int argc, char **argv)
{
    int compact = 0, a = 1;
    if (a < argc && strcmp(argv[a], "--compact") == 0) compact = 1, a++;
    if (argc - a != 4) return usage();
    long procs = strtol(argv[a], NULL, 10), lanes = strtol(argv[a + 1], NULL, 10);
    long per = strtol(argv[a + 2], NULL, 10);
    if (procs < 1 || lanes < procs || per < 2 || per % 2) return usage();
    FILE *f = fopen(argv[a + 3], "wb");
    if (!f) {
        fprintf(stderr, "gen_wide: cannot write %s: %s\n", argv[a + 3], strerror(errno));
        return 1;
    }
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    const char *sep = compact ? ",\n" : ",\n  ";
    fputs(compact ? "{\"traceEvents\":[\n" : "{\"traceEvents\": [\n  ", f);
    uint64_t events = 0;
    for (long p = 1; p <= procs; p++, events++)
        fprintf(
            f,
            compact
                ? "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%ld,\"tid\":0,\"args\":{\"name\":\"rank %ld\"}}%s"
                : "{\"ph\": \"M\", \"name\": \"process_name\", \"pid\": %ld, \"tid\": 0, "
                  "\"args\": {\"name\": \"rank %ld\"}}%s",
            p, p - 1, sep);
    for (long k = 0; k < lanes; k++, events++)
        fprintf(
            f,
            compact
                ? "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%ld,\"tid\":%ld,\"args\":{\"name\":\"worker %ld\"}}%s"
                : "{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": %ld, \"tid\": %ld, "
                  "\"args\": {\"name\": \"worker %ld\"}}%s",
            k % procs + 1, k + 1, k, sep);
    for (long s = 0; s < per / 2; s++) {
        for (long k = 0; k < lanes; k++) {
            long pid = k % procs + 1, tid = k + 1;
            uint64_t t0 = 1000000 + (uint64_t)s * 100 + (uint64_t)(k % 7);
            int last = s == per / 2 - 1 && k == lanes - 1;
            fprintf(f,
                    compact ? "{\"ph\":\"X\",\"name\":\"step\",\"pid\":%ld,\"tid\":%ld,\"ts\":%" PRIu64 ",\"dur\":80}%s"
                              "{\"ph\":\"X\",\"name\":\"op %ld\",\"pid\":%ld,\"tid\":%ld,\"ts\":%" PRIu64
                              ",\"dur\":40}%s"
                            : "{\"ph\": \"X\", \"name\": \"step\", \"pid\": %ld, \"tid\": %ld, \"ts\": %" PRIu64
                              ", \"dur\": 80}%s"
                              "{\"ph\": \"X\", \"name\": \"op %ld\", \"pid\": %ld, \"tid\": %ld, \"ts\": %" PRIu64
                              ", \"dur\": 40}%s",
                    pid, tid, t0, sep, s % 16, pid, tid, t0 + 20, last ? "\n" : sep);
            events += 2;
        }
    }
    fputs("]}\n", f);
    if (fclose(f) != 0) {
        fprintf(stderr, "gen_wide: writing %s failed\n", argv[a + 3]);
        return 1;
    }
    printf("gen_wide: %s: %ld processes, %ld lanes, %" PRIu64 " slices, %" PRIu64 " events\n", argv[a + 3], procs,
           lanes, (uint64_t)lanes * (uint64_t)per, events);
    return 0;
}
