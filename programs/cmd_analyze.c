#include "cli.h"

/* Placeholder until the analyzer lands. */
int cmd_analyze(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail(CLI_USAGE, "analyze: not built yet");
}
