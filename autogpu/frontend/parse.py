"""Parsing: preprocessed text -> lark tree (c.lark, LALR) -> the AST of `ast.py`.

Syntax errors become located `CompileError`s that say what was expected. Every AST node gets
the user's (line, column), mapped back through macro substitution.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import cast

from lark import Lark, Token, v_args  # pyright: ignore[reportUnknownVariableType]  # lark types its wrapper parameter as a bare Callable
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken, VisitError
from lark.tree import Meta
from lark.visitors import Transformer_NonRecursive

from autogpu.diagnostics import CompileError, located
from autogpu.dialects import c_math
from autogpu.dialects.signature import c_type
from autogpu.frontend import ast
from autogpu.frontend.preprocess import Preprocessed
from autogpu.frontend.types import (
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    ULONG,
    LiteralError,
    Scalar,
    float_literal,
    int_literal,
    scalar_of,
)

GRAMMAR = Path(__file__).with_name("c.lark")

# An error at a (line, column) of the preprocessed text, located in the user's source.
Error = Callable[[str, int, int], CompileError]

# Keywords and common extensions outside the subset, each with what to do instead. They are
# lexed as names and rejected as soon as the lexer meets them.
UNSUPPORTED_KEYWORDS = {
    "goto": "'goto' is not supported: structure the code with loops and if/else",
    "break": "'break' is not supported: express the exit in the loop condition",
    "continue": "'continue' is not supported: guard the rest of the loop body with 'if'",
    "switch": "'switch' is not supported: use if/else",
    "case": "'case' is not supported: use if/else instead of switch",
    "default": "'default' is not supported: use if/else instead of switch",
    "struct": "structs are not supported: pass each field as its own array or scalar parameter",
    "union": "unions are not supported: pass each member as its own parameter",
    "enum": "enums are not supported: use #define constants",
    "typedef": "typedefs are not supported: write the type out (or use #define)",
    "sizeof": "'sizeof' is not supported: kernels index arrays by element, not by byte",
    "extern": "'extern' is not supported: kernels are self-contained functions",
    "register": "'register' is not supported: drop it",
    "auto": "'auto' is not supported: write the type out",
    "asm": "inline assembly is not supported: write the computation in C",
    "__asm__": "inline assembly is not supported: write the computation in C",
    "_Complex": "complex numbers are not supported: keep the real and imaginary parts in two "
                "arrays (or two scalars) and write out the arithmetic",
    "_Imaginary": "complex numbers are not supported: keep the real and imaginary parts in two "
                  "arrays (or two scalars) and write out the arithmetic",
    "__attribute__": "attributes are not supported: drop them",
    "_Pragma": "'_Pragma' is not supported: write #pragma on its own line",
    "__global__": "CUDA qualifiers are not supported: write the serial C loop nest instead",
    "__device__": "CUDA qualifiers are not supported: write the serial C loop nest instead",
    "__shared__": "CUDA qualifiers are not supported: write the serial C loop nest instead",
}


_VOLATILE = ("'volatile' is not supported: drop it (a kernel's memory is not shared with "
             "hardware or signal handlers; threads that share data use OpenMP atomics)")


class _Keyword(Exception):
    """Raised from the lexer callback (no source text at hand there); becomes a CompileError."""

    def __init__(self, token: Token):
        self.token = token


def _reject_keyword(token: Token) -> Token:
    if token.value in UNSUPPORTED_KEYWORDS:
        raise _Keyword(token)
    return token


@cache
def _parser() -> Lark:
    return Lark(
        GRAMMAR.read_text(),
        parser="lalr",
        lexer="basic",
        propagate_positions=True,
        maybe_placeholders=True,
        lexer_callbacks={"NAME": _reject_keyword},
        cache=True,
    )


def parse_text(pre: Preprocessed, source: str, filename: str) -> ast.TranslationUnit:
    """Parses preprocessed text; errors are located in `source` (the user's text)."""

    def error(message: str, line: int, column: int) -> CompileError:
        line, column = pre.original(line, column)
        return located(message, filename, source, line, column)

    try:
        tree = _parser().parse(pre.text)  # pyright: ignore[reportUnknownMemberType]  # lark's LarkInput holds a TextSlice without its parameter
    except _Keyword as e:
        line, column = _token_position(pre.text, e.token)
        raise error(UNSUPPORTED_KEYWORDS[e.token.value], line, column) from None
    except UnexpectedInput as e:
        raise _syntax_error(e, pre, error) from None
    try:
        return _to_ast(pre, error).transform(tree)
    except VisitError as e:
        if isinstance(e.orig_exc, CompileError):
            raise e.orig_exc from None
        raise


# ---- syntax errors ----------------------------------------------------------------------------

_READABLE = {"NAME": "an identifier", "INT_LIT": "a number", "FLOAT_LIT": "a number"}
_EXPRESSION_STARTS = {"NAME", "INT_LIT", "FLOAT_LIT", "LPAR"}
_CLOSERS = ("SEMICOLON", "RPAR", "RSQB", "RBRACE", "COLON")


def _describe(token: Token) -> str:
    if token.type == "$END":
        return "end of input"
    return f"'{token.value}'"


def _syntax_error(e: UnexpectedInput, pre: Preprocessed, error: Error) -> CompileError:
    if isinstance(e, UnexpectedCharacters):
        position = cast(int, e.pos_in_stream)  # pyright: ignore[reportUnknownMemberType]  # lark leaves it untyped (the lexer's position)
        char = pre.text[position]
        if char in "\"'":
            message, back = _literal_refusal(pre.text[:position], char)
            return error(message, e.line, e.column - back)
        return error(f"unexpected character '{char}'", e.line, e.column)
    assert isinstance(e, UnexpectedToken)
    token = cast(Token, e.token)  # pyright: ignore[reportUnknownMemberType]  # lark leaves it untyped
    previous = _previous_token(pre.text, token)
    line, column = _token_position(pre.text, token)
    expected = set(e.expected)
    if (
        previous is not None
        and previous.type in ("INT_LIT", "FLOAT_LIT")
        and token.start_pos == previous.end_pos
    ):
        kind = "integer" if previous.type == "INT_LIT" else "floating"
        return error(f"invalid suffix '{token.value}' on {kind} literal '{previous.value}'",
                     *_place(token))  # fmt: skip
    unknown_type = None
    if token.type == "NAME" and previous is not None and previous.type == "NAME":
        unknown_type = previous
    elif token.type == "NAME" and _next_token(pre.text, token) in ("NAME", "STAR"):
        unknown_type = token
    if unknown_type is not None:
        return error(
            f"unknown type name '{unknown_type.value}': the supported types are void, _Bool, "
            "char, short, int, long (signed or unsigned), float, double and the names of "
            "<stdbool.h>, <stddef.h> and <stdint.h> (bool, size_t, ptrdiff_t, int8_t ... "
            "uint64_t, intptr_t, uintptr_t)",
            *_place(unknown_type),
        )
    terminals = {t.name: t.pattern.value for t in _parser().terminals}
    if token.type == "$END" and previous is not None:
        closer = "'}'" if "RBRACE" in expected else "more input"
        return error(f"expected {closer} at end of input", *_end(previous))
    for closer in _CLOSERS:
        if closer in expected and not (_EXPRESSION_STARTS & expected and closer != "SEMICOLON"):
            what = f"expected '{terminals[closer]}' before {_describe(token)}"
            if previous is not None and closer in ("SEMICOLON", "RPAR"):
                # Like clang: point just after the token the ';' or ')' should follow.
                return error(what, *_end(previous))
            return error(what, line, column)
    if _EXPRESSION_STARTS <= expected:
        return error(f"expected an expression before {_describe(token)}", line, column)
    if expected == {"NAME"} or ("NAME" in expected and "INT_LIT" not in expected):
        return error(f"expected an identifier before {_describe(token)}", line, column)
    names = sorted(_READABLE.get(t, f"'{terminals.get(t, t)}'") for t in expected)
    shown = ", ".join(names[:6]) + (", ..." if len(names) > 6 else "")
    return error(f"unexpected {_describe(token)}: expected one of {shown}", line, column)


def _literal_refusal(before: str, quote: str) -> tuple[str, int]:
    """Why a string or character literal is refused, what to write instead, and how many
    columns before the quote the error points (at `nan` in `nan("")`)."""
    call = re.search(r"\b(nanf?)[ \t]*\([ \t]*$", before)
    if call is not None:  # nan("") is refused for what it is, not for its string
        return f"'{call[1]}' is not supported: {c_math.REFUSED[call[1]]}", len(before) - \
            call.start(1)
    if quote == "'":
        return ("character literals are not supported: kernels compute on numbers; write the "
                "character's code (97 for 'a')"), 0
    return ("string literals are not supported: kernels compute on numbers (pass them as "
            "parameters or #define constants)"), 0


def _place(where: Meta | Token) -> tuple[int, int]:
    """Where the parser put a rule or a token. Lark types a token's place optional (a token
    made up without one); the tokens met here come from the lexer, which always sets it."""
    line, column = where.line, where.column
    assert line is not None, where
    assert column is not None, where
    return line, column


def _end(token: Token) -> tuple[int, int]:
    """Where `token` ends (lark's end column is the one just after it), or where it starts
    where lark does not say."""
    line, column = _place(token)
    return token.end_line or line, token.end_column if token.end_column is not None else column


def _token_position(text: str, token: Token) -> tuple[int, int]:
    if token.type != "$END" and token.line is not None and token.column is not None:
        return token.line, token.column
    lines = text.rstrip().split("\n")
    return len(lines), len(lines[-1]) + 1


def _next_token(text: str, token: Token) -> str | None:
    """The type of the token after `token`."""
    try:
        tokens = _parser().lex(text[token.end_pos :])  # pyright: ignore[reportUnknownMemberType]  # lark's TextOrSlice holds a TextSlice without its parameter
        return next(iter(tokens)).type
    except (UnexpectedInput, _Keyword, StopIteration):
        return None


def _previous_token(text: str, token: Token) -> Token | None:
    """The token before `token` (lark does not keep it), found by lexing up to it."""
    end = len(text) if token.type == "$END" else token.start_pos
    previous = None
    try:
        for t in _parser().lex(text[:end]):  # pyright: ignore[reportUnknownMemberType]  # lark's TextOrSlice holds a TextSlice without its parameter
            previous = t
    except (UnexpectedInput, _Keyword):
        return None
    return previous


def _scalar(spelling: str) -> Scalar:
    """The frontend's arithmetic type of a C spelling (the signature table says what it is)."""
    t = c_type(spelling)
    assert t is not None, spelling
    return scalar_of(t.is_float, t.bits, t.signed)


# ---- lark tree -> AST -------------------------------------------------------------------------

# Type names that are one word (typedefs of the C library headers included): each stands alone.
_TYPEDEF_WORDS = {"_Bool", "bool", "size_t", "ptrdiff_t", "int8_t", "int16_t", "int32_t",
                  "int64_t", "uint8_t", "uint16_t", "uint32_t", "uint64_t", "intptr_t",
                  "uintptr_t"}  # fmt: skip
_SPEC_WORDS = {"void", "char", "short", "int", "long", "float", "double", "signed", "unsigned",
               *_TYPEDEF_WORDS}  # fmt: skip
_STORAGE_WORDS = {"static", "inline", "__inline__", "__inline"}
# `true` and `false` of <stdbool.h>: the int constants 1 and 0 (C23 keywords).
_BOOL_CONSTANTS = {"true": 1, "false": 0}
# The constants of <math.h>, with glibc's types: NAN is a float quiet NaN with its sign bit
# clear (as gcc's __builtin_nanf("")), INFINITY and HUGE_VALF float, HUGE_VAL double.
_MATH_CONSTANTS = {"NAN": (float("nan"), FLOAT), "INFINITY": (float("inf"), FLOAT),
                   "HUGE_VALF": (float("inf"), FLOAT), "HUGE_VAL": (float("inf"), DOUBLE)}


_AstTransformer = Transformer_NonRecursive[Token, ast.TranslationUnit]


def _to_ast(pre: Preprocessed, error: Error) -> _AstTransformer:
    # v_args's annotations lose the class they decorate (they return `Callable | type`)
    return cast("_AstTransformer", _ToAst(pre, error))


@v_args(meta=True, inline=True)
class _ToAst(_AstTransformer):
    """Each callback takes a rule's children as its parameters (lark's `inline`), so that
    their annotations say what c.lark gives each rule: tokens, AST nodes, or None for an
    absent `[optional]` part (`maybe_placeholders`)."""

    def __init__(self, pre: Preprocessed, error: Error):
        super().__init__()
        self.pre = pre
        self.error = error

    def pos(self, meta_or_token: Meta | Token) -> ast.Pos:
        return self.pre.original(*_place(meta_or_token))

    def fail(self, message: str, token: Token) -> CompileError:
        """The error `message` at `token`, which the parser placed in the preprocessed text."""
        return self.error(message, *_place(token))

    # ---- top level
    def start(self, meta: Meta, *items: ast.FunctionDef | ast.Decl) -> ast.TranslationUnit:
        return ast.TranslationUnit((1, 1), list(items))

    def function_def(self, meta: Meta, specs: ast.TypeName, declarator: ast.Declarator,
                     body: ast.Block) -> ast.FunctionDef:  # fmt: skip
        return ast.FunctionDef(self.pos(meta), specs, declarator, body)

    def declaration(self, meta: Meta, specs: ast.TypeName,
                    *declarators: ast.InitDeclarator | None) -> ast.Decl:  # fmt: skip
        return ast.Decl(self.pos(meta), specs, [d for d in declarators if d is not None])

    def init_declarator(self, meta: Meta, declarator: ast.Declarator,
                        init: ast.Expr | ast.BraceInit | None) -> ast.InitDeclarator:  # fmt: skip
        return ast.InitDeclarator(self.pos(meta), declarator, init)

    def brace_init(self, meta: Meta, *children: ast.Expr | ast.BraceInit | None) -> ast.BraceInit:
        return ast.BraceInit(self.pos(meta), [c for c in children if c is not None])

    # ---- types
    def type_spec(self, meta: Meta, word: Token) -> Token:
        return word

    def qualifier(self, meta: Meta, word: Token) -> Token:
        return word

    def storage(self, meta: Meta, word: Token) -> Token:
        return word

    def decl_specs(self, meta: Meta, *tokens: Token) -> ast.TypeName:
        words = [t for t in tokens if t.value in _SPEC_WORDS]
        storage = [t for t in tokens if t.value in _STORAGE_WORDS]
        quals = [t for t in tokens if t.value not in _SPEC_WORDS and t.value not in _STORAGE_WORDS]
        base, spelling = self.base_type(words, (meta.line, meta.column))
        type_name = ast.TypeName(self.pos(meta), base, spelling)
        for s in storage:
            if s.value == "static":
                type_name.static_pos = self.pos(s)
            else:
                type_name.inline_pos = self.pos(s)
        for q in quals:
            if q.value == "volatile":
                raise self.fail(_VOLATILE, q)
            if q.value == "const":
                type_name.const = True
            else:
                type_name.restrict = True
                type_name.restrict_pos = self.pos(q)
        return type_name

    def base_type(self, words: list[Token], pos: ast.Pos) -> tuple[Scalar | None, str]:
        names = [w.value for w in words]
        if not words:
            raise self.error("missing type specifier (implicit int is not supported)", *pos)
        counts = {n: names.count(n) for n in set(names)}
        first = words[0]

        def bad(what: str) -> CompileError:
            return self.fail(what, first)

        if counts.get("long", 0) > 2 or any(c > 1 for n, c in counts.items() if n != "long"):
            raise bad(f"invalid type '{' '.join(names)}'")
        if "long" in counts and "double" in counts:
            raise bad("'long double' is not supported: use double")
        for solo in ("void", "float", "double", *_TYPEDEF_WORDS):
            if solo in counts:
                if len(names) > 1:
                    raise bad(f"invalid type '{' '.join(names)}'")
                if solo == "void":
                    return None, solo
                return _scalar(solo), "_Bool" if solo == "bool" else solo
        if "signed" in counts and "unsigned" in counts:
            raise bad("a type cannot be both signed and unsigned")
        if "char" in counts and ("int" in counts or "long" in counts or "short" in counts):
            raise bad(f"invalid type '{' '.join(names)}'")
        if "short" in counts and "long" in counts:
            raise bad(f"invalid type '{' '.join(names)}'")
        unsigned = "unsigned" in counts
        if "char" in counts:  # plain char is signed char, as on x86-64 gcc
            spelling = "char"
            if unsigned or "signed" in counts:
                spelling = "unsigned char" if unsigned else "signed char"
            return _scalar(spelling), spelling
        if "short" in counts:
            spelling = "unsigned short" if unsigned else "short"
            return _scalar(spelling), spelling
        if "long" in counts:
            return (ULONG, "unsigned long") if unsigned else (LONG, "long")
        return (_scalar("unsigned"), "unsigned") if unsigned else (INT, "int")

    def pointer(self, meta: Meta, star: Token, *quals: Token) -> ast.Pointer:
        return self._qualifiers(meta, quals)

    def _qualifiers(self, meta: Meta, quals: Sequence[Token]) -> ast.Pointer:
        """An `ast.Pointer` at `meta` carrying the qualifier tokens `quals` (const, restrict;
        volatile is rejected)."""
        p = ast.Pointer(self.pos(meta))
        for q in quals:
            if q.value == "const":
                p.const = True
            elif q.value == "volatile":
                raise self.fail(_VOLATILE, q)
            else:
                p.restrict = True
        return p

    def type_name(self, meta: Meta, specs: ast.TypeName, *pointers: ast.Pointer) -> ast.TypeName:
        specs.pointers = len(pointers)
        return specs

    # ---- declarators
    def declarator(self, meta: Meta, *children: ast.Pointer | ast.Declarator) -> ast.Declarator:
        *leading, inner = children  # pointer* direct_declarator
        assert isinstance(inner, ast.Declarator)
        pointers = [p for p in leading if isinstance(p, ast.Pointer)]
        if pointers and (inner.arrays or inner.params is not None) and not inner.function_pointer:
            if inner.arrays:
                raise self.error(
                    "arrays of pointers are not supported: use a flat array", meta.line, meta.column
                )
        inner.pointers = pointers + inner.pointers
        inner.pos = self.pos(meta)
        return inner

    def name_declarator(self, meta: Meta, name: Token) -> ast.Declarator:
        return ast.Declarator(self.pos(name), name.value)

    def paren_declarator(self, meta: Meta, inner: ast.Declarator) -> ast.Declarator:
        inner.parenthesized_pointer = bool(inner.pointers)
        return inner

    def array_declarator(self, meta: Meta, inner: ast.Declarator,
                         *rest: Token | ast.Expr | None) -> ast.Declarator:  # fmt: skip
        *quals, size = rest  # qualifier* [assign_expr]
        assert not isinstance(size, Token), "an expression is a node, never a token"
        if inner.parenthesized_pointer:
            inner.pointer_to_array = True
        if inner.params is not None:
            raise self.error("functions cannot return arrays", meta.line, meta.column)
        inner.arrays.append(size)
        inner.array_quals.append(self._qualifiers(meta, [q for q in quals if isinstance(q, Token)]))
        return inner

    def function_declarator(self, meta: Meta, inner: ast.Declarator,
                            *params: ast.Param | None) -> ast.Declarator:  # fmt: skip
        if inner.parenthesized_pointer:
            inner.function_pointer = True
        inner.params = [p for p in params if p is not None]
        return inner

    def param(self, meta: Meta, specs: ast.TypeName, declarator: ast.Declarator) -> ast.Param:
        return ast.Param(self.pos(meta), specs, declarator)

    def abstract_param(self, meta: Meta, specs: ast.TypeName, *pointers: ast.Pointer) -> ast.Param:
        declarator = ast.Declarator(self.pos(meta), None, list(pointers))
        return ast.Param(self.pos(meta), specs, declarator)

    # ---- statements
    def compound_stmt(self, meta: Meta, *items: ast.Stmt) -> ast.Block:
        block = ast.Block(self.pos(meta), list(items))
        block.end = self.pre.original(meta.end_line, max(meta.end_column - 1, 1))
        return block

    def expr_stmt(self, meta: Meta, expr: ast.Expr | None) -> ast.ExprStmt:
        return ast.ExprStmt(self.pos(meta), expr)

    def if_stmt(self, meta: Meta, cond: ast.Expr, then: ast.Stmt,
                otherwise: ast.Stmt | None = None) -> ast.If:  # fmt: skip
        # lark leaves no placeholder for a missing else
        return ast.If(self.pos(meta), cond, then, otherwise)

    def while_stmt(self, meta: Meta, cond: ast.Expr, body: ast.Stmt) -> ast.While:
        return ast.While(self.pos(meta), cond, body)

    def do_stmt(self, meta: Meta, body: ast.Stmt, cond: ast.Expr) -> ast.DoWhile:
        return ast.DoWhile(self.pos(meta), body, cond)

    def for_stmt(self, meta: Meta, init: ast.Decl | ast.ExprStmt, cond: ast.Expr | None,
                 step: ast.Expr | None, body: ast.Stmt) -> ast.For:  # fmt: skip
        return ast.For(self.pos(meta), init, cond, step, body)

    def return_stmt(self, meta: Meta, value: ast.Expr | None) -> ast.Return:
        return ast.Return(self.pos(meta), value)

    def labeled_stmt(self, meta: Meta, label: Token, stmt: ast.Stmt) -> ast.Labeled:
        return ast.Labeled(self.pos(label), label.value, stmt)

    # ---- expressions
    def comma(self, meta: Meta, lhs: ast.Expr, rhs: ast.Expr) -> ast.Comma:
        items = lhs.items if isinstance(lhs, ast.Comma) else [lhs]
        return ast.Comma(self.pos(meta), [*items, rhs])

    def assign(self, meta: Meta, target: ast.Expr, op: Token, value: ast.Expr) -> ast.Assign:
        return ast.Assign(self.pos(op), op.value, target, value)

    def assign_op(self, meta: Meta, op: Token) -> Token:
        return op

    def conditional(self, meta: Meta, cond: ast.Expr, then: ast.Expr,
                    otherwise: ast.Expr) -> ast.Conditional:  # fmt: skip
        return ast.Conditional(self.pos(meta), cond, then, otherwise)

    def binary(self, meta: Meta, lhs: ast.Expr, op: Token, rhs: ast.Expr) -> ast.Binary:
        return ast.Binary(self.pos(op), op.value, lhs, rhs)

    def cast(self, meta: Meta, to: ast.TypeName, operand: ast.Expr) -> ast.Cast:
        return ast.Cast(self.pos(meta), to, operand)

    def pre_incdec(self, meta: Meta, op: Token, target: ast.Expr) -> ast.IncDec:
        return ast.IncDec(self.pos(op), op.value, True, target)

    def post_incdec(self, meta: Meta, target: ast.Expr, op: Token) -> ast.IncDec:
        return ast.IncDec(self.pos(op), op.value, False, target)

    def unary(self, meta: Meta, op: Token, operand: ast.Expr) -> ast.Expr:
        if op.value == "*" and isinstance(operand, ast.Name):
            # `*p` on a pointer parameter is `p[0]` (a scalar result: `*sum = s`); sema rejects
            # it on anything but an array, as it does `x[0]`.
            zero = ast.IntLit(self.pos(op), 0, INT, "0")
            return ast.Index(self.pos(op), operand, zero)
        return ast.Unary(self.pos(op), op.value, operand)

    def index(self, meta: Meta, base: ast.Expr, index: ast.Expr) -> ast.Index:
        return ast.Index(self.pos(meta), base, index)

    def call(self, meta: Meta, callee: ast.Expr, *args: ast.Expr | None) -> ast.Call:
        return ast.Call(self.pos(meta), callee, [a for a in args if a is not None])

    def name(self, meta: Meta, token: Token) -> ast.Expr:
        if token.value in _BOOL_CONSTANTS:
            value = _BOOL_CONSTANTS[token.value]
            return ast.IntLit(self.pos(token), value, INT, str(value))
        if token.value in _MATH_CONSTANTS:
            number, ctype = _MATH_CONSTANTS[token.value]
            return ast.FloatLit(self.pos(token), number, ctype, token.value)
        return ast.Name(self.pos(token), token.value)

    def int_lit(self, meta: Meta, token: Token) -> ast.IntLit:
        try:
            value, ctype = int_literal(token.value)
        except LiteralError as e:
            raise self.fail(str(e), token) from None
        return ast.IntLit(self.pos(token), value, ctype, token.value)

    def float_lit(self, meta: Meta, token: Token) -> ast.FloatLit:
        value, ctype, long_double = float_literal(token.value)
        return ast.FloatLit(self.pos(token), value, ctype, token.value, long_double)
