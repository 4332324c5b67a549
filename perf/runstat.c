/* perf/runstat: runs one command and writes its figures to a file: wall seconds, user
 * and system CPU seconds, and the peak resident set size of that command alone.
 *
 *   runstat STATS_FILE COMMAND [ARGS...]
 *
 * STATS_FILE gets one line, "wall user sys maxrss_kb". The command keeps this program's
 * standard input, output and error; this program exits with the command's status (128
 * plus the signal's number when a signal ended it; 127 when it could not be run).
 *
 * Why the benchmarks run their commands through this and not straight from Python:
 * Linux keeps, as a process's peak RSS, the larger of its own and the peak of the
 * address space it replaced at exec, which for a child of a Python harness is the
 * harness's. bench_analyze.py holds a parsed 196 MB document after the wide trace's
 * first run, and the next run reported 1,130 MB where it used 500 MB. A child of this
 * small program carries its own peak plus about a megabyte. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: runstat STATS_FILE COMMAND [ARGS...]\n");
        return 2;
    }
    FILE *stats = fopen(argv[1], "we"); /* closed in the command at exec */
    if (!stats) {
        fprintf(stderr, "runstat: cannot write %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        fprintf(stderr, "runstat: fork: %s\n", strerror(errno));
        fclose(stats);
        return 2;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "runstat: cannot run %s: %s\n", argv[2], strerror(errno));
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0)
        if (errno != EINTR) {
            fprintf(stderr, "runstat: wait4: %s\n", strerror(errno));
            fclose(stats);
            return 2;
        }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double wall = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    fprintf(stats, "%.6f %.6f %.6f %ld\n", wall, seconds(ru.ru_utime), seconds(ru.ru_stime), ru.ru_maxrss);
    if (fclose(stats) != 0) {
        fprintf(stderr, "runstat: cannot write %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 2;
}
