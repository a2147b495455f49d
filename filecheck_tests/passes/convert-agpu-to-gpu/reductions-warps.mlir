// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=96}' | filecheck %s --check-prefix=WARPS
// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=64 reduce_blocks=4}' | filecheck %s --check-prefix=STRIDE
// RUN: autogpu-opt %s -p 'convert-agpu-to-gpu{block_size=64 reduce_blocks=4 deterministic=true}' | filecheck %s --check-prefix=DET

// A block of whole warps combines as CUB's BlockReduce: shuffles down by 16 ... 1 within each
// warp, lane 0 stores the warp's value (one shared element per warp), a barrier, then shuffles
// over the warps' values (lanes past the 3 warps hold the identity, -0.0 for a float sum).

func.func @fsum(%x: memref<?xf32>, %out: memref<?xf32>, %n: i32) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %s = memref.alloca() : memref<f32>
  %zero = arith.constant 0.0 : f32
  memref.store %zero, %s[] : memref<f32>
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 reduction(add %s : memref<f32>) {
    %ii = arith.index_cast %i : i32 to index
    %v = memref.load %x[%ii] : memref<?xf32>
    %a = memref.load %s[] : memref<f32>
    %b = arith.addf %a, %v : f32
    memref.store %b, %s[] : memref<f32>
  }
  %r = memref.load %s[] : memref<f32>
  %z = arith.constant 0 : index
  memref.store %r, %out[%z] : memref<?xf32>
  func.return
}

// The reduction kernel follows kernel0 (s = 0), whose attributes end it.
// WARPS-LABEL: sym_name = "fsum_kernel0"
// WARPS: %[[S:.*]] = memref.get_global @fsum_s : memref<f32>
// WARPS: %[[PRIV:.*]] = memref.alloca() : memref<f32>
// WARPS: %[[SHARED:.*]] = memref.alloca() : memref<3xf32, 3 : i32>
// WARPS: %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// WARPS: scf.if
// WARPS: }
// WARPS-NEXT: %[[V0:.*]] = memref.load %[[PRIV]][] : memref<f32>
// WARPS-NEXT: %[[D16:.*]] = "agpu.shuffle_down"(%[[V0]]) <{offset = 16 : i32}> : (f32) -> f32
// WARPS-NEXT: %[[V1:.*]] = arith.addf %[[V0]], %[[D16]] : f32
// WARPS-NEXT: %[[D8:.*]] = "agpu.shuffle_down"(%[[V1]]) <{offset = 8 : i32}> : (f32) -> f32
// WARPS: "agpu.shuffle_down"(%{{.*}}) <{offset = 4 : i32}>
// WARPS: "agpu.shuffle_down"(%{{.*}}) <{offset = 2 : i32}>
// WARPS: %[[D1:.*]] = "agpu.shuffle_down"(%[[V4:.*]]) <{offset = 1 : i32}> : (f32) -> f32
// WARPS-NEXT: %[[WARP_TOTAL:.*]] = arith.addf %[[V4]], %[[D1]] : f32
// WARPS: %[[LANE:.*]] = arith.remsi %[[TX]], %{{.*}} : index
// WARPS: scf.if %{{.*}} {
// WARPS: %[[WARP:.*]] = arith.divsi %[[TX]], %{{.*}} : index
// WARPS-NEXT: memref.store %[[WARP_TOTAL]], %[[SHARED]][%[[WARP]]] : memref<3xf32, 3 : i32>
// WARPS-NEXT: }
// WARPS-NEXT: "gpu.barrier"() : () -> ()
// WARPS-NEXT: %[[THREE:.*]] = arith.constant 3 : index
// WARPS-NEXT: %[[HAS:.*]] = arith.cmpi slt, %[[LANE]], %[[THREE]] : index
// WARPS: %[[STORED:.*]] = memref.load %[[SHARED]][%{{.*}}] : memref<3xf32, 3 : i32>
// WARPS-NEXT: %[[ID:.*]] = arith.constant -0.000000e+00 : f32
// WARPS-NEXT: %[[W0:.*]] = arith.select %[[HAS]], %[[STORED]], %[[ID]] : f32
// WARPS-NEXT: %[[E2:.*]] = "agpu.shuffle_down"(%[[W0]]) <{offset = 2 : i32}> : (f32) -> f32
// WARPS-NEXT: %[[W1:.*]] = arith.addf %[[W0]], %[[E2]] : f32
// WARPS-NEXT: %[[E1:.*]] = "agpu.shuffle_down"(%[[W1]]) <{offset = 1 : i32}> : (f32) -> f32
// WARPS-NEXT: %[[TOTAL:.*]] = arith.addf %[[W1]], %[[E1]] : f32
// WARPS: scf.if %{{.*}} {
// WARPS-NEXT: "memref.atomic_rmw"(%[[TOTAL]], %[[S]]) <{kind = 0 : i64}> : (f32, memref<f32>) -> f32
// WARPS-NEXT: }
// WARPS-NEXT: "gpu.return"

