/* read: the Chrome JSON reader's private state, shared by json_chrome.c (the buffer
 * and the top-level structure), json_walk.c (one event, the fast way), json_event.c
 * (one event, the reference way, which also names the error in bad input) and
 * json_commit.c (storing an event).
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
 * scan, a dispatch and three whitespace skips.
 */
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
    uint8_t vmiss;   /* json_walk.c: values learned since one last repeated */
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

/* Values the fast parser met (json_walk.c): producers repeat most of them ("ph": "X",
 * "cat": "cpu_op", "pid": 4242, constant args), and a value that repeats byte for
 * byte, with the ',' or '}' after it, needs no parsing. Direct-mapped by the value's
 * first 8 bytes, whatever key it follows, so a key can have several. */
#define JR_VALUES 512
typedef struct jvalue {
    char pat[32];  /* the value's text from the layout's end, through its ',' or '}' */
    uint32_t mask; /* pat's bits that count; 0: empty */
    uint8_t len;   /* bytes through the separator */
    uint8_t vofs;  /* where the span's text starts in pat */
    uint32_t id1;  /* a string value's id + 1 once interned and looked up; 0 before */
    jspan val;     /* the parsed value (val.p is not kept) */
} jvalue;

/* One key-value pair of an event as the fast parser walked it, for json_shape.c: where
 * its value and separator are, and what the value became. */
#define JS_STEPS 48
#define JS_ARG   F_COUNT /* rec step field: an arg (in the args chain) */
typedef struct jrec_step {
    const char *vs; /* the value (just after the layout) */
    const char *ve; /* the ',' or '}' after it */
    int8_t field;   /* F_x; -1: an event key the reader ignores; JS_ARG: an arg */
    int8_t arg;     /* args: the argv index it went to, or -1 when dropped */
    uint8_t pred;   /* the key's layout slot in its chain, or JR_NO_PRED / JR_LOOSE */
    uint8_t hit;    /* r->vhit: the value repeated a remembered one (1), did not (0), or
                     * was not looked up (VHIT_UNASKED) */
    uint8_t kind;   /* JK_x of the value */
} jrec_step;

typedef struct jrec {
    jrec_step s[JS_STEPS];
    int n;
    int bad; /* something a shape cannot replay: too many pairs, "args" twice or not an object */
    int args_seen;
} jrec;

typedef struct jshapes jshapes;

typedef struct jevent {
    jspan f[F_COUNT];
    uint32_t have;     /* bit F_x: key x was present */
    uint32_t nargs;    /* args collected into jr.argv */
    const char *start; /* the '{' */
} jevent;

/* Lane cache: recent (pid, tid) pairs exactly as written, direct-mapped, so events
 * from interleaved threads find their lane without hashing labels (behind it, for pairs
 * of plain integers, jr's lane_map). */
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

/* The top-level structure's states (json_chrome.c). */
enum {
    ST_START,     /* before the top-level value */
    ST_OBJ_FIRST, /* after the top-level '{' */
    ST_OBJ_KEY,   /* after ',' in the top-level object */
    ST_OBJ_SKIP,  /* inside a top-level value we do not read */
    ST_OBJ_AFTER, /* after a top-level object's value */
    ST_ARR_FIRST, /* after the events' '[' */
    ST_ARR_ELEM,  /* an event (or ']' after a trailing comma) must come */
    ST_ARR_SKIP,  /* inside a non-object element */
    ST_ARR_AFTER, /* after an element */
    ST_END        /* after the top-level value */
};

typedef struct top {
    int st;
    int in_object;  /* the events array sits inside a top-level object */
    int saw_events; /* a "traceEvents" key was found */
    uint64_t next_progress;
} top;

/* A gzip input inflated on a thread of its own (json_feed.c). */
typedef struct jr_feed jr_feed;

/* Bytes read straight from a plain file (pread), from memory, or from a feed, for the
 * chunks the parallel reader hands out (json_par.c) and, with a feed, for the reader. */
typedef struct jr_range {
    int fd;          /* pread from it, or -1 */
    const char *mem; /* else read from here */
    jr_feed *feed;   /* else from the inflated window */
    uint64_t pos;    /* the next byte to read */
    uint64_t end;    /* the input's size (UINT64_MAX: not known yet, a feed) */
} jr_range;

typedef struct jr_par jr_par;

/* How the events array is cut into chunks, and what a chunk's reader needs to know:
 * the same on the reading process and on its peers (json_peers.c). */
typedef struct jr_plan {
    jr_range src;
    const char *path, *tl_path, *tl_format;
    sts_args_mode mode;
    int count_flows; /* the timeline's: STS_FLOWS_COUNT */
    int in_object, reference;
    uint64_t first;         /* where the events start */
    uint64_t size;          /* bytes per chunk (0: splits) */
    const uint64_t *splits; /* explicit chunk starts after the first */
    size_t nsplits;
} jr_plan;

