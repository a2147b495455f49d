// cpu_runtime.h: run emitted CUDA C on the CPU, with CUDA's thread semantics.
//
// The CUDA source is compiled unchanged with g++ after this header: it defines the CUDA keywords,
// built-in variables, math and atomic functions that kernels use. A grid runs like this:
//   - blocks are independent: they are spread over OpenMP threads, each taking the next block
//     of the launch's order (with one OpenMP thread, exactly that order);
//   - the threads of a block are user-level fibers on one OS thread. A fiber runs until it calls
//     __syncthreads() or returns; when every thread of the block waits at the barrier, all resume.
//     A thread that returns while others wait at a barrier is reported as an error (the barrier
//     is in divergent code: undefined behaviour in CUDA, a hang or garbage on a GPU);
//   - the order: forward, reverse, or a pseudo-random permutation from a seed (the default, see
//     cpu_exec.py) of the blocks of the grid, and anew for each block and each pass between
//     barriers, of its threads. A correct kernel gives the same result in every order; a race
//     (a missing barrier, a parallel loop that is not) shows as results that depend on it;
//   - __shared__ variables are `static thread_local`: shared by the fibers of a block (one OS
//     thread), distinct between blocks running at the same time (other OS threads);
//   - locals live on each fiber's own stack, so every thread has its own.
// A fiber's stack is only held while its thread waits at a barrier: a kernel without barriers runs
// its threads one after another on a single stack. Stacks are pooled per library and unmapped
// when it is unloaded; nothing thread_local owns memory, so that the library can be unloaded.
//
// The Python side (cpu_exec.py) appends, per kernel, a C-linkage entry point that calls
// agpu::launch(&kernel, ...) with the launch configuration and the argument values.
#pragma once

#include <dlfcn.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <sched.h>
#include <cstddef>
#include <exception>
#include <memory>
#include <mutex>
#include <new>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(_OPENMP)
#include <omp.h>
#endif

#if !defined(__x86_64__) || defined(AGPU_FIBERS_UCONTEXT)
#define AGPU_USE_UCONTEXT 1
#include <ucontext.h>
#endif

#ifndef AGPU_FIBER_STACK_BYTES
#define AGPU_FIBER_STACK_BYTES (256 * 1024)
#endif

// ---------------------------------------------------------------------------------------------
// CUDA keywords
// ---------------------------------------------------------------------------------------------
#define __global__
#define __device__
#define __host__
#define __constant__
#define __managed__
#define __shared__ static thread_local
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __align__(n) __attribute__((aligned(n)))
#define __launch_bounds__(...)
#define __grid_constant__
// __restrict__ is understood by g++ as it is.

// ---------------------------------------------------------------------------------------------
// Vector types and built-in variables
// ---------------------------------------------------------------------------------------------
struct uint3 {
  unsigned int x, y, z;
};
struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int vx = 1, unsigned int vy = 1, unsigned int vz = 1)
      : x(vx), y(vy), z(vz) {}
  constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
  constexpr operator uint3() const { return uint3{x, y, z}; }
};

#define AGPU_VECTOR2(T, name, align)                                                   \
  struct __attribute__((aligned(align))) name {                                        \
    T x, y;                                                                            \
  };                                                                                   \
  static inline name make_##name(T x, T y) { return name{x, y}; }
#define AGPU_VECTOR4(T, name, align)                                                   \
  struct __attribute__((aligned(align))) name {                                        \
    T x, y, z, w;                                                                      \
  };                                                                                   \
  static inline name make_##name(T x, T y, T z, T w) { return name{x, y, z, w}; }
AGPU_VECTOR2(float, float2, 8)
AGPU_VECTOR4(float, float4, 16)
AGPU_VECTOR2(double, double2, 16)
AGPU_VECTOR2(int, int2, 8)
AGPU_VECTOR4(int, int4, 16)
AGPU_VECTOR2(unsigned int, uint2, 8)
AGPU_VECTOR4(unsigned int, uint4, 16)
#undef AGPU_VECTOR2
#undef AGPU_VECTOR4
static inline uint3 make_uint3(unsigned int x, unsigned int y, unsigned int z) {
  return uint3{x, y, z};
}

// Per OS thread; the scheduler sets threadIdx before resuming each fiber. Everything here has
// internal linkage: `inline` variables and statics of inline functions would be STB_GNU_UNIQUE
// symbols, which the dynamic linker merges across every loaded library (RTLD_LOCAL or not), so
// two loaded programs would share one scheduler.
static thread_local uint3 threadIdx;
static thread_local uint3 blockIdx;
static thread_local dim3 blockDim;
static thread_local dim3 gridDim;
static const int warpSize = 32;