// reduce_blocks: the x loop is a grid-stride loop, each thread accumulating every tile it visits
// before the block combines once; the host launches at most 4 blocks.
// STRIDE-LABEL: sym_name = "fsum_kernel0"
// STRIDE: %[[PRIV:.*]] = memref.alloca() : memref<f32>
// STRIDE: %[[UB:.*]] = arith.index_cast %n : i32 to index
// STRIDE: %[[GID:.*]] = arith.addi %{{.*}}, %{{.*}} overflow<nsw> : index
// STRIDE: %[[GDX:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim x>}> : () -> index
// STRIDE-NEXT: %[[STEP:.*]] = arith.muli %[[GDX]], %{{.*}} overflow<nsw> : index
// STRIDE-NEXT: scf.for %[[I:.*]] = %[[GID]] to %[[UB]] step %[[STEP]] {
// STRIDE: memref.store %{{.*}}, %[[PRIV]][] : memref<f32>
// STRIDE-NEXT: }
// STRIDE-NEXT: memref.load %[[PRIV]][] : memref<f32>
// STRIDE-NEXT: "agpu.shuffle_down"
// STRIDE-LABEL: func.func @fsum(
// STRIDE: %[[COUNT:.*]] = arith.ceildivsi %{{.*}}, %{{.*}} : index
// STRIDE-NEXT: %[[ONE_OR_MORE:.*]] = arith.maxsi %[[COUNT]], %{{.*}} : index
// STRIDE-NEXT: %[[LIMIT:.*]] = arith.constant 4 : index
// STRIDE-NEXT: %[[GRID:.*]] = arith.minsi %[[ONE_OR_MORE]], %[[LIMIT]] : index
// STRIDE-NEXT: "gpu.launch_func"(%[[GRID]],

// deterministic: each block's total goes to partials[block] (one per block of the grid, at most
// 4), a fence, the count of finished blocks; the last block combines the partials in a fixed
// order (thread t: t, t + 64, ...; then the warp combine) and folds them into s itself.
// DET-LABEL: sym_name = "fsum_kernel0"
// DET-NEXT: "memref.global"() <{sym_name = "fsum_kernel1_s_partials", type = memref<4xf32>, initial_value, sym_visibility = "private"}>
// DET-NEXT: "memref.global"() <{sym_name = "fsum_kernel1_finished", type = memref<i32>, initial_value, sym_visibility = "private"}>
// DET: %[[S:.*]] = memref.get_global @fsum_s : memref<f32>
// DET: %[[PRIV:.*]] = memref.alloca() : memref<f32>
// DET: %[[BX:.*]] = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
// DET: %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// DET: scf.for
// DET: %[[PARTIALS:.*]] = memref.get_global @fsum_kernel1_s_partials : memref<4xf32>
// DET-NEXT: %[[FINISHED:.*]] = memref.get_global @fsum_kernel1_finished : memref<i32>
// DET-NEXT: %[[FLAG:.*]] = memref.alloca() : memref<1xi32, 3 : i32>
// DET: %[[BLOCK:.*]] = arith.addi %{{.*}}, %[[BX]] overflow<nsw> : index
// DET-NEXT: %[[BLOCKS:.*]] = arith.muli %{{.*}}, %{{.*}} overflow<nsw> : index
// DET: "gpu.barrier"
// DET: "agpu.shuffle_down"(%{{.*}}) <{offset = 1 : i32}>
// DET-NEXT: %[[TOTAL:.*]] = arith.addf
// DET-NEXT: %{{.*}} = arith.constant 0 : index
// DET-NEXT: %{{.*}} = arith.cmpi eq, %[[TX]], %{{.*}} : index
// DET-NEXT: scf.if %{{.*}} {
// DET-NEXT: memref.store %[[TOTAL]], %[[PARTIALS]][%[[BLOCK]]] : memref<4xf32>
// DET-NEXT: "agpu.thread_fence"() : () -> ()
// DET-NEXT: %[[ONE:.*]] = arith.constant 1 : i32
// DET-NEXT: %[[BEFORE:.*]] = "memref.atomic_rmw"(%[[ONE]], %[[FINISHED]]) <{kind = 1 : i64}> : (i32, memref<i32>) -> i32
// DET: %[[LAST:.*]] = arith.cmpi eq, %{{.*}}, %{{.*}} : index
// DET-NEXT: %[[LAST32:.*]] = arith.extui %[[LAST]] : i1 to i32
// DET: memref.store %[[LAST32]], %[[FLAG]][%{{.*}}] : memref<1xi32, 3 : i32>
// DET-NEXT: }
// DET-NEXT: "gpu.barrier"() : () -> ()
// DET: memref.load %[[FLAG]]
// DET: scf.if %{{.*}} {
// DET: memref.store %{{.*}}, %[[PRIV]][] : memref<f32>
// DET: scf.for %[[K:.*]] = %[[TX]] to %[[BLOCKS]] step %{{.*}} {
// DET-NEXT: %[[MINE:.*]] = memref.load %[[PRIV]][] : memref<f32>
// DET-NEXT: %[[THEIRS:.*]] = memref.load %[[PARTIALS]][%[[K]]] : memref<4xf32>
// DET-NEXT: %[[SUM:.*]] = arith.addf %[[MINE]], %[[THEIRS]] : f32
// DET-NEXT: memref.store %[[SUM]], %[[PRIV]][] : memref<f32>
// DET-NEXT: }
// DET: "agpu.shuffle_down"
// DET: "gpu.barrier"
// DET: "agpu.shuffle_down"(%{{.*}}) <{offset = 1 : i32}>
// DET: scf.if %{{.*}} {
// DET-NEXT: %[[OLD:.*]] = memref.load %[[S]][] : memref<f32>
// DET-NEXT: %[[NEW:.*]] = arith.addf %[[OLD]], %{{.*}} : f32
// DET-NEXT: memref.store %[[NEW]], %[[S]][] : memref<f32>
// DET-NEXT: %[[ZERO:.*]] = arith.constant 0 : i32
// DET-NEXT: memref.store %[[ZERO]], %[[FINISHED]][] : memref<i32>
// DET-NEXT: }
// DET-NEXT: }
// DET-NOT: memref.atomic_rmw
// DET: "gpu.return"
