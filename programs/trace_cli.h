/* Shared by the trace-reading subcommands (analyze, steps, slices): opening a trace with
 * progress and warnings on stderr, lane labels and duration formatting. */
#ifndef STS_PROGRAMS_TRACE_CLI_H
#define STS_PROGRAMS_TRACE_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "stepscope.h"
#include "cli.h"
#include "stepscope/analyze.h"

/* The reading options every trace command takes: -j/--jobs N and -q/--quiet. */
typedef struct tc_read_opts {
    int jobs;            /* threads for a large uncompressed JSON trace; 0: one per core */
    int quiet;           /* no progress line */
    unsigned args_flags; /* STS_ARGS_WITH_MEMORY etc., OR'd into the --args mode (all keeps them anyway) */
} tc_read_opts;
/* clang-format off */
#define TC_READ_OPTS_INIT { 0, 0, 0 }
#define TC_READ_OPTS(o) \
    { "j|jobs", CLI_INT, &(o).jobs, "N", "threads reading a large trace (a .gz input's inflater is one of them), or with several hosts the files read at once (default: one per core; same result)" }, \
    { "q|quiet", CLI_FLAG, &(o).quiet, NULL, "no progress line on stderr" }
/* clang-format on */

/* The options every trace-reading command takes, for its option table:
 * --run NAME (a profile directory's run) and --args MODE (which event args to keep). */
#define TC_RUN_OPT(var)                                                                                    \
    {                                                                                                      \
        "run", CLI_STRING, &(var), "NAME", "in a profile directory, the run to read (default: the latest)" \
    }
#define TC_ARGS_OPT(var)                                                                                            \
    {                                                                                                               \
        "args", CLI_STRING, &(var), "MODE",                                                                         \
            "event args to keep: analysis (the default of analyze and steps: the keys they read, step_num, "        \
            "hlo_op and hlo_module), known (the default of slices: the keys stepscope uses, ids and correlations "  \
            "too), all (the default of cut: every arg; XSpace events also keep their full name as long_name), none" \
    }

/* What a trace command keeps of what it reads, into opt: the args an --args value names
 * (NULL: the command's default, known for slices, all for cut and analysis for the
 * others), and flow events counted, not kept, since only cut (which keeps them) reads
 * them. Returns CLI_OK, or prints the usage error and returns CLI_USAGE. */
int tc_keep_options(const char *cmd, const char *args, sts_open_options *opt);

/* Opens `path` (a file, "-", or a profile directory at any level; `run` picks a run,
 * NULL = the latest; `args` an --args value (see tc_keep_options); `ro` the -j and -q options,
 * NULL = defaults). While a read takes longer than a second, shows a progress line on
 * stderr (bytes read of the total, rate, time left) when stderr is a terminal and not
 * ro->quiet; says on stderr which run of a profile directory was read, prints the
 * reader's warnings (the first 10 and a count of the rest) as "stepscope CMD: warning:
 * ...". Returns CLI_OK with *out set, or prints the error and returns CLI_BAD_INPUT
 * (CLI_USAGE for a bad --args or -j). */
int tc_open(const char *cmd, const char *path, const char *run, const char *args, const tc_read_opts *ro,
            sts_timeline **out);

/* Prints s padded (or cut, ending in "...") to exactly `width` columns, counting
 * UTF-8 characters. left: pad on the right. */
void tc_cell(FILE *f, const char *s, int width, int left);

/* Display width of s in characters (UTF-8 aware), capped at `cap`. */
int tc_width(const char *s, int cap);

/* Prints events by phase, " (X 12, B 3)", and the newline ending the line. */
void tc_print_phases(const uint64_t *by_phase);

/* One row of a busy-time table (analyze's lanes, processes, hosts): the label cells,
 * each in its width, then slices, busy, span and busy%. A NULL `b` prints the header,
 * `cells` being the column titles. */
void tc_busy_row(const char *const *cells, const int *widths, size_t ncells, const sts_busy *b);

/* Widens widths[] to fit cells (each capped at caps[]). */
void tc_fit_widths(const char *const *cells, const int *caps, int *widths, size_t ncells);

#endif