// ---------------------------------------------------------------------------------------------
// Unloading
// ---------------------------------------------------------------------------------------------
namespace agpu {
namespace {
// The OpenMP and C++ runtimes keep per-thread state that outlives a launch (OpenMP's pool of
// threads, C++'s exception globals): they must stay loaded when the last library of kernels is
// unloaded, or those threads would run unmapped code. Each library makes them permanent.
inline void keep_loaded(void* symbol) {
  Dl_info info;
  if (dladdr(symbol, &info) != 0 && info.dli_fname != nullptr)
    dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD | RTLD_NODELETE);
}
__attribute__((constructor)) void keep_runtimes_loaded() {
#if defined(_OPENMP)
  keep_loaded(reinterpret_cast<void*>(&omp_get_max_threads));
#endif
  keep_loaded(reinterpret_cast<void*>(&std::terminate));
}
}  // namespace
}  // namespace agpu

// ---------------------------------------------------------------------------------------------
// Fibers: a minimal context switch (x86-64 System V), or ucontext elsewhere
// ---------------------------------------------------------------------------------------------
namespace agpu {
namespace {

#if AGPU_USE_UCONTEXT
using Context = ucontext_t;
inline void switch_context(Context* save, Context* to) { swapcontext(save, to); }
inline void make_context(Context* ctx, char* stack, size_t size, void (*entry)()) {
  getcontext(ctx);
  ctx->uc_stack.ss_sp = stack;
  ctx->uc_stack.ss_size = size;
  ctx->uc_link = nullptr;
  makecontext(ctx, entry, 0);
}
#else
struct Context {
  void* sp;
};
extern "C" __attribute__((visibility("hidden"))) void agpu_switch_stack(void** save_sp,
                                                                          void* new_sp);
extern "C" __attribute__((visibility("hidden"))) void agpu_fiber_start();
// Saves the callee-saved registers on the current stack, stores the stack pointer, switches to
// the other stack and restores its registers. A fresh stack is laid out so that the final `ret`
// lands in agpu_fiber_start, which calls the entry function (in r13) with an aligned stack.
asm(R"(
    .text
    .globl agpu_switch_stack
    .hidden agpu_switch_stack
    .type agpu_switch_stack,@function
agpu_switch_stack:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size agpu_switch_stack,.-agpu_switch_stack

    .globl agpu_fiber_start
    .hidden agpu_fiber_start
    .type agpu_fiber_start,@function
agpu_fiber_start:
    callq *%r13
    ud2
    .size agpu_fiber_start,.-agpu_fiber_start
)");
inline void switch_context(Context* save, Context* to) { agpu_switch_stack(&save->sp, to->sp); }
inline void make_context(Context* ctx, char* stack, size_t size, void (*entry)()) {
  uintptr_t top = (reinterpret_cast<uintptr_t>(stack) + size) & ~uintptr_t(15);
  void** sp = reinterpret_cast<void**>(top - 72);  // 6 registers + return address, aligned
  sp[0] = nullptr;                                 // r15
  sp[1] = nullptr;                                 // r14
  sp[2] = reinterpret_cast<void*>(entry);          // r13: called by agpu_fiber_start
  sp[3] = nullptr;                                 // r12
  sp[4] = nullptr;                                 // rbx
  sp[5] = nullptr;                                 // rbp
  sp[6] = reinterpret_cast<void*>(&agpu_fiber_start);
  ctx->sp = sp;
}
#endif

// ---------------------------------------------------------------------------------------------
// Orders: which block, and which thread of a block, runs next
// ---------------------------------------------------------------------------------------------
enum ThreadState : unsigned char { NOT_STARTED, RUNNABLE, WAITING, FINISHED };
enum Order : int { FORWARD = 0, REVERSE = 1, RANDOM = 2 };
// What a launch (run_grid) returns: the environment failing (no memory, no memory map left) is
// told apart from the kernel failing, so that a caller may retry the first.
enum Status : int { OK = 0, KERNEL_FAILED = 1, ENVIRONMENT_FAILED = 2 };

struct Launch {
  dim3 grid, block;
  size_t dynamic_shared_bytes;
  Order order;
  uint64_t seed;
  void (*thunk)(void*);  // runs the kernel body for the current thread
  void* call;            // its argument: the kernel and its parameter values
};

inline uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// p[i]: the i-th of n items in the order. RANDOM is the pseudo-random permutation chosen by
// `key`, computed without a table (a grid may have billions of blocks): a keyed bijection of
// [0, 2^k) (multiplications by odd numbers and xor-shifts, each invertible modulo 2^k), applied
// again while the result is n or more ("cycle walking"), which makes it a bijection of [0, n).
class Permutation {
 public:
  Permutation(Order order, uint64_t n, uint64_t key) : order_(order), n_(n) {
    unsigned bits = 0;
    while (bits < 64 && (uint64_t(1) << bits) < n) ++bits;
    mask_ = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
    shift_ = bits > 1 ? bits / 2 : 1;
    for (uint64_t& k : keys_) k = key = splitmix64(key);
  }
  uint64_t operator[](uint64_t i) const {
    if (order_ == FORWARD) return i;
    if (order_ == REVERSE) return n_ - 1 - i;
    do i = scramble(i);
    while (i >= n_);
    return i;
  }

