"""One `gpu.func ... kernel` → one `extern "C" __global__` CUDA function.

Readability rules: a pure value (or a load) used once, by an op of the same block, with no
store, barrier or writing loop/branch between them, is inlined into its user as an expression;
names, literals and `threadIdx.x`-like builtins are inlined everywhere; every other value gets a
`const T name = ...;` named after its name hint. Loop-carried values, `scf.if` results and
`scf.while` results become mutable variables assigned at the end of their region.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from contextlib import contextmanager

from xdsl.dialects import gpu, memref, scf
from xdsl.dialects.arith import CMPI_COMPARISON_OPERATIONS
from xdsl.dialects.builtin import IntegerAttr, MemRefType
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.utils.hints import isa

from autogpu.diagnostics import CompileError, location_of
from autogpu.dialects.agpu_combine import ShuffleDownOp, ThreadFenceOp
from autogpu.dialects.agpu_sync import AtomicUpdateOp, CriticalOp
from autogpu.dialects.agpu_vector import (
    ALIGN_ATTR,
    AsyncCopyOp,
    AsyncWaitOp,
    VectorLoadOp,
    VectorStoreOp,
    vector_bytes,
    vector_type,
)
from autogpu.dialects.signature import CParameter, CSignature, resolve
from autogpu.target.c_expr import Binary, Call, Expr, Index, IntLiteral, Name
from autogpu.target.c_names import RESERVED, Scopes
from autogpu.target.c_types import (
    Mode,
    UnsupportedType,
    convert,
    ctype_of,
    ir_width,
    is_float_type,
    width,
)
from autogpu.target.cuda_atomics import ATOMIC_KINDS, AtomicUnsupported, atomic_call
from autogpu.target.cuda_control import INDENT, ControlFlow
from autogpu.target.cuda_exprs import (
    Unsupported,
    build_expression,
    is_expression_op,
    needs_atomic_operands,
    pair,
)
from autogpu.target.cuda_limits import DYNAMIC_BASE_ATTR, DYNAMIC_OFFSET_ATTR, MIN_BLOCKS_ATTR
from autogpu.target.cuda_memory import (
    Memory,
    identity_layout,
    is_global,
    is_workgroup,
)
from autogpu.target.cuda_sync import SYNC_WRITERS, Synchronization, writes_to

# Uses under which a value computed as `unsigned` is best declared `unsigned` (rather than
# converted back to `int`): unsigned ops and ops that wrap the same either way.
DYNAMIC_SHARED = "agpu_dynamic_shared"
"""The bytes of a kernel's dynamic shared memory (`extern __shared__`)."""
_UNSIGNED_FRIENDLY = frozenset(
    """
    arith.divui arith.remui arith.shrui arith.minui arith.maxui arith.uitofp arith.extui
    arith.ceildivui arith.index_castui arith.addi arith.subi arith.muli arith.andi arith.ori
    arith.xori arith.shli math.ctpop memref.store
    """.split()
)


