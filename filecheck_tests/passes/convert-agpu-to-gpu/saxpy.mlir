// RUN: autogpu-opt %s -p convert-agpu-to-gpu | filecheck %s

// One parallel loop: one kernel named <fn>_kernel, a 1D grid, scalars passed as arguments.

func.func @saxpy(%n: i32 {agpu.name = "n", agpu.ctype = "int"},
                 %a: f32 {agpu.name = "a", agpu.ctype = "float"},
                 %x: memref<?xf32> {agpu.name = "x", agpu.ctype = "float", agpu.const, agpu.restrict},
                 %y: memref<?xf32> {agpu.name = "y", agpu.ctype = "float", agpu.restrict}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  agpu.parallel_for %i = %c0 to %n step %c1 : i32 {
    %0 = arith.index_cast %i : i32 to index
    %1 = memref.load %x[%0] : memref<?xf32>
    %2 = arith.mulf %a, %1 : f32
    %3 = memref.load %y[%0] : memref<?xf32>
    %4 = arith.addf %2, %3 : f32
    memref.store %4, %y[%0] : memref<?xf32>
  }
  func.return
}

// CHECK: "gpu.func"() <{function_type = (i32, f32, memref<?xf32>, memref<?xf32>) -> (), kernel}> ({
// CHECK-NEXT: ^{{.*}}(%[[N:[^:]*]]: i32, %[[A:[^:]*]]: f32, %[[X:[^:]*]]: memref<?xf32>, %[[Y:[^:]*]]: memref<?xf32>):
// CHECK-NEXT: %[[UB:.*]] = arith.index_cast %[[N]] : i32 to index
// CHECK: %[[GID:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT: %[[IN:.*]] = arith.cmpi slt, %[[GID]], %[[UB]] : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK-NEXT: %[[I:.*]] = arith.index_cast %[[GID]] : index to i32
// CHECK-NEXT: %[[II:.*]] = arith.index_cast %[[I]] : i32 to index
// CHECK-NEXT: %[[XI:.*]] = memref.load %[[X]][%[[II]]] : memref<?xf32>
// CHECK-NEXT: arith.mulf %[[A]], %[[XI]] : f32
// CHECK: memref.store %{{.*}}, %[[Y]][%[[II]]] : memref<?xf32>
// CHECK-NEXT: }
// CHECK-NEXT: "gpu.return"() : () -> ()
// CHECK-NEXT: }) {sym_name = "saxpy_kernel", gpu.known_block_size = array<i32: 256, 1, 1>, gpu.kernel, arg_attrs = [{agpu.name = "n", agpu.ctype = "int"}, {agpu.name = "a", agpu.ctype = "float"}, {agpu.name = "x", agpu.ctype = "float", agpu.const, agpu.restrict}, {agpu.name = "y", agpu.ctype = "float", agpu.restrict}]}

// CHECK-LABEL: func.func @saxpy(
// CHECK-SAME: %[[HN:[^:]*]]: i32 {agpu.name = "n", agpu.ctype = "int"}, %[[HA:[^:]*]]: f32 {agpu.name = "a", agpu.ctype = "float"}, %[[HX:[^:]*]]: memref<?xf32> {{.*}}, %[[HY:[^:]*]]: memref<?xf32> {{.*}}) {
// CHECK: %[[NI:.*]] = arith.index_cast %[[HN]] : i32 to index
// CHECK: %[[CD:.*]] = arith.ceildivsi %[[NI]], %[[BS:.*]] : index
// CHECK: %[[GX:.*]] = arith.maxsi %[[CD]], %[[ONE:.*]] : index
// CHECK: "gpu.launch_func"(%[[GX]], %[[ONE]], %[[ONE]], %[[BS]], %[[ONE]], %[[ONE]], %[[HN]], %[[HA]], %[[HX]], %[[HY]]) <{kernel = @kernels::@saxpy_kernel, {{.*}}}>
// CHECK-NEXT: func.return
