/* Fused kernels for small products, where one launch costs more than the arithmetic:
 * lesson 1's tanh(x @ w) is 32K multiply-adds, a few microseconds of work, while each
 * PoCL launch costs tens of microseconds of scheduling. One launch does it all.
 *
 * mm_tanh_small    C[row, col] = tanh(A[row,:] @ B[:,col]); one work-item per element.
 *                  The host launches (N, rows-per-group) groups, so a group's items run
 *                  along contiguous columns of B (PoCL vectorizes its work-item loop).
 * mm_sqsum_small   E[row] = sum over col of (A[row,:] @ B[:,col])^2; one work-item per
 *                  row, each keeping its running energy in a register. */

__kernel void mm_tanh_small(__global const float *A, __global const float *B, __global float *C, int M, int N, int K)
{
    int col = get_global_id(0);
    int row = get_global_id(1);
    if (row >= M || col >= N) return;
    __global const float *a = A + (size_t)row * K;
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc = fma(a[k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = tanh(acc);
}

__kernel void mm_sqsum_small(__global const float *A, __global const float *B, __global float *E, int M, int N, int K)
{
    int row = get_global_id(0);
    if (row >= M) return;
    __global const float *a = A + (size_t)row * K;
    float energy = 0.0f;
    for (int col = 0; col < N; col++) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++) acc = fma(a[k], B[(size_t)k * N + col], acc);
        energy = fma(acc, acc, energy);
    }
    E[row] = energy;
}
