/* A fault-injection shim for the reliability tier (tests/cli/test_reliability.sh
 * builds it with -shared and runs stepscope under LD_PRELOAD). It stands in for a
 * full or failing disk under one directory, so a test can prove that a writer leaves
 * the old file whole, no temporary file behind, and says which file failed.
 *
 * Only descriptors open on a file under STS_FAULT_DIR are touched:
 *   STS_FAULT_AFTER=N   write(2) accepts N bytes in all, then fails with ENOSPC
 *   STS_FAULT_FSYNC=1   fsync(2) fails with EIO
 *   STS_FAULT_SIGNAL=S  the first write raises signal S first (a kill mid-write)
 *   STS_FAULT_FSYNC_SIGNAL=S  the first fsync raises signal S first (a kill while
 *                       an output is committed)
 * Every call here is async-signal-safe (the recorder's signal dump writes through
 * it), and the settings are read once, at load. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fault_dir[PATH_MAX];
static size_t fault_dir_len;
static long long budget = -1; /* bytes left before ENOSPC; -1: no limit */
static int fail_fsync, raise_sig, fsync_sig;
static ssize_t (*real_write)(int, const void *, size_t);
static int (*real_fsync)(int);

__attribute__((constructor)) static void init(void)
{
    real_write = (ssize_t(*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
    real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    const char *d = getenv("STS_FAULT_DIR");
    if (d && realpath(d, fault_dir)) fault_dir_len = strlen(fault_dir);
    const char *a = getenv("STS_FAULT_AFTER");
    if (a) budget = atoll(a);
    const char *f = getenv("STS_FAULT_FSYNC");
    fail_fsync = f && *f == '1';
    const char *s = getenv("STS_FAULT_SIGNAL");
    if (s) raise_sig = atoi(s);
    const char *fs = getenv("STS_FAULT_FSYNC_SIGNAL");
    if (fs) fsync_sig = atoi(fs);
}

/* Whether fd is a file under the fault directory. */
static int targeted(int fd)
{
    if (!fault_dir_len) return 0;
    char link[64] = "/proc/self/fd/", digits[16], path[PATH_MAX];
    int nd = 0;
    unsigned v = (unsigned)fd;
    do {
        digits[nd++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    size_t at = strlen(link);
    while (nd)
        link[at++] = digits[--nd];
    link[at] = 0;
    ssize_t len = readlink(link, path, sizeof path - 1);
    if (len <= 0) return 0;
    path[len] = 0;
    return (size_t)len > fault_dir_len && strncmp(path, fault_dir, fault_dir_len) == 0 && path[fault_dir_len] == '/';
}

ssize_t write(int fd, const void *buf, size_t n)
{
    if (!targeted(fd)) return real_write(fd, buf, n);
    if (raise_sig) {
        int sig = raise_sig;
        raise_sig = 0;
        raise(sig);
    }
    if (budget < 0) return real_write(fd, buf, n);
    if (budget == 0) {
        errno = ENOSPC;
        return -1;
    }
    size_t take = (unsigned long long)budget < n ? (size_t)budget : n;
    ssize_t w = real_write(fd, buf, take);
    if (w > 0) budget -= w;
    return w;
}

int fsync(int fd)
{
    if (fsync_sig && targeted(fd)) {
        int sig = fsync_sig;
        fsync_sig = 0;
        raise(sig);
    }
    if (fail_fsync && targeted(fd)) {
        errno = EIO;
        return -1;
    }
    return real_fsync(fd);
}
