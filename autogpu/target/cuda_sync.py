"""`agpu.atomic_update` and `agpu.critical` as CUDA C, for the kernel emitter.

`agpu.atomic_update` → a compare-and-swap loop on the bits of the element (CUDA's `atomicCAS`
exists for 32- and 64-bit unsigned words): read the current bits, compute the new value from
them with the op's region, swap if the element still holds what was read, else retry with what
it holds now. An 8- or 16-bit element is swapped as part of the aligned 32-bit word that holds
it, only its bits changed (an update of a neighbouring element makes the swap fail and retry).
A read (the region yields its argument) is one volatile load, which is atomic
for an aligned 32- or 64-bit word.

`agpu.critical` → a spin lock per name, a `__device__ int` (0: free), taken with `atomicCAS`:

    for (bool done = false; !done;) {
      if (*(volatile int *)&agpu_lock == 0 && atomicCAS(&agpu_lock, 0, 1) == 0) {  // held
        __threadfence(); body; __threadfence();
        atomicExch(&agpu_lock, 0);
        done = true;
      } else { __nanosleep(backoff); backoff = min(2 * backoff, 32768); }
    }

The body runs inside the loop, on the path of the thread that won the lock, never after it: a
thread that lost does not wait for the winner at a point where their paths would have to
reconverge, which is what deadlocks a plain `while (atomicCAS(...) != 0) {}` spin followed by
the body on GPUs before sm_70. On sm_70+ independent thread scheduling guarantees every thread
of a diverged warp makes progress (CUDA C++ Programming Guide, "Independent Thread
Scheduling"), so the winner always runs while its warp-mates spin. The fences make what the body
wrote visible to the next holder; waiters read the lock before trying it (a failing `atomicCAS`
would queue in front of the holder's release) and sleep longer each time. It is slow: all
threads of the grid take turns (on an H100, about 70 us per section with 2^20 threads waiting).
"""

from __future__ import annotations

from xdsl.dialects import memref
from xdsl.ir import Operation, SSAValue

from autogpu.dialects.agpu_sync import AtomicUpdateOp, CriticalOp
from autogpu.target.c_expr import Expr, Name
from autogpu.target.c_types import Mode, convert
from autogpu.target.cuda_atomics import AtomicUnsupported, SubwordView, bit_view, subword_view
from autogpu.target.kernel_state import KernelState

LOCK_PREFIX = "agpu_lock"
MAX_BACKOFF_NS = 32768
# Measured on an H100 (699,050 sections by 2^20 threads, one lock): 158 s with a bare atomicCAS
# and at most 1 us of backoff, 50 s reading the lock before trying and sleeping up to 32 us
# (every waiter's CAS otherwise queues in front of the holder's release).


def lock_name(op: CriticalOp) -> str:
    name = op.lock.data
    return f"{LOCK_PREFIX}_{name}" if name else LOCK_PREFIX