 private:
  uint64_t scramble(uint64_t x) const {
    for (uint64_t k : keys_) {
      x = (x * (k | 1) + (k >> 32)) & mask_;
      x ^= x >> shift_;
    }
    return x;
  }
  Order order_;
  uint64_t n_, mask_;
  unsigned shift_;
  uint64_t keys_[4];
};

// The order of the blocks of a launch, and of the threads of a block in one pass (a pass runs
// every thread up to the next barrier): a new permutation per block and per pass.
inline Permutation block_order(const Launch& L, uint64_t blocks) {
  return Permutation(L.order, blocks, L.seed);
}
inline Permutation thread_order(const Launch& L, unsigned threads, uint64_t block, uint64_t pass) {
  return Permutation(L.order, threads, L.seed ^ splitmix64(block * 0x100000001ull + pass));
}

// ---------------------------------------------------------------------------------------------
// Fiber stacks, pooled per loaded library
// ---------------------------------------------------------------------------------------------
// A launch borrows stacks from the pool and gives them back when it ends, so that launches
// reuse stacks instead of mapping new ones. The pool is a plain global, never thread_local: it
// is unmapped when the library is unloaded (cpu_exec.py unloads it when the last program using
// it is closed), whereas a thread_local object with a destructor would keep the library loaded
// for good (glibc never unloads a library whose thread_local destructors may still run), and
// every OpenMP thread would keep stacks of its own.
struct Stack {
  char* base;  // lowest usable address; a guard page lies below it
  size_t size;
};

inline size_t page_size() { return static_cast<size_t>(sysconf(_SC_PAGESIZE)); }

class StackPool {
 public:
  ~StackPool() {
    for (const Stack& s : idle_) unmap(s);
  }
  // A stack, or false with errno set when the process has no memory or memory map left.
  bool take(Stack& stack) {
    {
      std::lock_guard<std::mutex> guard(lock_);
      if (!idle_.empty()) {
        stack = idle_.back();
        idle_.pop_back();
        return true;
      }
    }
    return map(stack);
  }
  void give_back(const std::vector<Stack>& stacks) {
    std::lock_guard<std::mutex> guard(lock_);
    try {
      idle_.insert(idle_.end(), stacks.begin(), stacks.end());
    } catch (const std::bad_alloc&) {
      for (const Stack& s : stacks) unmap(s);
    }
  }

 private:
  static bool map(Stack& stack) {
    const size_t guard = page_size();
    const size_t size = (AGPU_FIBER_STACK_BYTES + guard - 1) / guard * guard;
    void* mem = mmap(nullptr, size + guard, PROT_READ | PROT_WRITE,
                     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (mem == MAP_FAILED) return false;
    // The guard page makes a stack overflow fault instead of corrupting memory; protecting it
    // splits the mapping in two, which fails when the process is out of memory maps.
    if (mprotect(mem, guard, PROT_NONE) != 0) {
      const int error = errno;
      munmap(mem, size + guard);
      errno = error;
      return false;
    }
    stack = Stack{static_cast<char*>(mem) + guard, size};
    return true;
  }
  static void unmap(const Stack& s) { munmap(s.base - page_size(), s.size + page_size()); }

  std::mutex lock_;
  std::vector<Stack> idle_;
};

StackPool stack_pool;

// ---------------------------------------------------------------------------------------------
// The scheduler of one OS thread during one launch: runs one block at a time
// ---------------------------------------------------------------------------------------------
struct Worker {
  const Launch* launch = nullptr;
  Context scheduler;
  std::vector<Context> contexts;  // per thread of the block
  std::vector<int> stack_of;      // per thread: index into stacks, or -1
  std::vector<unsigned char> state;
  std::vector<unsigned> order;  // the order in which a pass visits the threads
  std::vector<Stack> stacks;    // borrowed from stack_pool until the launch ends
  std::vector<int> free_stacks;
  int current = -1;      // the thread running (or last run)
  unsigned cursor = 0;   // position in `order` of the next thread a pass looks at
  unsigned finished = 0;  // threads of the block that returned
  int last_finished = -1;
  bool failed = false;  // the kernel failed (assert, __trap)
  std::string error;
  void* dynamic_shared = nullptr;
  size_t dynamic_shared_capacity = 0;
  std::vector<const void*> poisoned;  // __shared__ variables already poisoned in this block

  Worker() = default;
  Worker(const Worker&) = delete;
  Worker& operator=(const Worker&) = delete;
  ~Worker() {
    stack_pool.give_back(stacks);
    free(dynamic_shared);
  }

  // An index into `stacks`, or -1 with errno set.
  int acquire_stack() {
    if (!free_stacks.empty()) {
      int s = free_stacks.back();
      free_stacks.pop_back();
      return s;
    }
    stacks.reserve(stacks.size() + 1);  // before taking: push_back cannot throw and leak it
    Stack stack;
    if (!stack_pool.take(stack)) return -1;
    stacks.push_back(stack);
    return static_cast<int>(stacks.size()) - 1;
  }