/* One chunk, read. */
typedef struct jr_chunk {
    size_t index;      /* which chunk this is */
    int state;         /* json_par.c's, under its lock */
    int clean;         /* read plainly: may be merged */
    int ended;         /* the events array ended in it */
    uint64_t start;    /* where its reader began */
    uint64_t stop;     /* the first element at or past the next chunk's start, or just after ']' */
    uint64_t elements; /* array elements it read */
    sts_timeline *tl;
} jr_chunk;

/* Where chunk i starts, or UINT64_MAX past the last one. */
uint64_t sts_jr_chunk_from(const jr_plan *h, size_t i);

/* Reads chunk i into a timeline of its own (c zeroed by the caller, but for c->tl: a
 * timeline to empty and read into again, or NULL for a new one). Leaves it unclean
 * when anything is not plain, so that the serial reader takes that stretch; c->tl may
 * then still hold a timeline, for the caller to use again or free. */
void sts_jr_read_chunk(const jr_plan *h, size_t i, jr_chunk *c);

/* Peers (json_peers.c). Starts them on h's chunks: 0, or -1 when they will not read. */
int sts_jr_peers_start(const sts_chunk_peers *peers, const jr_plan *h);

/* Chunk i from the peer that read it, into c (zeroed by the caller); c stays unclean
 * when the peer's bytes are missing or do not fit this process. */
void sts_jr_peers_fetch(const sts_chunk_peers *peers, const jr_plan *h, size_t i, jr_chunk *c);

/* Knobs for tests and benchmarks (sts_read_chrome_json_with). */
typedef struct sts_jr_tuning {
    int reference;          /* parse every event with the reference parser */
    int jobs;               /* threads; 0: the machine's cores (or sts_open_options.jobs) */
    uint64_t chunk;         /* bytes per chunk; 0: chosen from the size */
    uint64_t min_parallel;  /* inputs with fewer bytes of events are read by one thread */
    const uint64_t *splits; /* explicit chunk starts (offsets, ascending), instead of chunk */
    size_t nsplits;
    int inline_inflate; /* gzip: inflate on the reading thread, not a thread of its own */
    uint64_t *shaped;   /* when set: receives how many events the serial reader took by shape */
    uint64_t *chunks;   /* when set: receives how many chunks read elsewhere were merged */
} sts_jr_tuning;

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

    jlane_slot *lanes; /* JR_LANES entries */
    /* Lanes beyond the cache's reach (many lanes interleaved): a pid and tid written as
     * plain integers below 2^31, (pid << 32 | tid) + 1, -> the lane they made. */
    sts_u64map lane_map;
    jchain event_chain; /* layouts of event keys */
    jchain args_chain;  /* layouts of args keys */

    jvalue *values; /* JR_VALUES learned values (json_walk.c), or NULL */
    /* The string ids (+ 1; 0: not known) of this event's name and cat when the fast
     * parser took them from a learned value whose id it knew: commit needs not intern. */
    uint32_t fid1[F_COUNT];
    /* The lane (+ 1; 0: not known yet) of events whose shape fixes "pid" and "tid":
     * commit takes it from there, and fills it in the first time. NULL otherwise. */
    uint32_t *lane_hint;
    int reference;          /* parse every event with sts_jr_parse_event (tests compare the two) */
    int vhit;               /* json_values.h: whether the last value repeated a remembered one */
    jshapes *shapes;        /* whole-event shapes (json_shape.c), or NULL */
    uint64_t shape_hits;    /* events taken by a shape (tests check the path ran) */
    uint64_t chunks_merged; /* chunks read by workers or peers and merged (tests check the plan) */

    jr_range *range;              /* read from here instead of `in` (a chunk worker, or the serial
                                   * reader inside the events when they are read in chunks) */
    uint64_t stop_at;             /* stop at the first element that starts at or past this offset */
    int stopped;                  /* ... and did: the position is the one drive() returned */
    int worker;                   /* a chunk worker: stop where the events array ends, too */
    int spoiled;                  /* ... and where its chunk cannot be merged (json_par.c) */
    jr_par *par;                  /* the chunk coordinator, while the events are read in chunks */
    int jobs;                     /* threads for chunks (0: one per core) */
    const sts_chunk_peers *peers; /* other processes that read chunks, or NULL */
    jr_feed *feed;                /* gzip inflated on its own thread; r->range reads it */
    int input_failed;             /* the error came from reading (gzip, I/O), not from the JSON */
    jr_range feed_range;

    sts_completion done; /* stepscope's completion record, checked at the end */
} jr;

/* Empties a chain (before the first event). */
void sts_jr_chain_init(jchain *c);

/* Parses the event object at p ('{'). Returns the byte after its '}', or NULL: then
 * r->fail says where (at or past e: the event continues beyond the buffer) and what
 * was expected, or r->nomem is set. */
const char *sts_jr_parse_event(jr *r, const char *p, const char *e, jevent *ev);

/* The same, faster: key-value pairs that repeat byte for byte (learned layouts with
 * their values) are taken without parsing. Fills ev as sts_jr_parse_event does and
 * fails where it fails; on a failure before e, the caller asks sts_jr_parse_event for
 * the message, so errors have one wording. */
