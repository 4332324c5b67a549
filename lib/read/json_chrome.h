/* read: the Chrome JSON reader's private state, shared by json_chrome.c (the buffer
 * and the top-level structure) and json_event.c (one event: parse, then commit).
 *
 * An event is parsed in one pass into spans that point into the read buffer, with no
 * side effects; only when its closing '}' has been seen is it committed to the
 * timeline. So an event cut by the end of a buffer is simply parsed again after the
 * buffer is refilled, and one cut by the end of the file is dropped whole. */
#ifndef STS_READ_JSON_CHROME_H
#define STS_READ_JSON_CHROME_H

#include "base/completion.h"
#include "read/json_intern.h"
#include "read/json_scan.h"
#include "read/json_skip.h"
#include "read/readers.h"

/* What a value was, from its first byte. */
enum { JK_NONE = 0, JK_STRING, JK_NUMBER, JK_TRUE, JK_FALSE, JK_NULL, JK_OBJECT, JK_ARRAY };

/* A value in the buffer: a string's contents (without quotes; `esc` when it holds
 * escapes), or the raw text of any other value. */
typedef struct jspan {
    const char *p;
    uint32_t n;
    uint8_t kind;
    uint8_t esc;
    uint8_t is_int; /* numbers: no fraction or exponent */
    uint8_t fast;   /* numbers: no exponent and at most 18 integer digits, so: */
    uint8_t neg;    /*   the sign, */
    uint16_t frac;  /*   the fraction in thousandths, rounded (0..1000), */
    uint64_t ip;    /*   and the integer part's magnitude */
} jspan;

/* The event keys the reader uses; F_ARGS is "args", collected apart. */
enum { F_PH, F_NAME, F_CAT, F_PID, F_TID, F_TS, F_DUR, F_ID, F_ID2, F_S, F_BP, F_COUNT };
#define F_ARGS F_COUNT

typedef struct jarg {
    jspan key, val;
    int pred;     /* the key's slot in jr.args_chain, or -1 */
    uint32_t gen; /* that slot's generation when the key was read */
} jarg;

/* A learned key layout: the exact bytes from just after '{' or ',' up to the value
 * (whitespace, the quoted key, ':', whitespace) as the producer wrote them. Producers
 * repeat their layouts, so a key that matches costs a 32-byte compare instead of a
 * scan, a dispatch and three whitespace skips. */
typedef struct jpred {
    char pat[32];
    uint32_t mask; /* bit i: pat[i] counts; never 0 in a learned layout */
    uint8_t len;
    int8_t field; /* event keys: F_x, F_ARGS or -1 */
    uint8_t kofs; /* the key's contents within pat */
    uint8_t kn;
    uint8_t keep;    /* args: the mode keeps this key (valid when key != STS_NONE) */
    uint8_t next[2]; /* the two layouts seen after this one, or JR_NO_PRED */
    uint8_t way;     /* which of them came last */
    uint32_t key;    /* args: the key's string id, STS_NONE until first committed */
    uint32_t gen;    /* bumped when the slot is reused, so stale references are seen */
} jpred;

/* Layouts chained in the order keys come: each predicts the next two, so events of
 * two kinds (a CPU op's args, then a kernel's) keep hitting where they differ. Slot
 * JR_START stands before the first key, JR_LOOSE after a key too long to learn. */
#define JR_POOL    64
#define JR_NO_PRED 0xff
#define JR_START   0
#define JR_LOOSE   1
typedef struct jchain {
    jpred pool[JR_POOL];
    uint8_t alloc; /* the next slot to reuse, round robin over 2..JR_POOL-1 */
} jchain;

typedef struct jevent {
    jspan f[F_COUNT];
    uint32_t have;     /* bit F_x: key x was present */
    uint32_t nargs;    /* args collected into jr.argv */
    const char *start; /* the '{' */
} jevent;

/* Lane cache: recent (pid, tid) pairs exactly as written, direct-mapped, so events
 * from interleaved threads find their lane without hashing labels. */
#define JR_LANE_KEY 32
#define JR_LANES    64
typedef struct jlane_key {
    uint8_t kind, esc;
    uint32_t n;
    char bytes[JR_LANE_KEY];
} jlane_key;

typedef struct jlane_slot {
    jlane_key pid, tid;
    uint32_t lane; /* STS_NONE: empty */
} jlane_slot;

/* Arg keys seen recently: whether the mode keeps them, without hashing. */
#define JR_KEYS    256
#define JR_KEY_MAX 32
typedef struct jkey {
    uint32_t id;  /* string id */
    uint8_t n;    /* 0: empty slot */
    uint8_t keep; /* the args mode keeps this key */
    char bytes[JR_KEY_MAX];
} jkey;

typedef struct jr {
    sts_instream *in;
    sts_timeline *tl;
    sts_error *err;
    const char *path;
    sts_args_mode mode;
    sts_progress_fn progress;
    void *progress_user;

    char *buf;       /* data [0, len), then JSON_PAD zero bytes */
    size_t cap, len; /* cap counts the padding */
    uint64_t base;   /* stream offset of buf[0] */
    int eof;

    uint64_t index; /* element index inside traceEvents */
    json_fail fail;
    int nomem;
    json_skip skip;
    json_intern strs;

    jarg *argv; /* args of the event being parsed */
    size_t argv_cap;
    sts_arg *out; /* args being committed */
    size_t out_cap;
    char *tmp; /* unescaped text */
    size_t tmp_cap;
    jkey *keys; /* JR_KEYS entries, direct-mapped */

    jlane_slot *lanes;  /* JR_LANES entries */
    jchain event_chain; /* layouts of event keys */
    jchain args_chain;  /* layouts of args keys */

    sts_completion done; /* stepscope's completion record, checked at the end */
} jr;

/* Empties a chain (before the first event). */
void sts_jr_chain_init(jchain *c);

/* Parses the event object at p ('{'). Returns the byte after its '}', or NULL: then
 * r->fail says where (at or past e: the event continues beyond the buffer) and what
 * was expected, or r->nomem is set. */
const char *sts_jr_parse_event(jr *r, const char *p, const char *e, jevent *ev);

/* Adds a parsed event to the timeline, or counts it as skipped or rejected (with a
 * warning). Returns 0, or -1 when memory is exhausted. */
int sts_jr_commit_event(jr *r, const jevent *ev);

/* Skips the value at p inside a buffered event. NULL as for sts_jr_parse_event. */
const char *sts_jr_skip_value(jr *r, const char *p, const char *e);

/* "a string", "a number", "a boolean", ... for messages. */
const char *sts_jr_kind_name(int kind);

/* Stream offset of a byte in the buffer. */
static inline uint64_t jr_offset(const jr *r, const char *p)
{
    return r->base + (uint64_t)(p - r->buf);
}

void sts_jr_release(jr *r);

#endif
