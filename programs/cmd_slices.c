#include "cli.h"

/* Placeholder until the analyzer lands. */
int cmd_slices(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail(CLI_USAGE, "slices: not built yet");
}
