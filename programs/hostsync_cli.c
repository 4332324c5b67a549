/* Host syncs in text: one line per step that has any, and a total. */
#include "hostsync_cli.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "trace_cli.h"

#define HS_PER_LINE 3 /* kinds named per step line */

static void put_where(const sts_timeline *tl, uint32_t where)
{
    if (where == STS_NONE)
        printf(" (enclosing slice unknown)");
    else
        printf(" in %s", sts_timeline_string(tl, where));
}

/* "N, the host waited D: NAME xK D in WHERE; ..." for entries first.. of h. */
static void put_entries(const sts_timeline *tl, const sts_host_syncs *h, size_t first, size_t n)
{
    const sts_host_sync *hs = sts_host_syncs_list(h, NULL);
    uint64_t count = 0;
    int64_t wait = 0;
    for (size_t i = first; i < first + n; i++) {
        count += hs[i].count;
        wait += hs[i].wait_ns;
    }
    char d[32];
    sts_fmt_duration((double)wait, d, sizeof d);
    printf("%llu, the host waited %s:", (unsigned long long)count, d);
    for (size_t i = first; i < first + n && i < first + HS_PER_LINE; i++) {
        sts_fmt_duration((double)hs[i].wait_ns, d, sizeof d);
        printf("%s %s x%u %s", i == first ? "" : ";", hs[i].name, hs[i].count, d);
        put_where(tl, hs[i].where);
    }
    printf("%s\n", n > HS_PER_LINE ? "; ... (--json lists them all)" : "");
}

void hs_print_step(const sts_timeline *tl, const sts_host_syncs *h, uint32_t step)
{
    size_t first, n = sts_host_syncs_of_step(h, step, &first);
    if (!n) return;
    printf("%9shost syncs: ", "");
    put_entries(tl, h, first, n);
}

int hs_print_scope(const char *command, const sts_timeline *tl, const sts_scope *scope)
{
    sts_host_syncs *h = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_host_syncs_find_scope(tl, scope, &h, &err) != STS_OK) return cli_report(command, &err);
    size_t first, n = sts_host_syncs_of_step(h, 0, &first);
    printf("host syncs  ");
    if (n)
        put_entries(tl, h, first, n);
    else
        printf("none found%s by the rules of docs/host-syncs.md\n",
               scope && (scope->windowed || scope->lanes) ? " in the chosen lanes and window" : "");
    sts_host_syncs_free(h);
    return CLI_OK;
}

void hs_print_total(const sts_timeline *tl, const sts_host_syncs *h, size_t nsteps)
{
    (void)tl;
    size_t n;
    const sts_host_sync *hs = sts_host_syncs_list(h, &n);
    uint64_t count = 0;
    int64_t wait = 0;
    size_t steps_with = 0;
    for (size_t k = 0; k < nsteps; k++)
        if (sts_host_syncs_of_step(h, (uint32_t)k, NULL)) steps_with++;
    for (size_t i = 0; i < n; i++) {
        count += hs[i].count;
        wait += hs[i].wait_ns;
    }
    size_t out = sts_host_syncs_outside(h);
    if (!count) {
        printf("host syncs:    none found in the steps by the rules of docs/host-syncs.md");
    } else {
        char d[32];
        sts_fmt_duration((double)wait, d, sizeof d);
        printf("host syncs:    %llu in %zu of %zu steps, the host waited %s in them (rules: docs/host-syncs.md)",
               (unsigned long long)count, steps_with, nsteps, d);
    }
    if (out) printf("; %zu more outside the steps", out);
    printf("\n");
}

static sts_sync_kind kind_of(const sts_host_sync_rule *r)
{
    return !strcmp(r->kind, "read") ? STS_SYNC_READ : !strcmp(r->kind, "wait") ? STS_SYNC_WAIT : STS_SYNC_SCALAR;
}

int hs_ledger_from_trace(const char *command, sts_ledger *l, const char *path)
{
    sts_timeline *tl = NULL;
    int rc = tc_open(command, path, NULL, NULL, NULL, &tl);
    if (rc != CLI_OK) return rc;
    sts_host_syncs *h = NULL;
    sts_error err = STS_ERROR_INIT;
    char source[4096];
    snprintf(source, sizeof source, "trace %s", path);
    sts_status st = sts_host_syncs_find_scope(tl, NULL, &h, &err);
    if (st == STS_OK) st = sts_ledger_set_sync_source(l, source, &err);
    size_t n = 0;
    const uint32_t *at = st == STS_OK ? sts_host_syncs_slices(h, &n) : NULL;
    const sts_slice *sl = sts_timeline_slices(tl, NULL);
    int64_t t0 = sts_timeline_get_info(tl)->ts_min;
    for (size_t i = 0; i < n && st == STS_OK; i++) {
        const sts_slice *x = &sl[at[i]];
        const sts_host_sync_rule *r = sts_host_sync_match_name(sts_timeline_string(tl, x->name));
        char label[96], d[32];
        sts_fmt_duration((double)(x->ts - t0), d, sizeof d);
        snprintf(label, sizeof label, "%s at %s", r->name, d);
        const char *where =
            x->parent == STS_NONE ? "(no enclosing slice)" : sts_timeline_string(tl, sl[x->parent].name);
        st = sts_ledger_add_sync(l, label, where, kind_of(r), x->dur, &err);
    }
    sts_host_syncs_free(h);
    sts_timeline_free(tl);
    return st == STS_OK ? CLI_OK : cli_report(command, &err);
}
