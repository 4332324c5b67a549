#include <stdio.h>

#include "demo.h"

/* Placeholder until this lesson's demo lands. */
int demo_report(const demo_ctx *ctx)
{
    (void)ctx;
    printf("demo report: not built yet\n");
    return 0;
}
