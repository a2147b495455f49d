// RUN: autogpu-opt %s --split-input-file --verify-diagnostics | filecheck %s
// agpu.vector_load / agpu.vector_store: an 8- or 16-byte access of a rank-1 memref's elements.

func.func @three_floats(%m: memref<64xf32, 3>, %i: index) -> f32 {
  %a, %b, %c = "agpu.vector_load"(%m, %i) : (memref<64xf32, 3>, index) -> (f32, f32, f32)
  func.return %a : f32
}
// CHECK: agpu.vector_load of 3 x f32: expected 2 or 4 x f32, 2 x f64, 2 or 4 x i32 (an 8- or 16-byte access)

// -----

func.func @four_doubles(%m: memref<64xf64>, %i: index) -> f64 {
  %a, %b, %c, %d = "agpu.vector_load"(%m, %i) : (memref<64xf64>, index) -> (f64, f64, f64, f64)
  func.return %a : f64
}
// CHECK: agpu.vector_load of 4 x f64: expected

// -----

func.func @bytes(%m: memref<64xi8>, %i: index) -> i8 {
  %a, %b = "agpu.vector_load"(%m, %i) : (memref<64xi8>, index) -> (i8, i8)
  func.return %a : i8
}
// CHECK: agpu.vector_load of 2 x i8: expected

// -----

func.func @wrong_result_type(%m: memref<64xf32>, %i: index) -> f64 {
  %a, %b = "agpu.vector_load"(%m, %i) : (memref<64xf32>, index) -> (f32, f64)
  func.return %b : f64
}
// CHECK: agpu.vector_load values must have the memref's element type f32, got f64

// -----

func.func @rank_two(%m: memref<8x8xf32>, %i: index) -> f32 {
  %a, %b = "agpu.vector_load"(%m, %i) : (memref<8x8xf32>, index) -> (f32, f32)
  func.return %a : f32
}
// CHECK: agpu.vector_load accesses a rank-1 memref, got rank 2

// -----

func.func @store_type(%m: memref<64xi32>, %i: index, %x: i32, %y: i64) {
  "agpu.vector_store"(%x, %y, %m, %i) : (i32, i64, memref<64xi32>, index) -> ()
  func.return
}
// CHECK: agpu.vector_store values must have the memref's element type i32, got i64

// -----

func.func @store_five(%m: memref<64xi32>, %i: index, %x: i32) {
  "agpu.vector_store"(%x, %x, %x, %x, %x, %m, %i) : (i32, i32, i32, i32, i32, memref<64xi32>, index) -> ()
  func.return
}
// CHECK: agpu.vector_store of 5 x i32: expected
