/* base: output files that appear whole or not at all (stepscope/outfile.h). */
#include "base/outfile_fd.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct sts_outfile {
    int fd;
    int direct;  /* the destination is not a regular file: written in place */
    int existed; /* the destination existed at open (for the message) */
    FILE *stream;
    int fail_errno; /* first failure; fail_step is NULL while none */
    const char *fail_step;
    char *path;  /* where the file goes (a symbolic link resolved) */
    char *shown; /* the name the caller gave, for messages */
    char *tmp;   /* the temporary file; NULL once renamed or removed */
};

static void note_failure(sts_outfile *f, const char *step, int e)
{
    if (f->fail_step) return;
    f->fail_step = step;
    f->fail_errno = e ? e : EIO;
}

/* The umask, read without changing it (umask(2) would, racing other threads). */
static mode_t current_umask(void)
{
    mode_t mask = 022;
    FILE *s = fopen("/proc/self/status", "re");
    if (!s) return mask;
    char line[256];
    while (fgets(line, sizeof line, s)) {
        unsigned m;
        if (sscanf(line, "Umask: %o", &m) == 1) {
            mask = (mode_t)m;
            break;
        }
    }
    fclose(s);
    return mask;
}

/* "DIR/.NAME.tmp.XXXXXX" beside `path` (NAME shortened so the result stays a valid
 * file name). */
static char *temp_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) : 0;
    const char *base = slash ? slash + 1 : path;
    int keep = (int)strnlen(base, 200);
    size_t n = dirlen + (size_t)keep + 32;
    char *t = malloc(n);
    if (!t) return NULL;
    if (!slash)
        snprintf(t, n, ".%.*s.tmp.XXXXXX", keep, base);
    else if (dirlen == 0)
        snprintf(t, n, "/.%.*s.tmp.XXXXXX", keep, base);
    else
        snprintf(t, n, "%.*s/.%.*s.tmp.XXXXXX", (int)dirlen, path, keep, base);
    return t;
}

static sts_status open_failed(sts_outfile *f, const char *shown, sts_error *err, const char *what, int e)
{
    sts_status code = e == ENOMEM ? STS_ERR_NOMEM : e == ENOENT ? STS_ERR_NOT_FOUND : STS_ERR_IO;
    sts_error_set(err, code, -1, "%s: cannot open for writing: %s: %s", shown, what, strerror(e));
    sts_outfile_free(f);
    return code;
}

/* Where a symbolic link points, so the file behind it is replaced and not the link. */
static char *resolve(const char *path)
{
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        char *real = realpath(path, NULL);
        if (real) return real;
    }
    return strdup(path);
}

sts_status sts_outfile_open(const char *path, sts_outfile **out, sts_error *err)
{
    *out = NULL;
    if (!path || !*path) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "no output path given");
    sts_outfile *f = calloc(1, sizeof *f);
    if (!f) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
    f->fd = -1;
    f->shown = strdup(path);
    f->path = resolve(path);
    if (!f->shown || !f->path) return open_failed(f, path, err, "out of memory", ENOMEM);
    struct stat st;
    mode_t mode = 0666 & ~current_umask();
    if (stat(f->path, &st) == 0) {
        f->existed = 1;
        if (!S_ISREG(st.st_mode)) {
            /* A device or a FIFO cannot be renamed over; it is written in place. */
            f->direct = 1;
            f->fd = open(f->path, O_WRONLY | O_CLOEXEC | O_NOCTTY);
            if (f->fd < 0) return open_failed(f, path, err, "cannot open it", errno);
            *out = f;
            return STS_OK;
        }
        mode = st.st_mode & 07777;
    }
    f->tmp = temp_name(f->path);
    if (!f->tmp) return open_failed(f, path, err, "out of memory", ENOMEM);
    f->fd = mkostemp(f->tmp, O_CLOEXEC);
    if (f->fd < 0) {
        int e = errno;
        free(f->tmp);
        f->tmp = NULL;
        return open_failed(f, path, err, "cannot create a temporary file beside it", e);
    }
    /* mkostemp makes the file private (0600); give it the mode it will keep. */
    (void)fchmod(f->fd, mode);
    *out = f;
    return STS_OK;
}

static int raw_write(sts_outfile *f, const char *p, size_t n)
{
    while (n && !f->fail_step) {
        ssize_t w = write(f->fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            note_failure(f, "write", errno);
            break;
        }
        if (w == 0) {
            note_failure(f, "write", EIO);
            break;
        }
        p += w;
        n -= (size_t)w;
    }
    return f->fail_step ? -1 : 0;
}

