// What the cuda target cannot print is a located error naming the op, with exit status 1.

// RUN: not autogpu-opt %S/inputs/subview.mlir -t cuda 2>&1 | filecheck %s --check-prefix=SUBVIEW
// SUBVIEW: error: cuda target: cannot print 'memref.subview' in gpu.func @k

// RUN: not autogpu-opt %S/inputs/mulsi_extended.mlir -t cuda 2>&1 | filecheck %s --check-prefix=EXTENDED
// EXTENDED: error: cuda target: cannot print 'arith.mulsi_extended' in gpu.func @mul

// RUN: not autogpu-opt %S/inputs/ipowi.mlir -t cuda 2>&1 | filecheck %s --check-prefix=IPOWI
// IPOWI: error: cuda target: cannot print 'math.ipowi' in gpu.func @ipow

// RUN: not autogpu-opt %S/inputs/dynamic_alloca.mlir -t cuda 2>&1 | filecheck %s --check-prefix=DYNALLOCA
// DYNALLOCA: error: cuda target: cannot print 'memref.alloca' (dynamic size) in gpu.func @dyn

// RUN: not autogpu-opt %S/inputs/alloc.mlir -t cuda 2>&1 | filecheck %s --check-prefix=ALLOC
// ALLOC: error: cuda target: cannot print 'memref.alloc' in gpu.func @heap

// RUN: not autogpu-opt %S/inputs/f16_param.mlir -t cuda 2>&1 | filecheck %s --check-prefix=F16
// F16: error: cuda target: cannot print parameter h of type f16 (no C type for it) in gpu.func @half

// RUN: not autogpu-opt %S/inputs/dynamic_2d.mlir -t cuda 2>&1 | filecheck %s --check-prefix=DYN2D
// DYN2D: error: cuda target: cannot print parameter a of type memref<?x?xf32> (only static shapes can have several dimensions) in gpu.func @twod

// RUN: not autogpu-opt %S/inputs/device_function.mlir -t cuda 2>&1 | filecheck %s --check-prefix=DEVICEFN
// DEVICEFN: error: cuda target: cannot print gpu.func @helper: only kernels (gpu.kernel) are supported

// RUN: not autogpu-opt %S/inputs/host_load.mlir -t cuda 2>&1 | filecheck %s --check-prefix=HOSTLOAD
// HOSTLOAD: error: cuda target: cannot print 'memref.load' (host code may only compute launch sizes, run loops and ifs, and launch kernels) in func.func @f

// RUN: not autogpu-opt %S/inputs/host_select.mlir -t cuda 2>&1 | filecheck %s --check-prefix=HOSTSELECT
// HOSTSELECT: error: cuda target: cannot print 'arith.select' (not expressible in a launch size) in func.func @f

// RUN: not autogpu-opt %S/inputs/host_computed_arg.mlir -t cuda 2>&1 | filecheck %s --check-prefix=HOSTARG
// HOSTARG: error: cuda target: cannot print 'gpu.launch_func' (a kernel argument that is not a parameter of the host function or the counter of a host loop) in func.func @f

// RUN: not autogpu-opt %S/inputs/host_missing_kernel.mlir -t cuda 2>&1 | filecheck %s --check-prefix=MISSING
// MISSING: error: cuda target: cannot print 'gpu.launch_func' (no kernel @missing in a gpu.module) in func.func @f

// No Python traceback in any of these.
// RUN: not autogpu-opt %S/inputs/subview.mlir -t cuda 2>&1 | filecheck %s --check-prefix=NOTRACE
// NOTRACE-NOT: Traceback

// RUN: not autogpu-opt %S/inputs/reserved_name.mlir -t cuda 2>&1 | filecheck %s --check-prefix=RESERVED
// RESERVED: error: cuda target: kernel @sqrtf: the name is not a valid C identifier or is reserved (a keyword, CUDA builtin or math function)
