/* Elementwise kernels over n float32 values. Each work-item strides over the array by
 * the global size, so the host can launch a few large work-groups whatever n is (a
 * work-group has a fixed cost on a CPU device). */

__kernel void ew_tanh(__global const float *x, __global float *y, int n)
{
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) y[i] = tanh(x[i]);
}

__kernel void ew_square(__global const float *x, __global float *y, int n)
{
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) y[i] = x[i] * x[i];
}

__kernel void ew_scale(__global const float *x, __global float *y, float alpha, int n)
{
    for (int i = get_global_id(0); i < n; i += get_global_size(0)) y[i] = alpha * x[i];
}
