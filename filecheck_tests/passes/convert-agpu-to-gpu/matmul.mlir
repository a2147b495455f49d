// RUN: autogpu-opt %s -p convert-agpu-to-gpu | filecheck %s

// The paper's mm_0: collapse(2) over (j, i) with the serial k loop inside. i (innermost) goes to
// threads along x, j to a grid-stride loop over blockIdx.y; the k loop stays in the thread.
// (The C level as the frontend produces it for examples/matmul.c.)

func.func @matmul(%A: memref<?xf32> {agpu.name = "A", agpu.ctype = "float"},
                  %B: memref<?xf32> {agpu.name = "B", agpu.ctype = "float", agpu.const},
                  %C: memref<?xf32> {agpu.name = "C", agpu.ctype = "float", agpu.const},
                  %m: i32 {agpu.name = "m", agpu.ctype = "int"},
                  %n: i32 {agpu.name = "n", agpu.ctype = "int"},
                  %p: i32 {agpu.name = "p", agpu.ctype = "int"}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %j = %c0 to %n step %c1 : i32 {
    %c0_1 = arith.constant 0 : i32
    %c1_2 = arith.constant 1 : i32
    agpu.parallel_for %i = %c0_1 to %m step %c1_2 : i32 {
      %c0_2 = arith.constant 0 : i32
      %c1_4 = arith.constant 1 : i32
      scf.for %k = %c0_2 to %p step %c1_4 : i32 {
        %0 = arith.muli %j, %m : i32
        %1 = arith.addi %i, %0 : i32
        %2 = arith.index_cast %1 : i32 to index
        %3 = memref.load %A[%2] : memref<?xf32>
        %4 = arith.muli %k, %m : i32
        %5 = arith.addi %i, %4 : i32
        %6 = arith.index_cast %5 : i32 to index
        %7 = memref.load %B[%6] : memref<?xf32>
        %8 = arith.muli %j, %p : i32
        %9 = arith.addi %k, %8 : i32
        %10 = arith.index_cast %9 : i32 to index
        %11 = memref.load %C[%10] : memref<?xf32>
        %12 = arith.mulf %7, %11 : f32
        %13 = arith.addf %3, %12 : f32
        memref.store %13, %A[%2] : memref<?xf32>
      }
    }
  }
  func.return
}

// CHECK: builtin.module attributes {gpu.container_module} {
// CHECK-NEXT: "gpu.module"() <{sym_name = "kernels"}> ({

// The kernel takes every parameter of the C function, in order.
// CHECK-NEXT: "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf32>, memref<?xf32>, i32, i32, i32) -> (), kernel}> ({
// CHECK-NEXT: ^{{.*}}(%[[A:[^:]*]]: memref<?xf32>, %[[B:[^:]*]]: memref<?xf32>, %[[C:[^:]*]]: memref<?xf32>, %[[M:[^:]*]]: i32, %[[N:[^:]*]]: i32, %[[P:[^:]*]]: i32):

// x: i = blockIdx.x * blockDim.x + threadIdx.x, in index arithmetic.
// CHECK-NEXT: %[[I_UB:.*]] = arith.index_cast %[[M]] : i32 to index
// CHECK-NEXT: %[[BX:.*]] = "gpu.block_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %[[BDX:.*]] = "gpu.block_dim"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %[[TX:.*]] = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
// CHECK-NEXT: %[[BXD:.*]] = arith.muli %[[BX]], %[[BDX]] overflow<nsw> : index
// CHECK-NEXT: %[[GID:.*]] = arith.addi %[[BXD]], %[[TX]] overflow<nsw> : index

// y: for (j = blockIdx.y; j < n; j += gridDim.y), correct beyond 65535 rows.
// CHECK-NEXT: %[[J_UB:.*]] = arith.index_cast %[[N]] : i32 to index
// CHECK-NEXT: %[[BY:.*]] = "gpu.block_id"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT: %[[GDY:.*]] = "gpu.grid_dim"() <{dimension = #gpu<dim y>}> : () -> index
// CHECK-NEXT: scf.for %[[JX:.*]] = %[[BY]] to %[[J_UB]] step %[[GDY]] {
// CHECK-NEXT: %[[J:.*]] = arith.index_cast %[[JX]] : index to i32

// The guard on x directly follows its index and wraps the whole body.
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[GID]], %[[I_UB]] : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[GID]] : index to i32
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %[[P]] step %{{.*}} : i32 {
// CHECK-NEXT: %[[JM:.*]] = arith.muli %[[J]], %[[M]] : i32
// CHECK-NEXT: %[[AI:.*]] = arith.addi %[[I]], %[[JM]] : i32
// CHECK: memref.load %[[B]]
// CHECK: memref.load %[[C]]
// CHECK: memref.store %{{.*}}, %[[A]][%{{.*}}] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.return"() : () -> ()
// CHECK-NEXT: }) {sym_name = "matmul_kernel", gpu.known_block_size = array<i32: 256, 1, 1>, gpu.kernel, arg_attrs = [{agpu.name = "A", agpu.ctype = "float"}, {agpu.name = "B", agpu.ctype = "float", agpu.const}, {agpu.name = "C", agpu.ctype = "float", agpu.const}, {agpu.name = "m", agpu.ctype = "int"}, {agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "p", agpu.ctype = "int"}]} : () -> ()

// The host function keeps its name, signature and argument attributes, and only launches.
// CHECK-LABEL: func.func @matmul(
// CHECK-SAME: %[[HA:[^:]*]]: memref<?xf32> {agpu.name = "A", agpu.ctype = "float"}, %[[HB:[^:]*]]: memref<?xf32> {agpu.name = "B", agpu.ctype = "float", agpu.const}, %[[HC:[^:]*]]: memref<?xf32> {agpu.name = "C", agpu.ctype = "float", agpu.const}, %[[HM:[^:]*]]: i32 {agpu.name = "m", agpu.ctype = "int"}, %[[HN:[^:]*]]: i32 {agpu.name = "n", agpu.ctype = "int"}, %[[HP:[^:]*]]: i32 {agpu.name = "p", agpu.ctype = "int"}) {
// CHECK-NEXT: %[[ONE:.*]] = arith.constant 1 : index
// grid.x = max(ceildiv(m, 256), 1)
// CHECK-NEXT: %[[MI:.*]] = arith.index_cast %[[HM]] : i32 to index
// CHECK-NEXT: %[[BS:.*]] = arith.constant 256 : index
// CHECK-NEXT: %[[CD:.*]] = arith.ceildivsi %[[MI]], %[[BS]] : index
// CHECK-NEXT: %[[GX:.*]] = arith.maxsi %[[CD]], %[[ONE]] : index
// grid.y = min(max(n, 1), 65535)
// CHECK-NEXT: %[[NI:.*]] = arith.index_cast %[[HN]] : i32 to index
// CHECK-NEXT: %[[NY:.*]] = arith.maxsi %[[NI]], %[[ONE]] : index
// CHECK-NEXT: %[[LIMIT:.*]] = arith.constant 65535 : index
// CHECK-NEXT: %[[GY:.*]] = arith.minsi %[[NY]], %[[LIMIT]] : index
// CHECK-NEXT: "gpu.launch_func"(%[[GX]], %[[GY]], %[[ONE]], %[[BS]], %[[ONE]], %[[ONE]], %[[HA]], %[[HB]], %[[HC]], %[[HM]], %[[HN]], %[[HP]]) <{kernel = @kernels::@matmul_kernel, {{.*}}}>
// CHECK-NEXT: func.return
// CHECK-NOT: agpu.