class KernelEmitter(Synchronization, ControlFlow):
    """Prints one kernel: its signature, then its body block by block."""

    def __init__(
        self,
        func: gpu.FuncOp,
        helpers: dict[str, str],
        globals: dict[str, Memory] | None = None,
    ):
        self.func = func
        self.name = func.sym_name.data
        self.helpers = helpers
        self.globals = globals or {}
        self.scopes = Scopes(RESERVED | frozenset(self.globals))
        self.exprs: dict[SSAValue, Expr] = {}
        self.memories: dict[SSAValue, Memory] = {}
        self.inline: set[SSAValue] = set()
        self.region_writes: dict[Operation, int] = {}  # see writes()
        self.lines: list[str] = []
        self.depth = 1
        self.done: set[Operation] = set()  # ops printed ahead of their turn
        self.dynamic_declared = False  # the `extern __shared__` buffer (declare_dynamic_buffer)

    # --- errors ----------------------------------------------------------------------------

    def fail(self, op: Operation | None, why: str = "") -> CompileError:
        what = f"'{op.name}'" if op is not None else "this"
        detail = f" ({why})" if why else ""
        return CompileError(
            f"cuda target: cannot print {what}{detail} in gpu.func @{self.name}",
            location_of(op or self.func),
        )

    # --- output ----------------------------------------------------------------------------

    def line(self, text: str) -> None:
        self.lines.append(INDENT * self.depth + text)

    @contextmanager
    def nested(self) -> Generator[None]:
        """A C block: one more indent level and a scope of its own."""
        self.depth += 1
        self.scopes.push()
        try:
            yield
        finally:
            self.scopes.pop()
            self.depth -= 1

    @contextmanager
    def capture(self) -> Generator[list[str]]:
        """Collect the lines printed inside instead of appending them."""
        saved, self.lines = self.lines, []
        captured = self.lines
        try:
            yield captured
        finally:
            self.lines = saved

    # --- the function ----------------------------------------------------------------------

    def emit(self) -> str:
        func = self.func
        if len(func.body.blocks) != 1:
            raise self.fail(func, "a kernel of more than one block")
        block = func.body.block
        inputs = func.function_type.inputs.data
        signature = CSignature.of(self.func).params
        params = [self.param(p, arg) for p, arg in zip(signature, block.args[: len(inputs)])]
        shared = [self.attribution(arg) for arg in block.args[len(inputs) :]]
        bounds = ""
        if func.known_block_size is not None:
            threads = 1
            for size in func.known_block_size.get_values():
                threads *= size
            blocks = func.attributes.get(MIN_BLOCKS_ATTR)
            if isinstance(blocks, IntegerAttr):
                bounds = f"__launch_bounds__({threads}, {blocks.value.data}) "
            else:
                bounds = f"__launch_bounds__({threads}) "
        header = f'extern "C" __global__ void {bounds}{self.name}({", ".join(params)}) {{'
        for declaration in shared:
            self.line(declaration)
        if DYNAMIC_BASE_ATTR in func.attributes:  # arrays carved out of it (gpu-dynamic-shared)
            self.declare_dynamic_buffer()
        terminator = self.block(block)
        if not isinstance(terminator, gpu.ReturnOp):
            raise self.fail(terminator, "a kernel must end with gpu.return")
        return "\n".join([header, *self.lines, "}"])

    def param(self, parameter: CParameter, arg: BlockArgument) -> str:
        name = self.scopes.declare(parameter.name)
        spelling = parameter.spelling
        type = arg.type
        if isa(type, MemRefType):
            if not is_global(type.memory_space):
                raise self.fail_param(name, type, f"memory space {type.memory_space}")
            shape = type.get_shape()
            if len(shape) > 1 and any(size < 0 for size in shape):
                raise self.fail_param(name, type, "only static shapes can have several dimensions")
            if not identity_layout(type):
                raise self.fail_param(name, type, f"layout {type.layout}")
            element = self.c_type(type.element_type, spelling, name)
            written = any(_writes_to(u.operation, arg) for u in arg.uses)
            restrict = not written or parameter.restrict
            self.memories[arg] = Memory(Name(name), tuple(shape), element, True)
            const = "" if written else "const "
            return f"{const}{element} *{'__restrict__ ' if restrict else ''}{name}"
        ctype = self.c_type(type, spelling, name)
        self.exprs[arg] = Name(name, ctype)
        return f"{ctype} {name}"

    def attribution(self, arg: BlockArgument) -> str:
        """A workgroup attribution of the gpu.func: a `__shared__` array."""
        type = arg.type
        if not isa(type, MemRefType) or not is_workgroup(type.memory_space):
            raise self.fail(self.func, "a private or non-memref attribution")
        return self.local_array(arg, type, None, shared=True)

    def fail_param(self, name: str, type: Attribute, why: str) -> CompileError:
        return CompileError(
            f"cuda target: cannot print parameter {name} of type {type} ({why}) "
            f"in gpu.func @{self.name}",
            location_of(self.func),
        )

    def c_type(self, type: Attribute, spelling: str | None, param: str) -> str:
        try:
            return resolve(spelling, type).name
        except UnsupportedType:
            raise self.fail_param(param, type, "no C type for it") from None

    # --- blocks ----------------------------------------------------------------------------

    def block(self, block: Block) -> Operation:
        """Print the ops of `block` but its terminator, which the caller handles."""
        self.plan(block)
        ops = list(block.ops)
        for op in ops[:-1]:
            if op not in self.done:
                self.op(op)
        terminator = ops[-1]
        if isinstance(terminator, gpu.ReturnOp) and terminator.parent_block() is not (
            self.func.body.block
        ):
            raise self.fail(terminator, "gpu.return inside a region")
        return terminator

    def plan(self, block: Block) -> None:
        """Decide which values of `block` are inlined into their (single) user."""
        ops = list(block.ops)
        position = {op: i for i, op in enumerate(ops)}
        writes_before = [0]
        for op in ops:
            writes_before.append(writes_before[-1] + self.writes(op))
        reads: dict[SSAValue, bool] = {}
        for i, op in enumerate(ops):
            if not (is_expression_op(op) or isinstance(op, memref.LoadOp) or _is_pure_if(op)):
                continue
            if len(op.results) != 1:
                continue
            result = op.results[0]
            use = result.get_unique_use()
            if use is None or use.operation not in position:
                continue
            user = use.operation
            reading = isinstance(op, memref.LoadOp) or (_is_pure_if(op) and _reads(op))
            reading = reading or any(reads.get(o, False) for o in op.operands if o in self.inline)
            if needs_atomic_operands(user):
                continue
            if _is_widening_cast(user) and not user.results[0].has_one_use():
                # The cast will be declared: declare this value instead and let the (identity)
                # cast alias it, so `const int i = ...;` keeps its name and `A[i]` reads well.
                continue
            if isinstance(user, scf.ForOp) and use.index in (1, 2) and reading:
                continue  # `i < ub` is evaluated every iteration: it must not read memory
            if reading and writes_before[position[user]] != writes_before[i + 1]:
                continue
            self.inline.add(result)
            reads[result] = reading

    def writes(self, op: Operation) -> int:
        """1 if `op` may write memory or synchronise (so no load may move across it). An op
        with regions is looked into once (every block is planned: walking each region op's
        whole body again would be quadratic in the nesting depth)."""
        if isinstance(op, _WRITERS):
            return 1
        if op.regions and op not in self.region_writes:
            inner = (o for region in op.regions for block in region.blocks for o in block.ops)
            self.region_writes[op] = int(any(self.writes(o) for o in inner))
        return self.region_writes.get(op, 0)

    def value(self, value: SSAValue, user: Operation) -> Expr:
        expr = self.exprs.get(value)
        if expr is None:
            raise self.fail(user, f"operand {value.name_hint or ''} of type {value.type}")
        return expr

    def bind(self, result: SSAValue, expr: Expr) -> None:
        """Make `expr` the C form of `result`: inline, or declared as a named constant."""
        named_builtin = isinstance(expr, Name) and not expr.is_variable and result.name_hint
        if (expr.is_atomic() and not named_builtin) or result in self.inline:
            self.exprs[result] = expr
            return
        if not result.uses:
            return  # dead and side-effect free
        ctype = self.declared_type(result, expr)
        name = self.scopes.declare(result.name_hint)
        self.line(f"const {ctype} {name} = {convert(expr, ctype, Mode.ASSIGN)};")
        self.exprs[result] = Name(name, ctype)

    def declared_type(self, result: SSAValue, expr: Expr) -> str:
        canonical = ctype_of(result.type)
        if expr.ctype is None or expr.ctype == canonical or is_float_type(result.type):
            return canonical
        if width(expr.ctype) == ir_width(result.type) and all(
            _unsigned_friendly(use.operation) for use in result.uses
        ):
            return expr.ctype
        return canonical

    # --- ops -------------------------------------------------------------------------------

    def op(self, op: Operation) -> None:
        if is_expression_op(op):
            operands = [self.value(o, op) for o in op.operands]
            try:
                expr = build_expression(op, operands, self.helpers)
            except (Unsupported, UnsupportedType) as e:
                raise self.fail(op, str(e)) from None
            self.bind(op.results[0], expr)
        elif isinstance(op, memref.LoadOp):
            self.bind(op.res, self.access(op.memref, op.indices, op))
        elif isinstance(op, memref.StoreOp):
            target = self.access(op.memref, op.indices, op)
            value = convert(self.value(op.value, op), target.ctype or "", Mode.ASSIGN)
            self.line(f"{target} = {value};")
        elif isinstance(op, memref.AllocaOp):
            self.alloca(op)
        elif isinstance(op, memref.GetGlobalOp):
            self.get_global(op)
        elif isinstance(op, memref.AtomicRMWOp):
            self.atomic(op)
        elif isinstance(op, AtomicUpdateOp):
            self.atomic_update(op)
        elif isinstance(op, CriticalOp):
            self.critical(op)
        elif isinstance(op, gpu.BarrierOp):
            self.line("__syncthreads();")
        elif isinstance(op, ShuffleDownOp):
            self.shuffle_down(op)
        elif isinstance(op, VectorLoadOp):
            self.vector_load(op)
        elif isinstance(op, VectorStoreOp):
            self.vector_store(op)
        elif isinstance(op, AsyncCopyOp):
            self.async_copy(op)
        elif isinstance(op, AsyncWaitOp):
            for text in ("#if __CUDA_ARCH__ >= 800",
                         'asm volatile("cp.async.wait_all;\\n" ::: "memory");', "#endif"):
                self.line(text)
        elif isinstance(op, ThreadFenceOp):
            self.line("__threadfence();")
        elif isinstance(op, scf.ForOp):
            self.for_loop(op)
        elif isinstance(op, scf.IfOp):
            self.if_op(op)
        elif isinstance(op, scf.WhileOp):
            self.while_loop(op)
        elif isinstance(op, gpu.ReturnOp):
            self.line("return;")
        else:
            raise self.fail(op)

    # --- memory ----------------------------------------------------------------------------

    def alloca(self, op: memref.AllocaOp) -> None:
        type = op.memref.type
        assert isinstance(type, MemRefType)
        shared = is_workgroup(type.memory_space)
        if op.dynamic_sizes and shared and len(type.get_shape()) == 1:
            self.dynamic_shared(op, type)
            return
        offset = op.attributes.get(DYNAMIC_OFFSET_ATTR)
        if shared and isinstance(offset, IntegerAttr) and not op.dynamic_sizes:
            self.carved_shared(op, type, offset.value.data)
            return
        if op.dynamic_sizes:
            raise self.fail(op, "dynamic size")
        if not shared and not is_global(type.memory_space):
            raise self.fail(op, f"memory space {type.memory_space}")
        declaration = self.local_array(op.memref, type, op, shared=shared)
        initial = None if shared or type.get_shape() else self.initial_store(op)
        if initial is not None:
            value = convert(self.value(initial.value, initial), self.memories[op.memref].element,
                            Mode.ASSIGN)
            declaration = f"{declaration[:-1]} = {value};"
            self.done.add(initial)
        self.line(declaration)

    def dynamic_shared(self, op: memref.AllocaOp, type: MemRefType) -> None:
        """A block's array of run-time length (one per kernel: the launch gives its bytes):
        the kernel's dynamic shared memory, declared as bytes (every kernel of the module
        names the same extern array) and read as the element type."""
        try:
            element = ctype_of(type.element_type)
        except UnsupportedType:
            raise self.fail(op, f"type {type.element_type}") from None
        if any(memory.shape == (-1,) for memory in self.memories.values()):
            raise self.fail(op, "a second array in dynamic shared memory")
        name = self.scopes.declare(op.memref.name_hint)
        self.memories[op.memref] = Memory(Name(name), (-1,), element, False)
        self.declare_dynamic_buffer()
        base = self.func.attributes.get(DYNAMIC_BASE_ATTR)  # after the carved arrays
        start = f" + {base.value.data}" if isinstance(base, IntegerAttr) else ""
        self.line(f"{element}* const {name} = "
                  f"reinterpret_cast<{element}*>({DYNAMIC_SHARED}{start});")

    def declare_dynamic_buffer(self) -> None:
        """`extern __shared__` bytes, once per kernel: the arrays in it are pointers."""
        if self.dynamic_declared:
            return
        self.dynamic_declared = True
        self.line(f"extern __shared__ __align__(16) unsigned char {DYNAMIC_SHARED}[];")

    def carved_shared(self, op: memref.AllocaOp, type: MemRefType, offset: int) -> None:
        """A fixed-size shared array at `offset` bytes into the dynamic buffer
        (gpu-dynamic-shared aligned it): a pointer, addressed as the array was."""
        if not identity_layout(type):
            raise self.fail(op, f"layout {type.layout}")
        try:
            element = ctype_of(type.element_type)
        except UnsupportedType:
            raise self.fail(op, f"type {type.element_type}") from None
        self.declare_dynamic_buffer()
        name = self.scopes.declare(op.memref.name_hint)
        self.memories[op.memref] = Memory(Name(name), tuple(type.get_shape()), element, True)
        self.line(f"{element}* const {name} = "
                  f"reinterpret_cast<{element}*>({DYNAMIC_SHARED} + {offset});")

    def initial_store(self, op: memref.AllocaOp) -> memref.StoreOp | None:
        """The store right after a scalar variable's alloca (past constants only), which the
        declaration can do: `float s = 0.0f;`."""
        following = op.next_op
        constants: list[Operation] = []
        while following is not None and following.name == "arith.constant":
            constants.append(following)
            following = following.next_op
        if not (isinstance(following, memref.StoreOp) and following.memref is op.memref):
            return None
        if following.value not in self.exprs and following.value.owner not in constants:
            return None
        for constant in constants:
            self.op(constant)
            self.done.add(constant)
        return following

    def get_global(self, op: memref.GetGlobalOp) -> None:
        name = op.name_.string_value()
        memory = self.globals.get(name)
        if memory is None:
            raise self.fail(op, f"no memref.global @{name} in the gpu.module")
        self.memories[op.memref] = memory

    def atomic(self, op: memref.AtomicRMWOp) -> None:
        kind_index = op.kind.value.data
        if not 0 <= kind_index < len(ATOMIC_KINDS):
            raise self.fail(op, f"atomic kind {kind_index}")
        target = self.access(op.memref, op.indices, op)
        try:
            expr = atomic_call(
                ATOMIC_KINDS[kind_index],
                target.ctype or "",
                target,
                self.value(op.value, op),
                self.helpers,
            )
        except AtomicUnsupported as e:
            raise self.fail(op, str(e)) from None
        if op.result.uses:
            ctype = self.declared_type(op.result, expr)
            name = self.scopes.declare(op.result.name_hint or "old")
            self.line(f"const {ctype} {name} = {convert(expr, ctype, Mode.ASSIGN)};")
            self.exprs[op.result] = Name(name, ctype)
        else:
            self.line(f"{expr};")

    def shuffle_down(self, op: ShuffleDownOp) -> None:
        """`const T name = __shfl_down_sync(0xffffffffu, v, offset);`: a statement where the
        op is, never an inlined expression, since the whole warp must execute it together."""
        try:
            ctype = ctype_of(op.result.type)
        except UnsupportedType:
            raise self.fail(op, f"type {op.result.type}") from None
        value = convert(self.value(op.value, op), ctype, Mode.ASSIGN)
        mask = Name("0xffffffffu", "unsigned int", is_variable=False)
        call = Call("__shfl_down_sync", (mask, value, IntLiteral(op.lanes, "int")), ctype)
        name = self.scopes.declare(op.result.name_hint or "down")
        self.line(f"const {ctype} {name} = {call.render()};")
        self.exprs[op.result] = Name(name, ctype)

    def vector_address(self, op: VectorLoadOp | VectorStoreOp) -> tuple[str, str]:
        """The vector type of the access and its address, `&mem[index]`."""
        type = op.memref.type
        assert isa(type, MemRefType)
        vector = vector_type(type.element_type, len(op.values))
        assert vector is not None  # the op's verifier
        return vector, f"&{self.access(op.memref, [op.index], op).render()}"

    def vector_load(self, op: VectorLoadOp) -> None:
        """`const float4 v = *reinterpret_cast<const float4 *>(&mem[i]);`, its results `v.x`,
        `v.y`, ... (one LDS.128/LDG.128 where four scalar loads were); `checked`: through
        `const float *v_at = &mem[i];`, read as a vector where `v_at` is aligned, else as
        `make_float4(v_at[0], ..., v_at[3])`."""
        vector, address = self.vector_address(op)
        name = self.scopes.declare(op.values[0].name_hint or "vec")
        element = self.memories[op.memref].element
        if op.checked is not None:  # aligned: one access; else element by element
            type = op.memref.type
            assert isa(type, MemRefType)
            size = vector_bytes(type.element_type, len(op.values))
            pointer = self.scopes.declare(f"{name}_at")
            self.line(f"const {element} *{pointer} = {address};")
            scalars = ", ".join(f"{pointer}[{q}]" for q in range(len(op.values)))
            self.line(f"const {vector} {name} = reinterpret_cast<unsigned long long>({pointer}) "
                      f"% {size} == 0 ? *reinterpret_cast<const {vector} *>({pointer}) : "
                      f"make_{vector}({scalars});")
        else:
            self.line(f"const {vector} {name} = *reinterpret_cast<const {vector} *>({address});")
        for value, lane in zip(op.values, "xyzw"):
            self.exprs[value] = Name(f"{name}.{lane}", element)

    def vector_store(self, op: VectorStoreOp) -> None:
        """`*reinterpret_cast<float4 *>(&mem[i]) = make_float4(a, b, c, d);`."""
        vector, address = self.vector_address(op)
        element = self.memories[op.memref].element
        values = ", ".join(
            convert(self.value(v, op), element, Mode.ASSIGN).render() for v in op.values
        )
        self.line(f"*reinterpret_cast<{vector} *>({address}) = make_{vector}({values});")

    def async_copy(self, op: AsyncCopyOp) -> None:
        """`cp.async` of one element (sm_80+): `dst[i] = src[j]` without a register; before
        sm_80, and in the CPU emulation (g++, no __CUDA_ARCH__), a plain copy."""
        dst = self.access(op.dst, [op.dst_index], op).render()
        src = self.access(op.src, [op.src_index], op).render()
        type = op.dst.type
        assert isa(type, MemRefType)
        size = vector_bytes(type.element_type, 1)
        for text in (
                "#if __CUDA_ARCH__ >= 800",
                f'asm volatile("cp.async.ca.shared.global [%0], [%1], {size};\\n" :: '
                f'"r"((unsigned)__cvta_generic_to_shared(&{dst})), "l"(&{src}) : "memory");',
                "#else", f"{dst} = {src};", "#endif"):
            self.line(text)

    def local_array(
        self, value: SSAValue, type: MemRefType, op: Operation | None, *, shared: bool
    ) -> str:
        shape = type.get_shape()
        if any(size < 0 for size in shape):
            raise self.fail(op or self.func, f"dynamic {type}")
        if not identity_layout(type):
            raise self.fail(op or self.func, f"layout {type.layout}")
        try:
            element = ctype_of(type.element_type)
        except UnsupportedType:
            raise self.fail(op or self.func, f"type {type.element_type}") from None
        name = self.scopes.declare(value.name_hint)
        self.memories[value] = Memory(Name(name), shape, element, False)
        extents = "".join(f"[{size}]" for size in shape)
        align = op.attributes.get(ALIGN_ATTR) if op is not None else None
        aligned = f"__align__({align.value.data}) " if isinstance(align, IntegerAttr) else ""
        return f"{'__shared__ ' if shared else ''}{aligned}{element} {name}{extents};"

    def access(self, ref: SSAValue, indices: Sequence[SSAValue], op: Operation) -> Expr:
        memory = self.memories.get(ref)
        if memory is None:
            raise self.fail(op, f"memref {ref.name_hint or ''} not from a parameter or alloca")
        subscripts = [self.value(i, op) for i in indices]
        if not memory.shape:
            if memory.is_pointer:
                return Index(memory.base, (IntLiteral(0),), memory.element)
            return Name(memory.base.render(), memory.element)
        if memory.is_pointer and len(subscripts) > 1:
            flat = subscripts[0]
            for subscript, size in zip(subscripts[1:], memory.shape[1:]):
                scaled = Binary("*", *pair(flat, IntLiteral(size), "long long"), "long long")
                flat = Binary("+", *pair(scaled, subscript, "long long"), "long long")
            subscripts = [flat]
        return Index(memory.base, tuple(subscripts), memory.element)


