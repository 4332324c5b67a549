/* The CLI's shared pieces: the subcommand table and a small option parser.
 * Programs use only the public headers in include/. */
#ifndef STS_PROGRAMS_CLI_H
#define STS_PROGRAMS_CLI_H

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

/* -1 when this stepscope was built with OpenCL; else prints that the command needs it
 * and how to install it (the library's words) and returns CLI_NO_OPENCL. */
int cli_need_opencl(const char *command);

/* Finishes and frees a --json document written to stdout; prints the error and returns
 * CLI_BAD_INPUT when it could not be written whole, else CLI_OK. */
int cli_json_finish(const char *command, sts_jsonw *j);

#endif
