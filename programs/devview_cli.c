/* The device view's options and text for steps and analyze; the numbers are the
 * library's (sts_devview_compute()), this file only prints them. */
#include "devview_cli.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const struct {
    const char *name;
    sts_args_mode mode;
} MODES[] = { { "analysis", STS_ARGS_ANALYSIS }, { "known", STS_ARGS_KNOWN }, { "all", STS_ARGS_ALL } };

/* The first arg key of the rules that `mode` drops, or NULL. */
static const char *dropped_key(const sts_devview_rules *r, sts_args_mode mode)
{
    size_t nk;
    const char *const *keys = sts_devview_rules_arg_keys(r, &nk);
    for (size_t i = 0; i < nk; i++)
        if (!sts_args_mode_keeps(mode, keys[i], strlen(keys[i]))) return keys[i];
    return NULL;
}

int dc_prepare(const char *cmd, dc_opts *o, const char **argmode)
{
    o->rules = NULL;
    if (!o->device && (o->categories || o->explain)) {
        fprintf(stderr, "stepscope %s: %s needs --device\n", cmd, o->categories ? "--categories" : "--explain");
        return CLI_USAGE;
    }
    if (!o->device || !o->categories) return CLI_OK;
    sts_error err = STS_ERROR_INIT;
    if (sts_devview_rules_load(o->categories, &o->rules, &err) != STS_OK) return cli_report(cmd, &err);
    if (!*argmode) {
        for (size_t m = 0; m < sizeof MODES / sizeof MODES[0]; m++) {
            if (dropped_key(o->rules, MODES[m].mode)) continue;
            if (m) {
                fprintf(stderr, "stepscope %s: %s reads args the analyses do not keep: reading with --args %s\n", cmd,
                        o->categories, MODES[m].name);
                *argmode = MODES[m].name;
            }
            return CLI_OK;
        }
        return CLI_OK; /* not reached: all keeps every key */
    }
    sts_args_mode mode = STS_ARGS_NONE;
    int named = strcmp(*argmode, "none") == 0;
    for (size_t m = 0; m < sizeof MODES / sizeof MODES[0]; m++)
        if (strcmp(MODES[m].name, *argmode) == 0) {
            mode = MODES[m].mode;
            named = 1;
        }
    if (!named) return CLI_OK; /* reading says what --args takes */
    const char *key = dropped_key(o->rules, mode);
    if (key) {
        fprintf(stderr, "stepscope %s: %s reads arg '%s', which --args %s drops (--args all keeps it)\n", cmd,
                o->categories, key, *argmode);
        dc_release(o);
        return CLI_USAGE;
    }
    return CLI_OK;
}

void dc_release(dc_opts *o)
{
    sts_devview_rules_free(o->rules);
    o->rules = NULL;
}

int dc_compute(const char *cmd, const dc_opts *o, const sts_timeline *tl, const sts_steps *steps, sts_devview **out)
{
    sts_devview_options opt = STS_DEVVIEW_OPTIONS_INIT;
    opt.rules = o->rules;
    opt.steps = steps;
    sts_error err = STS_ERROR_INIT;
    if (sts_devview_compute(tl, &opt, out, &err) != STS_OK) return cli_report(cmd, &err);
    size_t n;
    const char *const *w = sts_devview_warnings(*out, &n);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "stepscope %s: warning: %s\n", cmd, w[i]);
    return CLI_OK;
}

/* ---- text ------------------------------------------------------------------------------ */

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

/* "compute 1.234, communication 0.500 (+0.100 under compute), memcpy 0.010": the
 * categories' exclusive times (they add up to busy), the ones with time. */
static void categories(const sts_devview_window *x)
{
    int first = 1;
    for (int c = 0; c < STS_DV_CATEGORIES; c++) {
        if (!x->union_ns[c]) continue;
        printf("%s%s %.3f", first ? "" : ", ", sts_devview_category_name((sts_devview_category)c),
               ms(x->exclusive_ns[c]));
        if (c == STS_DV_COMMUNICATION && x->overlap_ns) printf(" (+%.3f under compute)", ms(x->overlap_ns));
        first = 0;
    }
    if (first) printf("nothing");
}

