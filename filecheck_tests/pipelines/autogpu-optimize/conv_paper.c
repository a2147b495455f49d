// The AutoGPU paper's CONV progression (its Tables 4.12 and 4.16) out of the pipelines, on
// examples/conv2d.c: conv5_0 (vanilla) -> conv5_1 (staged, window cached with its halo) ->
// conv5_autogpu (32x1 block, j unrolled 8, the template loops fully unrolled), and the 11x11 case.

// RUN: autogpu-opt %examples/conv2d.c -p autogpu-vanilla -t cuda | filecheck %s --check-prefix=C0
// C0-LABEL: conv2d_kernel(
// C0-NOT: __shared__
// C0: for (int v = 0; v < t; v++)
// C0: for (int u = 0; u < t; u++)
// C0: in[

// RUN: autogpu-opt %examples/conv2d.c -p 'autogpu-optimize{sizes="n=8192,m=8192,t=5"}' -t cuda | filecheck %s --check-prefix=C1
// C1-LABEL: conv2d_kernel(
// C1-DAG: __shared__ float tmpl_sh[25];
// C1-DAG: __shared__ float in_sh[
// C1: __syncthreads();
// C1: in_sh[
// C1: tmpl_sh[

// RUN: autogpu-opt %examples/conv2d.c -p 'autogpu-optimize{sizes="n=8192,m=8192,t=5" block_size=32 unroll_y=8}' -t cuda | filecheck %s --check-prefix=C5A
// C5A: "grid": ["256", "1024", "1"], "block": ["32", "1", "1"]
// C5A-LABEL: __launch_bounds__(32) conv2d_kernel(
// C5A: __shared__ float in_sh[
// C5A: float sum_7;
// C5A-NOT: for (int u
// C5A: __syncthreads();
// C5A: = sum_7 + in_sh[

// RUN: autogpu-opt %examples/conv2d.c -p 'autogpu-optimize{sizes="n=8192,m=8192,t=11" block_size=32 unroll_y=8 full_unroll_limit=11}' -t cuda | filecheck %s --check-prefix=C11A
// C11A-LABEL: conv2d_kernel(
// C11A: __shared__ float tmpl_sh[121];
// C11A: float sum_7;
// C11A-NOT: for (int u
// C11A: = sum_7 + in_sh[
