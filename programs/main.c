/* stepscope: the command-line entry point. Each subcommand is programs/cmd_<name>.c. */
#include <stdio.h>
#include <string.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif

#include "cli.h"

typedef struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *summary;
} command;

static const command commands[] = {
#define CMD(name, fn, summary) { #name, fn, summary },
#include "commands.def"
#undef CMD
};

static void usage(FILE *f)
{
    fprintf(f, "usage: stepscope COMMAND [ARGS...]\n\n"
               "Diagnose the performance of asynchronous compute.\n\ncommands:\n");
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "\n'stepscope COMMAND --help' describes each command.\n");
}

/* glibc serves a block from its heap once a block that large was freed (the mmap
 * threshold rises with each free, up to 32 MB); freed there, the reader's and the
 * finisher's scratch of tens of MB stays in the process while the analysis grows past
 * it. Blocks from 4 MB go to their own mappings and back to the system when freed:
 * about 20 MB less peak memory on a 1 GB trace (analyze, -j 1 and -j 2), at the same
 * speed. Chunks' vectors on reader threads stay below it and are reused from the heap. */
static void memory_policy(void)
{
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
#endif
}

int main(int argc, char **argv)
{
    memory_policy();
    if (argc < 2) {
        usage(stderr);
        return CLI_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return cli_stdout_finish("--help", CLI_OK);
    }
    if (strcmp(argv[1], "--version") == 0) return cli_stdout_finish("--version", cmd_version(1, argv + 1));
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        if (strcmp(argv[1], commands[i].name) == 0)
            return cli_stdout_finish(commands[i].name, commands[i].fn(argc - 1, argv + 1));
    }
    cli_say(stderr, "stepscope: unknown command '%s'\n", argv[1]);
    const char *names[sizeof commands / sizeof commands[0]];
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
        names[i] = commands[i].name;
    size_t pick[3];
    size_t k = sts_suggest(argv[1], names, sizeof names / sizeof names[0], pick, 3);
    if (k) {
        cli_say(stderr, "did you mean ");
        for (size_t i = 0; i < k; i++)
            cli_say(stderr, "%s'stepscope %s'", i ? ", " : "", names[pick[i]]);
        cli_say(stderr, "?\n\n");
    }
    usage(stderr);
    return CLI_USAGE;
}