static void idle_causes(const sts_devview_window *x)
{
    printf("idle %.3f", ms(x->idle_ns));
    if (!x->idle_ns) return;
    if (x->known & STS_DEVVIEW_KNOWN_IDLE_SPLIT)
        printf(" (host_wait %.3f, kernel_wait %.3f, other %.3f)", ms(x->host_wait_ns), ms(x->kernel_wait_ns),
               ms(x->other_idle_ns));
    else
        printf(" (cause unknown: no op has a known launch)");
}

static void launches(const sts_devview_window *x)
{
    printf("launches %" PRIu64 " linked, %" PRIu64 " not", x->matched, x->unmatched);
    if (x->known & STS_DEVVIEW_KNOWN_DELAY)
        printf("; delay median %.3f, p90 %.3f, max %.3f", ms(x->delay_median_ns), ms(x->delay_p90_ns),
               ms(x->delay_max_ns));
    if (x->known & STS_DEVVIEW_KNOWN_QUEUE)
        printf("; queue mean %.2f, max %" PRId64, x->queue_mean, x->queue_max);
    else
        printf("; queue unknown");
}

static void window_line(const sts_timeline *tl, const sts_devview *v, const sts_devview_window *x, int indent)
{
    char label[200];
    sts_devview_device_label(tl, v, x->device, label, sizeof label);
    printf("%*s%s: busy %.3f of %.3f (%.1f%%): ", indent, "", label, ms(x->busy_ns), ms(x->window_ns),
           x->window_ns ? 100.0 * (double)x->busy_ns / (double)x->window_ns : 0.0);
    categories(x);
    printf("\n%*s", indent + 4, "");
    idle_causes(x);
    printf("; ");
    launches(x);
    printf("\n");
}

void dc_print_step(const sts_timeline *tl, const sts_devview *v, size_t k)
{
    size_t n;
    const sts_devview_window *w = sts_devview_step_windows(v, k, &n);
    for (size_t d = 0; d < n; d++)
        window_line(tl, v, &w[d], 9);
}

static void print_links(const sts_devview_links *k)
{
    printf("  launches: %" PRIu64 " device ops, %" PRIu64 " linked to their launch", k->ops, k->matched);
    if (k->by_flow) printf(" (%" PRIu64 " by a flow)", k->by_flow);
    printf("; %" PRIu64 " with no correlation id, %" PRIu64 " with one no host slice holds", k->no_correlation,
           k->dangling);
    printf("; %" PRIu64 " launch calls launched nothing in the trace\n", k->orphan_calls);
}

static void print_explain(const sts_devview *v)
{
    const sts_devview_rules *r = sts_devview_rules_used(v);
    size_t nh;
    const uint64_t *hits = sts_devview_rule_hits(v, &nh);
    printf("\ndevice rules (the first that matches decides; --categories FILE replaces them; docs/device.md)\n");
    printf("  %5s %10s  %s\n", "line", "ops", "rule");
    for (size_t i = 0; i < sts_devview_rules_count(r); i++)
        printf("  %5u %10" PRIu64 "  %s\n", sts_devview_rule_line(r, i), hits[i], sts_devview_rule_text(r, i));
    printf("  %5s %10" PRIu64 "  (no rule matched: other)\n", "-", hits[nh - 1]);
}

void dc_print_summary(const sts_timeline *tl, const sts_devview *v, int explain)
{
    size_t n;
    const sts_devview_window *w = sts_devview_span_windows(v, &n);
    printf("\ndevices over the whole trace (each device's first op to its last, ms; categories exclusive: they add up "
           "to busy; docs/device.md)\n");
    if (!n) printf("  no device ops: no lane holds device work (Kineto GPU streams, XSpace /device: planes)\n");
    for (size_t d = 0; d < n; d++)
        window_line(tl, v, &w[d], 2);
    print_links(sts_devview_get_links(v));
    if (explain) print_explain(v);
}
