#include "cli.h"

/* Placeholder until this command lands. */
int cmd_report(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail(CLI_USAGE, "report: not built yet");
}
