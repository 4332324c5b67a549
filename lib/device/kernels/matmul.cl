/* Matrix products C[M,N] = A[M,K] @ B[K,N], float32, row-major, float32 accumulation.
 *
 * matmul_tiled   16x16 tiles of A and B staged in local memory; any shape (the tiles
 *                are zero-padded at the edges). The kernel for GPUs.
 * matmul_block   each work-item keeps an RM x 16 block of C in registers and streams
 *                rows of B as float8 vectors; covers only whole blocks, the host
 *                launches matmul_edge for the remaining strips. The kernel for CPUs.
 * matmul_edge    one work-item per element of C over a strip starting at (row0, col0);
 *                also the plain reference kernel when row0 = col0 = 0. */

#define TS 16

__kernel __attribute__((reqd_work_group_size(TS, TS, 1)))
void matmul_tiled(__global const float *A, __global const float *B, __global float *C, int M, int N, int K)
{
    __local float As[TS][TS];
    __local float Bs[TS][TS + 1];
    int tx = get_local_id(0), ty = get_local_id(1);
    int col = get_group_id(0) * TS + tx;
    int row = get_group_id(1) * TS + ty;
    float acc = 0.0f;
    for (int k0 = 0; k0 < K; k0 += TS) {
        int ka = k0 + tx, kb = k0 + ty;
        As[ty][tx] = (row < M && ka < K) ? A[(size_t)row * K + ka] : 0.0f;
        Bs[ty][tx] = (kb < K && col < N) ? B[(size_t)kb * N + col] : 0.0f;
        barrier(CLK_LOCAL_MEM_FENCE);
        for (int k = 0; k < TS; k++) acc = fma(As[ty][k], Bs[k][tx], acc);
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (row < M && col < N) C[(size_t)row * N + col] = acc;
}

#ifndef RM
#define RM 4
#endif

__kernel void matmul_block(__global const float *A, __global const float *B, __global float *C, int M, int N, int K)
{
    int j = get_global_id(0) * 16;
    int i = get_global_id(1) * RM;
    float8 c0[RM], c1[RM];
    for (int r = 0; r < RM; r++) {
        c0[r] = (float8)(0.0f);
        c1[r] = (float8)(0.0f);
    }
    for (int k = 0; k < K; k++) {
        float8 b0 = vload8(0, B + (size_t)k * N + j);
        float8 b1 = vload8(0, B + (size_t)k * N + j + 8);
        for (int r = 0; r < RM; r++) {
            float a = A[(size_t)(i + r) * K + k];
            c0[r] = fma((float8)(a), b0, c0[r]);
            c1[r] = fma((float8)(a), b1, c1[r]);
        }
    }
    for (int r = 0; r < RM; r++) {
        vstore8(c0[r], 0, C + (size_t)(i + r) * N + j);
        vstore8(c1[r], 0, C + (size_t)(i + r) * N + j + 8);
    }
}

__kernel void matmul_edge(__global const float *A, __global const float *B, __global float *C, int M, int N, int K,
                          int row0, int col0)
{
    int col = col0 + get_global_id(0);
    int row = row0 + get_global_id(1);
    if (row >= M || col >= N) return;
    float acc = 0.0f;
    for (int k = 0; k < K; k++) acc = fma(A[(size_t)row * K + k], B[(size_t)k * N + col], acc);
    C[(size_t)row * N + col] = acc;
}
