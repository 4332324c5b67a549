/* Fused kernels for small products, where one launch costs more than the arithmetic:
 * lesson 1's tanh(x @ w) is 32K multiply-adds, a few microseconds of work, while each
 * PoCL launch costs tens of microseconds of scheduling. One launch does it all.
 *
 * Both kernels give each work-item one row of A and walk the columns of B eight at a
 * time as float8 vectors (then one at a time for the last N % 8), so a CPU device runs
 * vector multiply-adds and a vector tanh without relying on its work-item vectorizer.
 *
 * mm_tanh_small    C[row, :] = tanh(A[row, :] @ B)
 * mm_sqsum_small   E[row] = sum over col of (A[row, :] @ B[:, col])^2 */

__kernel void mm_tanh_small(__global const float *A, __global const float *B, __global float *C, int M, int N, int K)
{
    int row = get_global_id(0);
    if (row >= M) return;
    __global const float *a = A + (size_t)row * K;
    __global float *c = C + (size_t)row * N;
    int col = 0;
    for (; col + 8 <= N; col += 8) {
        float8 acc = (float8)(0.0f);
        for (int k = 0; k < K; k++) acc = fma((float8)(a[k]), vload8(0, B + (size_t)k * N + col), acc);
        vstore8(tanh(acc), 0, c + col);
    }
    for (; col < N; col++) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++) acc = fma(a[k], B[(size_t)k * N + col], acc);
        c[col] = tanh(acc);
    }
}

__kernel void mm_sqsum_small(__global const float *A, __global const float *B, __global float *E, int M, int N, int K)
{
    int row = get_global_id(0);
    if (row >= M) return;
    __global const float *a = A + (size_t)row * K;
    float8 energy8 = (float8)(0.0f);
    int col = 0;
    for (; col + 8 <= N; col += 8) {
        float8 acc = (float8)(0.0f);
        for (int k = 0; k < K; k++) acc = fma((float8)(a[k]), vload8(0, B + (size_t)k * N + col), acc);
        energy8 = fma(acc, acc, energy8);
    }
    float energy = ((energy8.s0 + energy8.s1) + (energy8.s2 + energy8.s3)) +
                   ((energy8.s4 + energy8.s5) + (energy8.s6 + energy8.s7));
    for (; col < N; col++) {
        float acc = 0.0f;
        for (int k = 0; k < K; k++) acc = fma(a[k], B[(size_t)k * N + col], acc);
        energy = fma(acc, acc, energy);
    }
    E[row] = energy;
}