_WRITERS = (memref.StoreOp, memref.AtomicRMWOp, gpu.BarrierOp, ShuffleDownOp, ThreadFenceOp,
            VectorStoreOp, AsyncCopyOp, AsyncWaitOp, *SYNC_WRITERS)


def _writes_to(user: Operation, ref: SSAValue) -> bool:
    if isinstance(user, memref.StoreOp | VectorStoreOp):
        return user.memref is ref
    if isinstance(user, AsyncCopyOp):
        return user.dst is ref
    return writes_to(user, ref)


def _reads(op: Operation) -> bool:
    return any(isinstance(o, memref.LoadOp) for o in op.walk())


def _is_widening_cast(op: Operation) -> bool:
    if op.name not in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui"):
        return False
    try:
        return ir_width(op.results[0].type) > ir_width(op.operands[0].type)
    except UnsupportedType:
        return False


def _is_pure_if(op: Operation) -> bool:
    """An scf.if computing one value from pure ops and loads only: may become `c ? a : b`."""
    if not isinstance(op, scf.IfOp) or len(op.output) != 1 or not op.false_region.blocks:
        return False
    for inner in op.walk():
        if inner is op or isinstance(inner, scf.YieldOp | memref.LoadOp):
            continue
        if not is_expression_op(inner) or inner.regions:
            return False
    return True


def _unsigned_friendly(user: Operation) -> bool:
    if user.name in _UNSIGNED_FRIENDLY:
        return True
    if user.name == "arith.cmpi":
        predicate = user.properties["predicate"]
        assert isinstance(predicate, IntegerAttr)
        return CMPI_COMPARISON_OPERATIONS[predicate.value.data].startswith(("u", "e", "n"))
    return False