  bool reserve_dynamic_shared(size_t bytes) {
    if (bytes <= dynamic_shared_capacity) return true;
    free(dynamic_shared);
    dynamic_shared = aligned_alloc(256, (bytes + 255) / 256 * 256);
    dynamic_shared_capacity = dynamic_shared ? bytes : 0;
    return dynamic_shared != nullptr;
  }

  Status environment_failure(const std::string& message) {
    error = message;
    return ENVIRONMENT_FAILED;
  }
};

// The worker of this OS thread, set before it runs a block. A plain pointer: a thread_local
// with a destructor would keep the library loaded (see StackPool).
thread_local Worker* tls_worker = nullptr;

// The block's dynamic shared memory (`extern __shared__ T name[];` is rewritten to use it).
inline void* dynamic_shared() { return tls_worker->dynamic_shared; }

// Shared memory is uninitialised in CUDA. So that a kernel reading it before writing it fails
// here too (instead of seeing zeros, or what the previous block left), every shared variable
// declared in a function is filled with 0xFF bytes (NaN as float, -1 as int) by the first
// thread of each block that reaches its declaration: cpu_exec.py adds this call after it.
inline void poison_shared(const void* address, size_t bytes) {
  Worker& w = *tls_worker;
  for (const void* p : w.poisoned)
    if (p == address) return;
  w.poisoned.push_back(address);
  memset(const_cast<void*>(address), 0xFF, bytes);
}

inline uint3 unflatten(uint64_t i, dim3 d) {
  return uint3{static_cast<unsigned>(i % d.x), static_cast<unsigned>(i / d.x % d.y),
               static_cast<unsigned>(i / d.x / d.y)};
}

inline std::string describe(const char* what, uint3 v) {
  return std::string(what) + " (" + std::to_string(v.x) + ", " + std::to_string(v.y) + ", " +
         std::to_string(v.z) + ")";
}

inline uint3 thread_index(unsigned t, dim3 d) {
  if (d.y == 1 && d.z == 1) return uint3{t, 0, 0};
  return uint3{t % d.x, t / d.x % d.y, t / (d.x * d.y)};
}

inline void begin_thread(Worker& w, unsigned t) {
  w.current = static_cast<int>(t);
  threadIdx = thread_index(t, w.launch->block);
  w.state[t] = RUNNABLE;
}

// A fiber runs a thread; when the thread returns, the fiber goes on with the next thread of the
// pass that has not started yet, on the same stack (the finished thread left nothing on it). So
// a block without barriers runs in one fiber, and a fiber is left behind only by a thread that
// waits at a barrier.
inline void fiber_main() {
  Worker& w = *tls_worker;
  for (;;) {
    w.launch->thunk(w.launch->call);
    const unsigned t = static_cast<unsigned>(w.current);
    w.state[t] = FINISHED;
    ++w.finished;
    w.last_finished = static_cast<int>(t);
    if (w.cursor < w.order.size() && w.state[w.order[w.cursor]] == NOT_STARTED) {
      const unsigned next = w.order[w.cursor++];
      w.stack_of[next] = w.stack_of[t];
      w.stack_of[t] = -1;
      begin_thread(w, next);
      continue;
    }
    switch_context(&w.contexts[t], &w.scheduler);  // the scheduler frees this stack
  }
}

// Stops the calling CUDA thread and fails the launch with `message` (assert, __trap).
[[noreturn]] __attribute__((noinline)) inline void fail_thread(const std::string& message) {
  Worker& w = *tls_worker;
  w.failed = true;
  w.error = message + " in thread" + describe("", threadIdx) + " of block" +
            describe("", blockIdx);
  w.state[w.current] = FINISHED;
  switch_context(&w.contexts[w.current], &w.scheduler);
  __builtin_unreachable();
}

inline void set_pass_order(Worker& w, unsigned n, uint64_t block, uint64_t pass) {
  const Permutation p = thread_order(*w.launch, n, block, pass);
  w.order.resize(n);
  for (unsigned i = 0; i < n; ++i) w.order[i] = static_cast<unsigned>(p[i]);
}

// Runs every thread of one block to completion. Each pass runs every thread until it waits at
// the barrier or returns; then the barrier is released.
inline Status run_block(Worker& w, uint64_t linear_block) {
  const Launch& L = *w.launch;
  const unsigned n = L.block.x * L.block.y * L.block.z;
  blockIdx = unflatten(linear_block, L.grid);
  blockDim = L.block;
  gridDim = L.grid;
  w.contexts.resize(n);
  w.stack_of.assign(n, -1);
  w.state.assign(n, NOT_STARTED);
  w.free_stacks.clear();
  for (int s = static_cast<int>(w.stacks.size()) - 1; s >= 0; --s) w.free_stacks.push_back(s);
  w.failed = false;
  w.poisoned.clear();
  if (L.dynamic_shared_bytes) memset(w.dynamic_shared, 0xFF, L.dynamic_shared_bytes);
  w.finished = 0;
  w.last_finished = -1;
  for (uint64_t pass = 0;; ++pass) {
    set_pass_order(w, n, linear_block, pass);
    unsigned waiting = 0;
    int a_waiting = -1;
    w.cursor = 0;
    while (w.cursor < n) {
      const unsigned t = w.order[w.cursor++];
      if (w.state[t] == FINISHED) continue;
      if (w.state[t] == NOT_STARTED) {
        int s = w.acquire_stack();
        if (s < 0)
          return w.environment_failure(std::string("cannot allocate a fiber stack (") +
                                       strerror(errno) + ")");
        w.stack_of[t] = s;
        make_context(&w.contexts[t], w.stacks[s].base, w.stacks[s].size, &fiber_main);
      }
      begin_thread(w, t);
      switch_context(&w.scheduler, &w.contexts[t]);
      if (w.failed) return KERNEL_FAILED;
      const unsigned c = static_cast<unsigned>(w.current);  // t, or a thread started after it
      if (w.state[c] == FINISHED) {
        w.free_stacks.push_back(w.stack_of[c]);
        w.stack_of[c] = -1;
      } else {
        ++waiting;
        a_waiting = static_cast<int>(c);
      }
    }
    if (waiting == 0) return OK;
    if (w.finished > 0) {
      w.error = "__syncthreads() in divergent code: in block" + describe("", blockIdx) +
                ", thread" + describe("", thread_index(a_waiting, L.block)) +
                " waits at a barrier that thread" +
                describe("", thread_index(w.last_finished, L.block)) +
                " never reached (it returned); " + std::to_string(waiting) + " of " +
                std::to_string(n) +
                " threads wait (undefined behaviour in CUDA: a hang or wrong results on a GPU)";
      return KERNEL_FAILED;
    }
  }
}

// Runs one block on this OS thread's worker. The scheduler's own allocations failing
// (std::bad_alloc) is the environment failing, not the kernel.
inline Status run_block_on(Worker& w, const Launch& L, uint64_t block) {
  tls_worker = &w;
  w.launch = &L;
  try {
    if (!w.reserve_dynamic_shared(L.dynamic_shared_bytes))
      return w.environment_failure("cannot allocate " + std::to_string(L.dynamic_shared_bytes) +
                                   " bytes of dynamic shared memory");
    return run_block(w, block);
  } catch (const std::bad_alloc&) {
    w.error = "out of memory";
    return ENVIRONMENT_FAILED;
  }
}

inline int os_thread_number() {
#if defined(_OPENMP)
  return omp_get_thread_num();
#else
  return 0;
#endif
}

// Runs the whole grid: every OS thread takes the next block of the launch's order (so with one
// OS thread the blocks run exactly in that order). Returns a Status, with a message in err
// when it is not OK.
inline int run_grid(const Launch& L, int num_threads, char* err, size_t errlen) {
  const uint64_t threads = uint64_t(L.block.x) * L.block.y * L.block.z;
  const uint64_t blocks = uint64_t(L.grid.x) * L.grid.y * L.grid.z;
  if (threads == 0 || threads > 1024) {
    snprintf(err, errlen, "invalid block size: %llu threads (1 to 1024)",
             static_cast<unsigned long long>(threads));
    return KERNEL_FAILED;
  }
  int team = 1;
#if defined(_OPENMP)
  team = num_threads > 0 ? num_threads : omp_get_max_threads();
#endif
  if (static_cast<uint64_t>(team) > blocks) team = static_cast<int>(blocks > 0 ? blocks : 1);
  std::unique_ptr<Worker[]> workers(new (std::nothrow) Worker[team]);
  if (!workers) {
    snprintf(err, errlen, "out of memory");
    return ENVIRONMENT_FAILED;
  }
  const Permutation order = block_order(L, blocks);
  std::atomic<bool> failed{false};
  Status status = OK;
  std::string message;
  std::mutex lock;
  const int64_t nb = static_cast<int64_t>(blocks);
#if defined(_OPENMP)
#pragma omp parallel for schedule(dynamic, 1) num_threads(team)
#endif
  for (int64_t b = 0; b < nb; ++b) {
    if (failed.load(std::memory_order_relaxed)) continue;
    Worker& w = workers[os_thread_number()];
    const Status s = run_block_on(w, L, order[static_cast<uint64_t>(b)]);
    if (s == OK) continue;
    std::lock_guard<std::mutex> guard(lock);
    if (!failed.exchange(true)) {
      status = s;
      message.swap(w.error);
    }
  }
  if (status != OK) snprintf(err, errlen, "%s", message.c_str());
  return status;
}

// ---------------------------------------------------------------------------------------------
// Typed entry: agpu::launch(&kernel, config, argv, ...) from the generated C-linkage wrappers
// ---------------------------------------------------------------------------------------------
template <class... P>
struct KernelCall {
  void (*kernel)(P...);
  std::tuple<P...> args;
  static void run(void* self) {
    auto* c = static_cast<KernelCall*>(self);
    std::apply(c->kernel, c->args);  // each CUDA thread gets its own copy of the parameters
  }
};

template <class... P, size_t... I>
std::tuple<P...> read_args(void** argv, std::index_sequence<I...>) {
  return std::tuple<P...>{*static_cast<P*>(argv[I])...};
}

// config: grid x, y, z, block x, y, z, dynamic shared bytes, order, seed, OS threads (0: all).
// argv: pointers to the parameter values, in order (as for cuLaunchKernel). Returns a Status.
template <class... P>
int launch(void (*kernel)(P...), const long long* config, void** argv, char* err,
           size_t errlen) {
  KernelCall<P...> call{kernel, read_args<P...>(argv, std::index_sequence_for<P...>{})};
  Launch L;
  L.grid = dim3(config[0], config[1], config[2]);
  L.block = dim3(config[3], config[4], config[5]);
  L.dynamic_shared_bytes = static_cast<size_t>(config[6]);
  L.order = static_cast<Order>(config[7]);
  L.seed = static_cast<uint64_t>(config[8]);
  L.thunk = &KernelCall<P...>::run;
  L.call = &call;
  return run_grid(L, static_cast<int>(config[9]), err, errlen);
}

// The parameter types as NumPy dtype names ("float32", "int64*", ...), comma separated, so that
// the launch description can be checked against the kernel's real signature.
template <class T>
std::string type_name() {
  using U = std::remove_cv_t<T>;
  if constexpr (std::is_pointer_v<U>) {
    return type_name<std::remove_pointer_t<U>>() + "*";
  } else if constexpr (std::is_same_v<U, bool>) {
    return "bool";
  } else if constexpr (std::is_integral_v<U>) {
    return std::string(std::is_signed_v<U> ? "int" : "uint") + std::to_string(8 * sizeof(U));
  } else if constexpr (std::is_floating_point_v<U>) {
    return "float" + std::to_string(8 * sizeof(U));
  } else {
    return "?";
  }
}

template <class... P>
int signature(void (*)(P...), char* out, size_t len) {
  std::string s;
  ((s += (s.empty() ? "" : ",") + type_name<P>()), ...);
  snprintf(out, len, "%s", s.c_str());
  return static_cast<int>(s.size());
}

}  // namespace
}  // namespace agpu

// ---------------------------------------------------------------------------------------------
// Synchronisation
// ---------------------------------------------------------------------------------------------
__attribute__((noinline)) inline void __syncthreads() {
  agpu::Worker& w = *agpu::tls_worker;
  const int t = w.current;
  w.state[t] = agpu::WAITING;
  agpu::switch_context(&w.contexts[t], &w.scheduler);
}
// __shfl_down_sync: the value of the thread `delta` lanes further in the warp (linear thread
// index / 32), or the caller's own past the warp's end (or the block's). Every thread of the block
// must call it together (the warp-shuffle block combine of reductions does): each publishes its
// value in a slot of its OS thread, then a barrier, the read, and a barrier before any slot is
// reused. The mask is not checked. Values up to 8 bytes (CUDA's shuffles take no wider ones).
namespace agpu {
namespace {
static thread_local uint64_t shuffle_slots[1024];
}  // namespace
}  // namespace agpu
template <class T>
inline T __shfl_down_sync(unsigned, T value, unsigned delta, int width = warpSize) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "__shfl_down_sync: at most 8 bytes");
  const unsigned t = static_cast<unsigned>(agpu::tls_worker->current);
  const unsigned threads = blockDim.x * blockDim.y * blockDim.z;
  memcpy(&agpu::shuffle_slots[t], &value, sizeof(T));
  __syncthreads();
  const unsigned lane = t % static_cast<unsigned>(width);
  const unsigned source =
      lane + delta < static_cast<unsigned>(width) && t + delta < threads ? t + delta : t;
  T result;
  memcpy(&result, &agpu::shuffle_slots[source], sizeof(T));
  __syncthreads();
  return result;
}
inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
// A spinning thread (a critical section's lock, cuda_sync.py) lets the OS run another: a lock
// holder of the same block finishes its section before this fiber runs again (no barrier can be
// inside one), and one of another block runs on another OS thread.
inline void __nanosleep(unsigned) { sched_yield(); }
[[noreturn]] inline void __trap() { agpu::fail_thread("__trap() called"); }

