#include "cli.h"

/* Placeholder until this command lands. */
int cmd_ledger(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return cli_fail(CLI_USAGE, "ledger: not built yet");
}
