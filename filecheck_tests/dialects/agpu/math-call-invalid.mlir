// RUN: autogpu-opt %s --split-input-file --verify-diagnostics | filecheck %s
// agpu.math_call checks the function, its arity and its types against autogpu/dialects/c_math.py.

func.func @unknown(%x: f32) -> f32 {
  %r = "agpu.math_call"(%x) <{function = "sinc"}> : (f32) -> f32
  func.return %r : f32
}
// CHECK: agpu.math_call of unknown function 'sinc': expected one of erfc, fdim, fmod, hypot, ilogb, ldexp, lgamma, logb, nextafter, remainder, scalbln, scalbn, tgamma

// -----

func.func @has_a_math_op(%x: f32) -> f32 {
  %r = "agpu.math_call"(%x) <{function = "sin"}> : (f32) -> f32
  func.return %r : f32
}
// CHECK: agpu.math_call of unknown function 'sin'

// -----

func.func @arity(%x: f64) -> f64 {
  %r = "agpu.math_call"(%x) <{function = "hypot"}> : (f64) -> f64
  func.return %r : f64
}
// CHECK: agpu.math_call 'hypot' takes 2 arguments, got 1

// -----

func.func @mixed_precision(%x: f32, %y: f64) -> f32 {
  %r = "agpu.math_call"(%x, %y) <{function = "fmod"}> : (f32, f64) -> f32
  func.return %r : f32
}
// CHECK: agpu.math_call 'fmod' has type (f32, f32) -> f32

// -----

func.func @integer_parameter(%x: f64, %e: i64) -> f64 {
  %r = "agpu.math_call"(%x, %e) <{function = "ldexp"}> : (f64, i64) -> f64
  func.return %r : f64
}
// CHECK: agpu.math_call 'ldexp' has type (f64, i32) -> f64

// -----

func.func @integer_result(%x: f32) -> f32 {
  %r = "agpu.math_call"(%x) <{function = "ilogb"}> : (f32) -> f32
  func.return %r : f32
}
// CHECK: agpu.math_call 'ilogb' has type (f32) -> i32

// -----

func.func @not_floating(%x: i32) -> i32 {
  %r = "agpu.math_call"(%x) <{function = "erfc"}> : (i32) -> i32
  func.return %r : i32
}
// CHECK: agpu.math_call 'erfc' computes on f32 or f64, not i32
