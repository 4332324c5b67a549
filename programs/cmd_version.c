#include "cli.h"

int cmd_version(int argc, char **argv)
{
    static const cli_opt opts[] = { { 0 } };
    static const cli_spec spec = { "version", "", "Print the stepscope version.", opts, 0, 0 };
    const char *pos[1];
    int npos;
    int rc = cli_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0) return rc;
    printf("stepscope %s\n", sts_version());
    return CLI_OK;
}