#undef assert
#define assert(e) \
  ((e) ? (void)0  \
       : agpu::fail_thread(std::string("assertion '" #e "' failed at ") + __FILE__ + ":" + \
                           std::to_string(__LINE__)))

// ---------------------------------------------------------------------------------------------
// Math: <math.h> gives sqrtf, expf, fminf, ... and the C++ overloads (sqrt(float) is float).
// CUDA's min/max overloads (floating point ones behave like fmin/fmax):
// ---------------------------------------------------------------------------------------------
#define AGPU_MINMAX(R, A, B)                                                     \
  static inline R min(const A a, const B b) { return (R)a < (R)b ? (R)a : (R)b; } \
  static inline R max(const A a, const B b) { return (R)a > (R)b ? (R)a : (R)b; }
AGPU_MINMAX(int, int, int)
AGPU_MINMAX(unsigned int, unsigned int, unsigned int)
AGPU_MINMAX(unsigned int, int, unsigned int)
AGPU_MINMAX(unsigned int, unsigned int, int)
AGPU_MINMAX(long, long, long)
AGPU_MINMAX(unsigned long, unsigned long, unsigned long)
AGPU_MINMAX(unsigned long, long, unsigned long)
AGPU_MINMAX(unsigned long, unsigned long, long)
AGPU_MINMAX(long long, long long, long long)
AGPU_MINMAX(unsigned long long, unsigned long long, unsigned long long)
AGPU_MINMAX(unsigned long long, long long, unsigned long long)
AGPU_MINMAX(unsigned long long, unsigned long long, long long)
#undef AGPU_MINMAX
static inline float min(const float a, const float b) { return fminf(a, b); }
static inline float max(const float a, const float b) { return fmaxf(a, b); }
static inline double min(const double a, const double b) { return fmin(a, b); }
static inline double max(const double a, const double b) { return fmax(a, b); }
static inline double min(const float a, const double b) { return fmin(a, b); }
static inline double max(const float a, const double b) { return fmax(a, b); }
static inline double min(const double a, const float b) { return fmin(a, b); }
static inline double max(const double a, const float b) { return fmax(a, b); }

// Intrinsics. The rounded-as-named ones (__fadd_rn, ...) are exact IEEE operations on both sides;
// the fast approximations (__expf, rsqrtf, __fdividef, ...) are computed exactly here, so compare
// results of kernels using them with a tolerance.
static inline float __fadd_rn(float a, float b) { return a + b; }
static inline float __fsub_rn(float a, float b) { return a - b; }
static inline float __fmul_rn(float a, float b) { return a * b; }
static inline float __fdiv_rn(float a, float b) { return a / b; }
static inline float __fsqrt_rn(float a) { return sqrtf(a); }
static inline float __frcp_rn(float a) { return 1.0f / a; }
static inline float __fmaf_rn(float a, float b, float c) { return fmaf(a, b, c); }
static inline double __dadd_rn(double a, double b) { return a + b; }
static inline double __dsub_rn(double a, double b) { return a - b; }
static inline double __dmul_rn(double a, double b) { return a * b; }
static inline double __ddiv_rn(double a, double b) { return a / b; }
static inline double __dsqrt_rn(double a) { return sqrt(a); }
static inline double __fma_rn(double a, double b, double c) { return fma(a, b, c); }
static inline float __fdividef(float a, float b) { return a / b; }
// glibc declares __expf, __logf, __sinf, __cosf, __powf and exp10f itself (the same functions).
static inline float rsqrtf(float a) { return 1.0f / sqrtf(a); }
static inline double rsqrt(double a) { return 1.0 / sqrt(a); }
static inline float __saturatef(float a) {
  return a < 0.0f ? 0.0f : (a > 1.0f ? 1.0f : (a != a ? 0.0f : a));
}
static inline int __float2int_rz(float a) { return (int)a; }
static inline int __float2int_rn(float a) { return (int)nearbyintf(a); }
static inline int __float2int_rd(float a) { return (int)floorf(a); }
static inline int __float2int_ru(float a) { return (int)ceilf(a); }
static inline float __int2float_rn(int a) { return (float)a; }
static inline float __uint2float_rn(unsigned a) { return (float)a; }

template <class To, class From>
static inline To agpu_bit_cast(From v) {
  static_assert(sizeof(To) == sizeof(From), "bit cast between types of different sizes");
  To r;
  memcpy(&r, &v, sizeof r);
  return r;
}
static inline float __int_as_float(int v) { return agpu_bit_cast<float>(v); }
static inline int __float_as_int(float v) { return agpu_bit_cast<int>(v); }
static inline float __uint_as_float(unsigned int v) { return agpu_bit_cast<float>(v); }
static inline unsigned int __float_as_uint(float v) { return agpu_bit_cast<unsigned int>(v); }
static inline double __longlong_as_double(long long v) { return agpu_bit_cast<double>(v); }
static inline long long __double_as_longlong(double v) { return agpu_bit_cast<long long>(v); }

static inline int __popc(unsigned int v) { return __builtin_popcount(v); }
static inline int __popcll(unsigned long long v) { return __builtin_popcountll(v); }
static inline int __clz(int v) { return v == 0 ? 32 : __builtin_clz((unsigned)v); }
static inline int __clzll(long long v) {
  return v == 0 ? 64 : __builtin_clzll((unsigned long long)v);
}
static inline int __ffs(int v) { return __builtin_ffs(v); }
static inline int __ffsll(long long v) { return __builtin_ffsll(v); }
static inline unsigned int __brev(unsigned int v) {
  v = ((v >> 1) & 0x55555555u) | ((v & 0x55555555u) << 1);
  v = ((v >> 2) & 0x33333333u) | ((v & 0x33333333u) << 2);
  v = ((v >> 4) & 0x0F0F0F0Fu) | ((v & 0x0F0F0F0Fu) << 4);
  v = ((v >> 8) & 0x00FF00FFu) | ((v & 0x00FF00FFu) << 8);
  return (v >> 16) | (v << 16);
}
static inline int __mulhi(int a, int b) { return (int)(((long long)a * b) >> 32); }
static inline unsigned int __umulhi(unsigned int a, unsigned int b) {
  return (unsigned int)(((unsigned long long)a * b) >> 32);
}
static inline long long __mul64hi(long long a, long long b) {
  return (long long)(((__int128)a * b) >> 64);
}
static inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
  return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
static inline int __mul24(int a, int b) {
  return (int)(((long long)(a << 8 >> 8) * (long long)(b << 8 >> 8)));
}
static inline unsigned int __umul24(unsigned int a, unsigned int b) {
  return (a & 0xFFFFFFu) * (b & 0xFFFFFFu);
}
template <class T>
static inline T __ldg(const T* p) {
  return *p;
}

// ---------------------------------------------------------------------------------------------
// Atomics: exactly CUDA's overloads; real atomics, since blocks run on several OS threads.
// ---------------------------------------------------------------------------------------------
#define AGPU_ATOMIC_INT(T)                                                                    \
  static inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_RELAXED); } \
  static inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_RELAXED); } \
  static inline T atomicCAS(T* p, T expected, T desired) {                                    \
    __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_RELAXED,               \
                                __ATOMIC_RELAXED);                                            \
    return expected;                                                                          \
  }
