/* Matrix products C[M,N] = A[M,K] @ B[K,N], float32, row-major, float32 accumulation.
 *
 * matmul_tiled   16x16 tiles of A and B staged in local memory; any shape (the tiles
 *                are zero-padded at the edges). The kernel for GPUs.
 * matmul_block   each work-item keeps a BLOCK_ROWS x 16 block of C in registers and
 *                streams rows of B as float8 vectors; covers only whole blocks, the
 *                host launches matmul_edge for the remaining strips. For CPUs.
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

/* BLOCK_ROWS comes from the host (lib/device/ops.c), which sizes the launch by it. */
#ifndef BLOCK_ROWS
#define BLOCK_ROWS 8
#endif

/* Work-item (x, y) computes C[y*BLOCK_ROWS .. +BLOCK_ROWS, x*16 .. +16] in registers.
 * The k loop is unrolled by 4: each row of A gives a float4, each of the four rows of
 * B two float8 vectors, and every A value is broadcast against them. The host launches
 * work-groups of (1, up to 64): the group's items share one 16-column panel of B, which
 * stays in cache while they walk down the rows of A. */
__kernel void matmul_block(__global const float *A, __global const float *B, __global float *C, int M, int N, int K)
{
    int j = get_global_id(0) * 16;
    int i = get_global_id(1) * BLOCK_ROWS;
    float8 c0[BLOCK_ROWS], c1[BLOCK_ROWS];
    for (int r = 0; r < BLOCK_ROWS; r++) {
        c0[r] = (float8)(0.0f);
        c1[r] = (float8)(0.0f);
    }
    __global const float *a = A + (size_t)i * K;
    __global const float *b = B + j;
    int k = 0;
    for (; k + 4 <= K; k += 4) {
        float8 b00 = vload8(0, b), b01 = vload8(1, b);
        b += N;
        float8 b10 = vload8(0, b), b11 = vload8(1, b);
        b += N;
        float8 b20 = vload8(0, b), b21 = vload8(1, b);
        b += N;
        float8 b30 = vload8(0, b), b31 = vload8(1, b);
        b += N;
        for (int r = 0; r < BLOCK_ROWS; r++) {
            float4 av = vload4(0, a + (size_t)r * K + k);
            c0[r] = fma((float8)(av.x), b00, c0[r]);
            c1[r] = fma((float8)(av.x), b01, c1[r]);
            c0[r] = fma((float8)(av.y), b10, c0[r]);
            c1[r] = fma((float8)(av.y), b11, c1[r]);
            c0[r] = fma((float8)(av.z), b20, c0[r]);
            c1[r] = fma((float8)(av.z), b21, c1[r]);
            c0[r] = fma((float8)(av.w), b30, c0[r]);
            c1[r] = fma((float8)(av.w), b31, c1[r]);
        }
    }
    for (; k < K; k++) {
        float8 b0 = vload8(0, b), b1 = vload8(1, b);
        b += N;
        for (int r = 0; r < BLOCK_ROWS; r++) {
            float8 av = (float8)(a[(size_t)r * K + k]);
            c0[r] = fma(av, b0, c0[r]);
            c1[r] = fma(av, b1, c1[r]);
        }
    }
    for (int r = 0; r < BLOCK_ROWS; r++) {
        vstore8(c0[r], 0, C + (size_t)(i + r) * N + j);
        vstore8(c1[r], 1, C + (size_t)(i + r) * N + j);
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
