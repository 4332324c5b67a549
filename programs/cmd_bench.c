#include "cli.h"

/* Placeholder until this command lands. */
int cmd_bench(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail(CLI_USAGE, "bench: not built yet");
}