class Synchronization(KernelState):
    """Mixin of `KernelEmitter` printing the atomic and critical ops; the emitter provides its
    `KernelState`."""

    def atomic_update(self, op: AtomicUpdateOp) -> None:
        target = self.access(op.memref, op.indices, op)
        element = target.ctype or ""
        used = bool(op.result.uses)
        old = self.scopes.declare(op.result.name_hint or "old") if used else ""
        if op.is_read:
            self.line(f"const {element} {old} = *(volatile {element} *)&{target};")
            self.exprs[op.result] = Name(old, element)
            return
        view = subword_view(element)
        if view is not None:
            self.subword_update(op, target, view, old if used else None)
            return
        try:
            bits, to_bits, from_bits = bit_view(element)
        except AtomicUnsupported as e:
            raise self.fail(op, str(e)) from None
        address = self.scopes.declare("word")
        seen = self.scopes.declare("seen")
        assumed = self.scopes.declare("assumed")
        if used:
            self.line(f"{element} {old};")
        self.line("{")
        with self.nested():
            self.line(f"{bits} *const {address} = ({bits} *)&{target};")
            self.line(f"{bits} {seen} = *(volatile {bits} *){address}, {assumed};")
            self.line("do {")
            with self.nested():
                self.line(f"{assumed} = {seen};")
                current = self.scopes.declare(op.current.name_hint or "current")
                self.line(f"const {element} {current} = {from_bits.format(assumed)};")
                self.exprs[op.current] = Name(current, element)
                terminator = self.block(op.body.block)
                new = convert(self.value(terminator.operands[0], terminator), element,
                              Mode.ASSIGN)  # fmt: skip
                self.line(f"{seen} = atomicCAS({address}, {assumed}, {to_bits.format(new)});")
            self.line(f"}} while ({seen} != {assumed});")
            if used:
                self.line(f"{old} = {from_bits.format(seen)};")
        self.line("}")
        if used:
            self.exprs[op.result] = Name(old, element)

    def subword_update(self, op: AtomicUpdateOp, target: Expr, view: SubwordView,
                       old: str | None) -> None:  # fmt: skip
        """The CAS loop of an 8/16-bit element: on the aligned 32-bit word that holds it,
        changing only its bits (cuda_atomics.SubwordView, as the reductions' helpers do)."""
        element = target.ctype or ""
        address, word, shift, mask, seen, assumed = (self.scopes.declare(name) for name in (
            "address", "word", "shift", "mask", "seen", "assumed"))  # fmt: skip
        if old is not None:
            self.line(f"{element} {old};")
        self.line("{")
        with self.nested():
            self.line(f"{element} *const {address} = &{target};")
            self.line(f"unsigned *const {word} = {view.word(address)};")
            self.line(f"const unsigned {shift} = {view.shift(address)};")
            self.line(f"const unsigned {mask} = {view.mask(shift)};")
            self.line(f"unsigned {seen} = *(volatile unsigned *){word}, {assumed};")
            self.line("do {")
            with self.nested():
                self.line(f"{assumed} = {seen};")
                current = self.scopes.declare(op.current.name_hint or "current")
                self.line(f"const {element} {current} = "
                          f"({element})({view.extract(assumed, mask, shift)});")  # fmt: skip
                self.exprs[op.current] = Name(current, element)
                terminator = self.block(op.body.block)
                new = convert(self.value(terminator.operands[0], terminator), element,
                              Mode.ASSIGN)  # fmt: skip
                self.line(f"{seen} = atomicCAS({word}, {assumed}, "
                          f"{view.insert(assumed, str(new), mask, shift)});")  # fmt: skip
            self.line(f"}} while ({seen} != {assumed});")
            if old is not None:
                self.line(f"{old} = ({element})({view.extract(seen, mask, shift)});")
        self.line("}")
        if old is not None:
            self.exprs[op.result] = Name(old, element)

    def critical(self, op: CriticalOp) -> None:
        lock = lock_name(op)
        self.helpers[f"lock {lock}"] = (
            f"// #pragma omp critical{f' ({op.lock.data})' if op.lock.data else ''}: "
            f"0 when free\n__device__ int {lock};"
        )
        done = self.scopes.declare("done")
        backoff = self.scopes.declare("backoff")
        self.line(f"// #pragma omp critical: one thread at a time ({lock})")
        self.line(f"unsigned {backoff} = 32;")
        self.line(f"for (bool {done} = false; !{done};) {{")
        with self.nested():
            self.line(f"if (*(volatile int *)&{lock} == 0 && atomicCAS(&{lock}, 0, 1) == 0) {{")
            with self.nested():
                self.line("__threadfence();")
                self.block(op.body.block)
                self.line("__threadfence();")
                self.line(f"atomicExch(&{lock}, 0);")
                self.line(f"{done} = true;")
            self.line("} else {")
            with self.nested():
                self.line(f"__nanosleep({backoff});")
                self.line(f"{backoff} = {backoff} < {MAX_BACKOFF_NS} ? 2 * {backoff} : "
                          f"{MAX_BACKOFF_NS};")  # fmt: skip
            self.line("}")
        self.line("}")


SYNC_WRITERS = (AtomicUpdateOp, CriticalOp)
"""Ops that write memory or synchronise: no load may move across them."""


def writes_to(op: Operation, ref: SSAValue) -> bool:
    return isinstance(op, AtomicUpdateOp | memref.AtomicRMWOp) and op.memref is ref
