/* base: the completion record. Every trace file stepscope writes (the writers' Chrome
 * JSON and XSpace files, the recorder's profile directories and its signal dump)
 * announces at its start that it ends with a completion record, and ends with it. A
 * reader that saw the announcement but not the record knows the file was cut short
 * (an interrupted dump, a full disk, a partial copy) even when the cut falls between
 * two events, where the format itself cannot tell: it is an error, not a warning.
 * Files from other producers have neither and are read as before.
 *
 * Chrome JSON: the first event is {"ph":"M","pid":P,"name":"stepscope.file",
 * "args":{"writer":"stepscope VERSION","ends_with":"stepscope.complete"}} and the
 * last {"ph":"M","pid":P,"name":"stepscope.complete","args":{"events":N}}, P the pid
 * of the file's first process, N counting the events between the two; viewers ignore
 * metadata events with names they do not know.
 * XSpace: field 1001 of XSpace (a message: 1 = writer string) is written first and
 * field 1002 (a message: 1 = the number of XEvents) last; protobuf parsers keep
 * unknown fields and XProf ignores them. (docs/trace.md, "Completion record".) */
#ifndef STS_BASE_COMPLETION_H
#define STS_BASE_COMPLETION_H

#include <stddef.h>
#include <stdint.h>

#include "stepscope/status.h"

#define STS_COMPLETION_HEAD        "stepscope.file"
#define STS_COMPLETION_TAIL        "stepscope.complete"
#define STS_COMPLETION_XSPACE_HEAD 1001u
#define STS_COMPLETION_XSPACE_TAIL 1002u

/* The two Chrome JSON events as written (STS_VERSION_STRING comes from the build):
 * OPEN, the pid of the file's first process (0 when it has none), then HEAD_REST; and
 * OPEN, the pid, TAIL_REST, the number of other events in the file and "}}". The pid
 * is an existing process's so that importers that make a process of every pid
 * (Perfetto does) add none. */
#define STS_COMPLETION_JSON_OPEN "{\"ph\":\"M\",\"pid\":"
#define STS_COMPLETION_JSON_HEAD_REST                                                                  \
    ",\"name\":\"" STS_COMPLETION_HEAD "\",\"args\":{\"writer\":\"stepscope " STS_VERSION_STRING "\"," \
    "\"ends_with\":\"" STS_COMPLETION_TAIL "\"}}"
#define STS_COMPLETION_JSON_TAIL_REST ",\"name\":\"" STS_COMPLETION_TAIL "\",\"args\":{\"events\":"

typedef struct sts_completion {
    int announced; /* the head was read */
    int complete;  /* the tail was read */
} sts_completion;

/* A reader saw a metadata event named `name` (n bytes): notes it when it is the head
 * or the tail. Returns 1 when it was one of them. */
int sts_completion_note_name(sts_completion *c, const char *name, size_t n);

/* The same for an XSpace field number. */
int sts_completion_note_field(sts_completion *c, uint32_t field);

/* At the end of a file of `bytes` bytes: STS_OK, or STS_ERR_TRUNCATED when the head
 * was read and the tail was not; the message names the file, where it ends and the
 * missing record (`record`: how the format spells it). */
sts_status sts_completion_check(const sts_completion *c, const char *path, uint64_t bytes, const char *record,
                                sts_error *err);

#endif