const char *sts_jr_walk_event(jr *r, const char *p, const char *e, jevent *ev);

/* The same, also recording each key-value pair into rec (for json_shape.c). */
const char *sts_jr_walk_event_rec(jr *r, const char *p, const char *e, jevent *ev, jrec *rec);

/* The same as sts_jr_walk_event, faster still on events that repeat a shape: the
 * exact bytes of an earlier event with holes where its values change. */
const char *sts_jr_shape_event(jr *r, const char *p, const char *e, jevent *ev);

/* Frees the shapes; NULL-safe. */
void sts_jr_shapes_free(jshapes *s);

/* The event field a key names (F_x, F_ARGS), or -1; esc: the key holds escapes. */
int sts_jr_key_field(const char *k, size_t n, int esc);

/* Whether this event's args are worth collecting, from what is known of it so far. */
int sts_jr_args_wanted(const jr *r, const jevent *ev);

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

/* Sets up a reader over `in` (or, when in is NULL, a range set afterwards) filling tl.
 * Returns 0, or -1 when memory is exhausted. */
int sts_jr_init(jr *r, sts_instream *in, const char *path, sts_timeline *tl, sts_args_mode mode, sts_error *err);

/* Frees what sts_jr_init and reading allocated (not tl). */
void sts_jr_fini(jr *r);

/* Runs the reader from buf[*pos] until the input ends (STS_OK, r->stopped clear), a
 * stop point (STS_OK, r->stopped set, *pos at the element that starts there, or where
 * a worker's events array ended), or an error. */
sts_status sts_jr_drive(jr *r, top *t, size_t *pos);

/* Drops the buffer and goes on reading at stream offset `at` (forward only). */
sts_status sts_jr_seek(jr *r, uint64_t at);

/* The parallel reader (json_par.c). At a stop point `at` (an element start inside the
 * events array), merges every chunk that workers read and that lines up, and says where
 * the serial reader goes on: *resume, with t->st and r->stop_at set. Creates the
 * coordinator on the first call; returns an error status only for no memory. */
sts_status sts_jr_par_step(jr *r, top *t, const sts_jr_tuning *tune, uint64_t at, uint64_t *resume);

/* Stops the workers and frees the coordinator; NULL-safe. */
void sts_jr_par_end(jr *r);

/* Starts inflating `in` (gzip) on a thread, at most `limit` bytes ahead of what the
 * readers still need; NULL when no thread or memory could be had. */
jr_feed *sts_jr_feed_start(sts_instream *in, uint64_t limit);

/* Stops the thread and frees the window (readers must be done); NULL-safe. */
void sts_jr_feed_stop(jr_feed *f);

/* Reads up to cap inflated bytes at offset pos, waiting for them: the count, 0 at the
 * end, -1 with err set at an inflate error (where it happened) or a stop. */
long sts_jr_feed_read(jr_feed *f, uint64_t pos, char *buf, size_t cap, sts_error *err);

/* Lets go of the bytes before `low` (no reader goes back there). */
void sts_jr_feed_release(jr_feed *f, uint64_t low);

/* Inflates the rest of the input, keeping nothing: STS_OK, or the inflate error (err
 * set). For the readers that stopped early; they read no more after it. */
sts_status sts_jr_feed_drain(jr_feed *f, sts_error *err);

/* The inflated size once the input has ended cleanly, else UINT64_MAX. */
uint64_t sts_jr_feed_end(jr_feed *f);

/* Compressed bytes consumed so far (for progress). */
uint64_t sts_jr_feed_raw(jr_feed *f);

/* The lowest offset the chunk workers may still read (UINT64_MAX: none). */
uint64_t sts_jr_par_low(const jr *r);

/* Reads from a range source into buf; returns the count, 0 at the end, -1 on error. */
long sts_jr_range_read(jr_range *g, char *buf, size_t cap, const char *path, sts_error *err);

/* Appends everything src holds (a chunk's events, read into a timeline of its own) to
 * dst, as if dst's reader had read them: strings, processes and lanes by name, event
 * sequence numbers after `event_base`. Returns 0, or -1 when memory is exhausted. */
int sts_jr_merge(sts_timeline *dst, const sts_timeline *src, uint64_t event_base);

/* 1 when src can be merged into dst as the next stretch of the file: its deferred
 * sorter pushes are all there, and the trace's span with it still fits in int64 ns
 * (else the serial reader must read the stretch, refusing what does not fit). */
int sts_jr_mergeable(const sts_timeline *dst, const sts_timeline *src);

/* 1 when the events read into tl meet about as many new lanes and strings as events:
 * a trace wide rather than long, whose chunks cost as much to merge as to read. */
int sts_jr_wide(const sts_timeline *tl);

/* sts_read_chrome_json with knobs (tune may be NULL). */
sts_status sts_read_chrome_json_with(sts_instream *in, sts_timeline *tl, const sts_open_options *opt,
                                     const sts_jr_tuning *tune, sts_error *err);

#endif
