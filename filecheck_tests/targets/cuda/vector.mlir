// RUN: autogpu-opt %s -t cuda | filecheck %s

// agpu.vector_load / agpu.vector_store (gpu-vectorize): one float4 / double2 access through a
// reinterpret_cast; a `checked` load tests its address and reads element by element when it
// is misaligned; an alloca's agpu.align is its __align__. Its results are the vector's lanes.

builtin.module attributes {gpu.container_module} {
  "gpu.module"() <{sym_name = "kernels"}> ({
    "gpu.func"() <{function_type = (memref<?xf32>, memref<?xf64>) -> ()}> ({
    ^bb0(%in: memref<?xf32>, %out: memref<?xf64>):
      %tile = memref.alloca() {agpu.align = 16 : i64} : memref<256xf32, 3 : i32>
      %tx = "gpu.thread_id"() <{dimension = #gpu<dim x>}> : () -> index
      %c4 = arith.constant 4 : index
      %f = arith.muli %tx, %c4 overflow<nsw> : index
      %a, %b, %c, %d = "agpu.vector_load"(%in, %f) <{checked}> : (memref<?xf32>, index) -> (f32, f32, f32, f32)
      "agpu.vector_store"(%d, %c, %b, %a, %tile, %f) : (f32, f32, f32, f32, memref<256xf32, 3 : i32>, index) -> ()
      "gpu.barrier"() : () -> ()
      %w, %x, %y, %z = "agpu.vector_load"(%tile, %f) : (memref<256xf32, 3 : i32>, index) -> (f32, f32, f32, f32)
      %wx = arith.addf %w, %x : f32
      %yz = arith.addf %y, %z : f32
      %s = arith.addf %wx, %yz : f32
      %e = arith.extf %s : f32 to f64
      %c2 = arith.constant 2 : index
      %g = arith.muli %tx, %c2 overflow<nsw> : index
      "agpu.vector_store"(%e, %e, %out, %g) : (f64, f64, memref<?xf64>, index) -> ()
      "gpu.return"() : () -> ()
    }) {gpu.kernel, sym_name = "vectors"} : () -> ()
  }) : () -> ()
}

// CHECK-LABEL: void vectors(const float *__restrict__ in, double *out) {
// CHECK-NEXT:  __shared__ __align__(16) float tile[256];
// CHECK:       const float *[[AT:.*]] = &in[[[F:.*]]];
// CHECK-NEXT:  const float4 [[A:.*]] = reinterpret_cast<unsigned long long>([[AT]]) % 16 == 0 ? *reinterpret_cast<const float4 *>([[AT]]) : make_float4([[AT]][0], [[AT]][1], [[AT]][2], [[AT]][3]);
// CHECK-NEXT:  *reinterpret_cast<float4 *>(&tile[[[F]]]) = make_float4([[A]].w, [[A]].z, [[A]].y, [[A]].x);
// CHECK-NEXT:  __syncthreads();
// CHECK-NEXT:  const float4 [[W:.*]] = *reinterpret_cast<const float4 *>(&tile[[[F]]]);
// CHECK:       *reinterpret_cast<double2 *>(&out[{{.*}}]) = make_double2([[E:.*]], [[E]]);