#define AGPU_ATOMIC_BITS(T)                                                                   \
  static inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_RELAXED); } \
  static inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_RELAXED); }   \
  static inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_RELAXED); } \
  static inline T atomicMin(T* p, T v) {                                                      \
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                             \
    while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED,        \
                                                   __ATOMIC_RELAXED)) {                       \
    }                                                                                         \
    return old;                                                                               \
  }                                                                                           \
  static inline T atomicMax(T* p, T v) {                                                      \
    T old = __atomic_load_n(p, __ATOMIC_RELAXED);                                             \
    while (v > old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_RELAXED,        \
                                                   __ATOMIC_RELAXED)) {                       \
    }                                                                                         \
    return old;                                                                               \
  }
AGPU_ATOMIC_INT(int)
AGPU_ATOMIC_INT(unsigned int)
AGPU_ATOMIC_INT(unsigned long long)
AGPU_ATOMIC_BITS(int)
AGPU_ATOMIC_BITS(unsigned int)
AGPU_ATOMIC_BITS(long long)
AGPU_ATOMIC_BITS(unsigned long long)
#undef AGPU_ATOMIC_INT
#undef AGPU_ATOMIC_BITS
static inline int atomicSub(int* p, int v) { return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED); }
static inline unsigned int atomicSub(unsigned int* p, unsigned int v) {
  return __atomic_fetch_sub(p, v, __ATOMIC_RELAXED);
}
static inline unsigned int atomicInc(unsigned int* p, unsigned int limit) {
  unsigned int old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(p, &old, old >= limit ? 0u : old + 1u, true,
                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}
static inline unsigned int atomicDec(unsigned int* p, unsigned int limit) {
  unsigned int old = __atomic_load_n(p, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(p, &old, (old == 0u || old > limit) ? limit : old - 1u,
                                      true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return old;
}

// Floating point read-modify-write through a compare-and-swap on the bits.
template <class F, class Bits, class Op>
static inline F agpu_atomic_float(F* p, Op op) {
  Bits* bits = reinterpret_cast<Bits*>(p);
  Bits old = __atomic_load_n(bits, __ATOMIC_RELAXED);
  while (!__atomic_compare_exchange_n(bits, &old, agpu_bit_cast<Bits>(op(agpu_bit_cast<F>(old))),
                                      true, __ATOMIC_RELAXED, __ATOMIC_RELAXED)) {
  }
  return agpu_bit_cast<F>(old);
}
static inline float atomicAdd(float* p, float v) {
  return agpu_atomic_float<float, uint32_t>(p, [v](float old) { return old + v; });
}
static inline double atomicAdd(double* p, double v) {
  return agpu_atomic_float<double, uint64_t>(p, [v](double old) { return old + v; });
}
static inline float atomicExch(float* p, float v) {
  return agpu_bit_cast<float>(
      __atomic_exchange_n(reinterpret_cast<uint32_t*>(p), agpu_bit_cast<uint32_t>(v),
                          __ATOMIC_RELAXED));
}
