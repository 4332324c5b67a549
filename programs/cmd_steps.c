#include "cli.h"

/* Placeholder until the analyzer lands. */
int cmd_steps(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail(CLI_USAGE, "steps: not built yet");
}
