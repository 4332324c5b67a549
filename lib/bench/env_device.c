/* bench: the environment with the OpenCL device a measurement ran on. Apart from
 * env.c because it is the one part of the environment that needs the device layer. */
#include "stepscope/bench.h"
#include "stepscope/device.h"

void sts_bench_env_collect(sts_bench_env *env, const sts_device *dev)
{
    sts_bench_env_collect_host(env);
    if (dev) {
        env->has_device = 1;
        env->device = *sts_device_get_info(dev);
    }
}
