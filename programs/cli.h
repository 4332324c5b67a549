/* The CLI's shared pieces: the subcommand table and a small option parser.
 * Programs use only the public headers in include/. */
#ifndef STS_PROGRAMS_CLI_H
#define STS_PROGRAMS_CLI_H

#include <stdarg.h>
#include <stdio.h>

#include "stepscope.h"

/* Exit codes, the same for every subcommand. */
enum { CLI_OK = 0, CLI_BAD_INPUT = 1, CLI_USAGE = 2, CLI_NO_OPENCL = 5 };

#define CMD(name, fn, summary) int fn(int argc, char **argv);
#include "commands.def"
#undef CMD

typedef enum cli_opt_kind { CLI_FLAG, CLI_STRING, CLI_INT, CLI_DOUBLE, CLI_MULTI } cli_opt_kind;

/* A repeatable option's values, in order (CLI_MULTI). */
#define CLI_LIST_MAX 64
typedef struct cli_list {
    const char *v[CLI_LIST_MAX];
    int n;
} cli_list;

/* One option: --name, or --name VALUE / --name=VALUE. A name written "x|name" also
 * answers to -x (-x VALUE, -xVALUE). `target` is int* for flags and integers,
 * const char ** for strings, double * for doubles, cli_list * for CLI_MULTI (each
 * occurrence appends). */
typedef struct cli_opt {
    const char *name;
    cli_opt_kind kind;
    void *target;
    const char *metavar;
    const char *help;
} cli_opt;

typedef struct cli_spec {
    const char *command;  /* "analyze" */
    const char *synopsis; /* "TRACE [--json]" */
    const char *about;    /* paragraph shown by --help */
    const cli_opt *opts;  /* terminated by a zeroed entry */
    int min_pos, max_pos; /* positional argument counts */
} cli_spec;

/* Parses argv (argv[0] is the subcommand). Positionals are collected into pos.
 * Returns -1 to continue, or an exit code: CLI_OK after printing --help, CLI_USAGE
 * after printing a usage error. */
int cli_parse(const cli_spec *spec, int argc, char **argv, const char **pos, int *npos);

/* Prints the subcommand's help to `f`. */
void cli_usage(const cli_spec *spec, FILE *f);

/* Prints "stepscope: MESSAGE" to stderr; returns `code`. */
int cli_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prints an sts_error to stderr as "stepscope CMD: message"; returns CLI_BAD_INPUT. */
int cli_report(const char *command, const sts_error *err);

/* Prints "stepscope CMD: error: cannot write to standard output: REASON" (strerror(e));
 * returns CLI_BAD_INPUT. */
int cli_stdout_error(const char *command, int e);

/* The same when writing to standard output failed (the reason from
 * sts_stream_failure); returns CLI_BAD_INPUT then, else CLI_OK. */
int cli_stdout_check(const char *command);

/* Writes s to f with its controls (ESC, BEL, DEL, C1) as '?' (sts_fmt_put_text): for
 * every name from an input that reaches a terminal. */
void cli_put_text(FILE *f, const char *s);

/* fprintf(f, fmt, ...) with the text made safe as cli_put_text does, newlines kept: for
 * every message to stderr that may hold a name or a path from an input. */
void cli_say(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_vsay(FILE *f, const char *fmt, va_list ap);

/* "stepscope CMD: warning: " then the message, made safe by cli_put_text, and a newline. */
void cli_warn_text(const char *command, const char *message);

/* The exit status of a command that returned `rc`: a command that succeeded but
 * whose output did not all reach standard output (a full disk, a closed pipe's
 * EPIPE) fails, so `stepscope X > file` never exits 0 having lost text. A command
 * that already failed keeps its status and its own message. */
int cli_stdout_finish(const char *command, int rc);

/* -1 when this stepscope was built with OpenCL; else prints that the command needs it
 * and how to install it (the library's words) and returns CLI_NO_OPENCL. */
int cli_need_opencl(const char *command);

/* Finishes and frees a --json document written to stdout; prints the error and returns
 * CLI_BAD_INPUT when it could not be written whole, else CLI_OK. */
int cli_json_finish(const char *command, sts_jsonw *j);

#endif
