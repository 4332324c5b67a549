/* Reductions over float32 arrays. */

/* y[r] = sum of row r of x [rows, cols]: one work-item per row, striding by the global
 * size over the rows when there are more rows than work-items. */
__kernel void row_sum(__global const float *x, __global float *y, int rows, int cols)
{
    for (int r = get_global_id(0); r < rows; r += get_global_size(0)) {
        __global const float *row = x + (size_t)r * cols;
        float acc = 0.0f;
        for (int c = 0; c < cols; c++) acc += row[c];
        y[r] = acc;
    }
}

/* y[0] = scale * sum of x[0..n), by one work-group: each work-item sums a strided
 * share, then the group folds the partial sums in local memory. The group size is a
 * power of two. `scale` is 1 for a sum and 1/n for a mean. */
__kernel void sum_all(__global const float *x, __global float *y, int n, float scale, __local float *part)
{
    int lid = get_local_id(0);
    int size = get_local_size(0);
    float acc = 0.0f;
    for (int i = lid; i < n; i += size) acc += x[i];
    part[lid] = acc;
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int stride = size / 2; stride > 0; stride /= 2) {
        if (lid < stride) part[lid] += part[lid + stride];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0) y[0] = part[0] * scale;
}
