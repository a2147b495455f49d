// RUN: autogpu-opt %examples/matmul.c -p 'agpu-specialize{sizes="m=2048,n=2048,p=2048"},agpu-stage-accumulations{assume_no_alias=true},agpu-unroll-parallel{x=2 y=8},autogpu-vanilla' -t cuda | filecheck %s --check-prefix=EXACT
// RUN: autogpu-opt %examples/matmul.c -p 'agpu-specialize{sizes="m=3000,n=3000,p=3000"},agpu-stage-accumulations{assume_no_alias=true},agpu-unroll-parallel{x=2 y=8},autogpu-vanilla' -t cuda | filecheck %s --check-prefix=RAGGED
// RUN: autogpu-opt %examples/matmul.c -p 'agpu-stage-accumulations{assume_no_alias=true},agpu-unroll-parallel{x=2 y=8},autogpu-vanilla' -t cuda | filecheck %s --check-prefix=ANY

// The paper's mm_autogpu: staged accumulators, parallel unroll 2 on i (x) and 8 on j (y): each
// thread computes a 2 x 8 tile of A with 16 accumulators; per k it loads 2 elements of B and 8 of
// C, each shared by the replicas that need it.

// At 2048 = 4 * (256 * 2) = 256 * 8 the grid covers the matrix exactly: no guard, no loop over
// the grid.
// EXACT: "grid": ["4", "256", "1"], "block": ["256", "1", "1"]
// EXACT-LABEL: matmul_kernel(
// EXACT-NOT: if (
// EXACT-NOT: j_idx < 
// EXACT: for (int k = 0; k < 2048; k++) {
// EXACT-COUNT-2: B[
// EXACT-COUNT-8: C[
// EXACT-COUNT-16: A_acc
// EXACT-NOT: if (
// EXACT: }

// At 3000 = 375 * 8 the rows are still exact; the columns (3000 = 5 * 512 + 440) are not: the
// full tile is tested once, and the rest runs the first column of the tile (always in range:
// 440 > 256) jammed over its 8 rows.
// RAGGED: "grid": ["6", "375", "1"]
// RAGGED-LABEL: matmul_kernel(
// RAGGED-NOT: for (long long
// RAGGED: if (i_idx < 3000) {
// RAGGED: for (int k = 0; k < 3000; k++) {
// RAGGED-COUNT-2: B[
// RAGGED: } else {
// RAGGED-NOT: if (
// RAGGED: for (int k = 0; k < 3000; k++) {
// RAGGED-COUNT-1: B[
// RAGGED-NOT: B[
// RAGGED-COUNT-8: C[
// RAGGED-NOT: if (

// At run-time sizes: grid-stride over row tiles; full tiles jammed, others guarded per replica.
// ANY: "grid": ["max((m + 511) / 512, 1)", "min(max((n + 7) / 8, 1), 65535)", "1"]
// ANY-LABEL: matmul_kernel(
// ANY: for (long long j_idx = {{.*}}; j_idx < n; j_idx += {{.*}}) {
// ANY: if (in_bounds_1 && in_bounds) {
// ANY: for (int k = 0; k < p; k++) {
// ANY-COUNT-2: B[
// ANY: } else {
// ANY: if (
