/* Elementwise kernels over n float32 values. The launch rounds the global size up to
 * whole work-groups, so each work-item checks its index. */

__kernel void ew_tanh(__global const float *x, __global float *y, int n)
{
    int i = get_global_id(0);
    if (i < n) y[i] = tanh(x[i]);
}

__kernel void ew_square(__global const float *x, __global float *y, int n)
{
    int i = get_global_id(0);
    if (i < n) y[i] = x[i] * x[i];
}

__kernel void ew_scale(__global const float *x, __global float *y, float alpha, int n)
{
    int i = get_global_id(0);
    if (i < n) y[i] = alpha * x[i];
}
