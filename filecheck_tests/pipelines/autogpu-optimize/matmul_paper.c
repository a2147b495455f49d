// The AutoGPU paper's MATMUL progression (its Table 4.4) out of the pipelines, on
// examples/matmul.c: mm_0 -> mm_1 (staged) -> mm_2 (staged and cached) -> mm_autogpu (block 256,
// parallel unroll 2 and 8, k unrolled 16), and mm_cond_autogpu, the same at 3000 with guards.

// RUN: autogpu-opt %examples/matmul.c -p autogpu-vanilla -t cuda | filecheck %s --check-prefix=MM0
// MM0-LABEL: __global__ void __launch_bounds__(256) matmul_kernel(
// MM0: gid_x = (long long)blockIdx.x * blockDim.x + threadIdx.x;
// MM0: for (long long j_idx = blockIdx.y; j_idx < n; j_idx += gridDim.y)
// MM0: if (gid_x < m)
// MM0: for (int k = 0; k < p; k++)
// MM0: A[[[V:v[0-9]+]]] = A[[[V]]] + B[i + k * m] * C[k + j * p];

// RUN: autogpu-opt %examples/matmul.c -p 'autogpu-optimize{cache=false}' -t cuda | filecheck %s --check-prefix=MM1
// MM1-LABEL: matmul_kernel(
// MM1-NOT: __shared__
// MM1: A_acc = A[[[IDX:.*]]];
// MM1: for (int k = 0; k < p; k++)
// MM1-NEXT: A_acc = A_acc + B[{{.*}}] * C[{{.*}}];
// MM1: A[[[IDX]]] = A_acc;

// RUN: autogpu-opt %examples/matmul.c -p autogpu-optimize -t cuda | filecheck %s --check-prefix=MM2
// MM2-LABEL: matmul_kernel(
// MM2: __shared__ float C_sh[256];
// MM2: A_acc = A[
// MM2: C_sh[{{.*}}] = C[
// MM2: __syncthreads();
// MM2: A_acc = A_acc + B[{{.*}}] * C_sh[
// MM2: __syncthreads();
// MM2: = A_acc;

// RUN: autogpu-opt %examples/matmul.c -p 'autogpu-optimize{sizes="m=2048,n=2048,p=2048" unroll_x=2 unroll_y=8 unroll_serial=16 unroll_loops=k}' -t cuda | filecheck %s --check-prefix=MMA
// MMA: "grid": ["4", "256", "1"], "block": ["256", "1", "1"]
// MMA-LABEL: matmul_kernel(
// MMA: __shared__ float C_sh[
// MMA: gid_x = blockIdx.x * bdx * 2 + tx;
// MMA: const int i_1 = (int)(gid_x + bdx);
// MMA: float A_acc_15;
// MMA-NOT: full_tile
// MMA: for (long long k_tile = 0; k_tile < 2048; k_tile += 256)
// MMA: __syncthreads();
// MMA: for (int k = {{.*}}; k < {{.*}}; k += 16)
// MMA: = A_acc_15 + 
// MMA: k_15

// RUN: autogpu-opt %examples/matmul.c -p 'autogpu-optimize{sizes="m=3000,n=3000,p=3000" unroll_x=2 unroll_y=8 unroll_serial=16 unroll_loops=k}' -t cuda | filecheck %s --check-prefix=MMC
// MMC: "grid": ["6", "375", "1"]
// MMC-LABEL: matmul_kernel(
// MMC: __shared__ float C_sh[
// MMC: if (full_tile)
// MMC: __syncthreads();
// MMC: if (!full_tile)
