/* analyze: the device view's pieces shared between its files (devview_*.c). */
#ifndef STS_ANALYZE_DEVVIEW_IMPL_H
#define STS_ANALYZE_DEVVIEW_IMPL_H

#include <regex.h>

#include "analyze/an_impl.h"
#include "base/vec.h"
#include "stepscope/devview.h"

/* What a condition reads of an op. */
typedef enum dv_field { DV_F_ANY = 0, DV_F_NAME, DV_F_CAT, DV_F_LANE, DV_F_PROCESS, DV_F_ARG } dv_field;

/* How it tests the text. */
typedef enum dv_test { DV_T_ANY = 0, DV_T_IS, DV_T_PREFIX, DV_T_CONTAINS, DV_T_MATCHES, DV_T_COLLECTIVE } dv_test;

typedef struct dv_cond {
    uint8_t field, test;
    char *key;   /* DV_F_ARG: the arg's key */
    char *value; /* the text compared; NULL for DV_T_ANY and DV_T_COLLECTIVE */
    size_t value_len;
    regex_t re; /* DV_T_MATCHES */
    int has_re;
} dv_cond;

/* A rule's category: an sts_devview_category, or DV_IGNORE. */
#define DV_IGNORE STS_DV_CATEGORIES

/* Direction decided from the name (memcpy without a direction). */
#define DV_DIR_FROM_NAME 0xffu

typedef struct dv_rule {
    uint8_t category;  /* sts_devview_category or DV_IGNORE */
    uint8_t direction; /* sts_devview_direction, or DV_DIR_FROM_NAME */
    uint32_t line;
    uint32_t first_cond, ncond; /* into rules->conds */
    char *text;
} dv_rule;

struct sts_devview_rules {
    STS_VEC(dv_rule) rules;
    STS_VEC(dv_cond) conds;
    STS_VEC(char *) arg_keys;
};

/* The direction a memcpy's name says ("Memcpy HtoD (Pageable -> Device)", "MemcpyD2H"). */
sts_devview_direction sts_dv_direction_from_name(const char *name);

/* Whether text[0..n) passes condition c (its field already read). */
int sts_dv_cond_test(const dv_cond *c, const char *text, size_t n);

/* One device op as collected: its interval, category and launch. */
typedef struct dv_op {
    int64_t start, end;
    int64_t launch; /* the launch's start; valid when host != STS_NONE */
    uint32_t slice, host, device, lane;
    uint32_t name; /* the slice's, so the warnings need not read the slices */
    uint8_t cat, dir, by_flow, unused;
} dv_op;

struct sts_devview {
    STS_VEC(sts_devview_device) devices;
    STS_VEC(sts_devview_window) windows; /* per step and device */
    STS_VEC(sts_devview_window) spans;   /* per device: its span */
    STS_VEC(sts_devview_launch) launches;
    STS_VEC(uint32_t) orphans;
    STS_VEC(uint64_t) hits;
    STS_VEC(char *) warnings;
    sts_devview_links links;
    sts_devview_rules *own_rules; /* the built-in table, when no rules were given */
    const sts_devview_rules *rules;
    size_t nsteps;       /* step windows per device; 0: one span window each */
    uint32_t name_bound; /* sts_an_name_bound() of the timeline, found once by collecting */
    uint64_t ops_by_cat[STS_DV_CATEGORIES];
};

/* What collecting gives the sweep: the ops, by device and then start. */
typedef struct dv_ops {
    STS_VEC(dv_op) v;
} dv_ops;

/* Finds the devices and their ops, categorizes them by v->rules, links each to its
 * launch (correlation ids, then kept flows), and fills v's devices, launches, links,
 * orphan calls and rule hits. -1 when memory is exhausted. */
int sts_dv_collect(const sts_timeline *tl, sts_devview *v, dv_ops *ops);

/* Each device's windows from its ops (sorted by device, then start): busy time by
 * category, overlap, idle causes, queue and launch statistics. -1 when memory is
 * exhausted. */
int sts_dv_sweep(const sts_timeline *tl, sts_devview *v, const dv_ops *ops, const sts_steps *steps);

/* The warnings (see sts_devview_warnings()). -1 when memory is exhausted. */
int sts_dv_warn(const sts_timeline *tl, sts_devview *v, const dv_ops *ops);

/* Appends one warning (printf-style); -1 when memory is exhausted. */
int sts_dv_note(sts_devview *v, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
