// RUN: autogpu-opt %examples/matmul.c -p autogpu-vanilla | filecheck %s
// RUN: autogpu-opt %examples/matmul.c -p 'autogpu-vanilla{block_size=128}' | filecheck %s --check-prefix=B128

// The paper's mm_0 from the C source: i on threads (x), j on the grid (y), k serial inside.

// CHECK: builtin.module attributes {gpu.container_module} {
// CHECK: ^{{.*}}(%[[A:[^:]*]]: memref<?xf32>, %[[B:[^:]*]]: memref<?xf32>, %[[C:[^:]*]]: memref<?xf32>, %[[M:[^:]*]]: i32, %[[N:[^:]*]]: i32, %[[P:[^:]*]]: i32):
// CHECK-NEXT: %[[I_UB:.*]] = arith.index_cast %[[M]] : i32 to index
// CHECK-NEXT: %[[BX:.*]] = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %[[BDX:.*]] = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %[[T:.*]] = arith.muli %[[BX]], %[[BDX]] overflow<nsw> : index
// CHECK-NEXT: %[[GID:.*]] = arith.addi %[[T]], %[[TX]] overflow<nsw> : index
// CHECK-NEXT: %[[J_UB:.*]] = arith.index_cast %[[N]] : i32 to index
// CHECK-NEXT: %[[BY:.*]] = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT: %[[GDY:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT: scf.for %[[JX:.*]] = %[[BY]] to %[[J_UB]] step %[[GDY]] {
// CHECK-NEXT: %[[J:.*]] = arith.index_cast %[[JX]] : index to i32
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[GID]], %[[I_UB]] : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[GID]] : index to i32
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[P]] step %{{.*}} : i32 {
// CHECK: memref.store %{{.*}}, %[[A]][%{{.*}}] : memref<?xf32>
// CHECK: sym_name = "matmul_kernel", gpu.known_block_size = array<i32: 256, 1, 1>, gpu.kernel

// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[HA:[^:]*]]: memref<?xf32> {agpu.name = "A", agpu.ctype = "float"}, %[[HB:[^:]*]]: memref<?xf32> {{.*}}, %[[HC:[^:]*]]: memref<?xf32> {{.*}}, %[[HM:[^:]*]]: i32 {{.*}}, %[[HN:[^:]*]]: i32 {{.*}}, %[[HP:[^:]*]]: i32 {{.*}}) {
// CHECK: %[[MI:.*]] = arith.index_cast %[[HM]] : i32 to index
// CHECK-NEXT: %[[BS:.*]] = arith.constant 256 : index
// CHECK-NEXT: %[[CD:.*]] = arith.ceildivsi %[[MI]], %[[BS]] : index
// CHECK-NEXT: %[[GX:.*]] = arith.maxsi %[[CD]], %[[ONE:.*]] : index
// CHECK: %[[GY:.*]] = arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: "gpu.launch_func"(%[[GX]], %[[GY]], %[[ONE]], %[[BS]], %[[ONE]], %[[ONE]], %[[HA]], %[[HB]], %[[HC]], %[[HM]], %[[HN]], %[[HP]]) <{kernel = @kernels::@matmul_kernel
// CHECK-NEXT: func.return
// CHECK-NOT: agpu.parallel_for

// B128: gpu.known_block_size = array<i32: 128, 1, 1>
// B128: %[[BS:.*]] = arith.constant 128 : index
// B128-NEXT: arith.ceildivsi %{{.*}}, %[[BS]] : index