int sts_outfile_write(sts_outfile *f, const void *p, size_t n)
{
    if (f->stream && fflush(f->stream) != 0) note_failure(f, "write", EIO);
    return raw_write(f, p, n);
}

/* The stream's write function: errors are kept in `f` with their errno, which
 * stdio's own error flag would lose. Returns the bytes taken, or 0 on error. */
static ssize_t cookie_write(void *cookie, const char *buf, size_t n)
{
    return raw_write(cookie, buf, n) == 0 ? (ssize_t)n : 0;
}

static int cookie_close(void *cookie)
{
    (void)cookie; /* the descriptor is closed by commit or free */
    return 0;
}

FILE *sts_outfile_stream(sts_outfile *f)
{
    if (f->stream) return f->stream;
    cookie_io_functions_t io = { NULL, cookie_write, NULL, cookie_close };
    f->stream = fopencookie(f, "w", io);
    if (!f->stream) note_failure(f, "write", ENOMEM);
    return f->stream;
}

static void fsync_parent(const char *path)
{
    char dir[PATH_MAX];
    size_t n = strlen(path);
    if (n >= sizeof dir) return;
    memcpy(dir, path, n + 1);
    char *slash = strrchr(dir, '/');
    if (!slash)
        memcpy(dir, ".", 2);
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)fsync(fd); /* best effort: some file systems refuse fsync on a directory */
    close(fd);
}

int sts_outfile_finish_fd(int fd, const char *tmp, const char *path, const char **step)
{
    const char *what = NULL;
    int e = 0;
    if (fsync(fd) != 0 && errno != EINVAL) what = "fsync", e = errno;
    if (close(fd) != 0 && !what && errno != EINTR) what = "close", e = errno;
    if (!what && rename(tmp, path) != 0) what = "rename", e = errno;
    if (what) {
        unlink(tmp);
        if (step) *step = what;
        return e ? e : EIO;
    }
    fsync_parent(path);
    return 0;
}

static void close_stream(sts_outfile *f)
{
    if (!f->stream) return;
    if (fflush(f->stream) != 0) note_failure(f, "write", EIO);
    fclose(f->stream);
    f->stream = NULL;
}

static sts_status report_failure(const sts_outfile *f, sts_error *err)
{
    sts_status st = f->fail_errno == ENOMEM ? STS_ERR_NOMEM : STS_ERR_IO;
    if (f->direct)
        return sts_error_set(err, st, -1, "%s: %s failed: %s", f->shown, f->fail_step, strerror(f->fail_errno));
    return sts_error_set(err, st, -1, "%s: %s failed: %s; %s", f->shown, f->fail_step, strerror(f->fail_errno),
                         f->existed ? "the existing file was left as it was" : "no file was created");
}

sts_status sts_outfile_abandon(sts_outfile *f, sts_error *err)
{
    if (!f) return STS_OK;
    if (f->stream && fflush(f->stream) != 0) note_failure(f, "write", EIO);
    sts_status st = f->fail_step ? report_failure(f, err) : STS_OK;
    sts_outfile_free(f);
    return st;
}

sts_status sts_outfile_commit(sts_outfile *f, sts_error *err)
{
    close_stream(f);
    if (f->direct) {
        if (close(f->fd) != 0 && errno != EINTR) note_failure(f, "close", errno);
        f->fd = -1;
    } else if (!f->fail_step) {
        const char *step = "rename";
        int e = sts_outfile_finish_fd(f->fd, f->tmp, f->path, &step);
        f->fd = -1;
        if (e)
            note_failure(f, step, e);
        else {
            free(f->tmp);
            f->tmp = NULL; /* it is the destination now */
        }
    }
    sts_status st = f->fail_step ? report_failure(f, err) : STS_OK;
    sts_outfile_free(f);
    return st;
}

void sts_outfile_free(sts_outfile *f)
{
    if (!f) return;
    if (f->stream) fclose(f->stream);
    if (f->fd >= 0) close(f->fd);
    if (f->tmp) unlink(f->tmp);
    free(f->tmp);
    free(f->path);
    free(f->shown);
    free(f);
}

sts_status sts_outfile_write_all(const char *path, const void *data, size_t n, sts_error *err)
{
    sts_outfile *f = NULL;
    sts_status st = sts_outfile_open(path, &f, err);
    if (st != STS_OK) return st;
    sts_outfile_write(f, data, n);
    return sts_outfile_commit(f, err);
}
