"""The preprocessor of the C subset: comments, `#include`, `#define` (object-like and
function-like), `#pragma`.

It keeps every line where it was (comments become spaces, directives become empty lines), so
the parser's line numbers are the user's. Macro substitution shifts columns on the lines where
it happens; `Preprocessed.original` maps a parser position back to the user's column (inside an
expansion: the column of the macro's name), so diagnostics always point into the real source.
A function-like macro's arguments are macro-expanded, substituted for its parameters, and the
result rescanned, as C does; its use must end on the line where it starts (the arguments of
one use cannot span lines), and `#`, `##` and variadic macros are refused, located.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from autogpu.diagnostics import CompileError, located

# Preprocessing tokens, enough to find identifiers: numbers first so `1e5` or `0x1f` stay whole.
_PP_TOKEN = re.compile(r"\.?[0-9](?:[eEpP][+-]|[A-Za-z0-9_.])*|[A-Za-z_][A-Za-z0-9_]*|\s+|.")
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_DIRECTIVE = re.compile(r"\s*#\s*([A-Za-z_]*)")


@dataclass(frozen=True)
class Pragma:
    """A `#pragma` line: its text after `pragma` (macros expanded) and the user's column of
    each character of that text (and of its end)."""

    line: int
    text: str
    columns: tuple[int, ...]

    @property
    def column(self) -> int:
        return self.columns[0]

    def column_of(self, index: int) -> int:
        return self.columns[min(index, len(self.columns) - 1)]


@dataclass(frozen=True)
class Macro:
    name: str
    body: str
    line: int
    params: tuple[str, ...] | None = None  # a function-like macro's parameters


@dataclass
class Preprocessed:
    text: str
    pragmas: list[Pragma] = field(default_factory=list[Pragma])
    # For lines changed by macro substitution: parser column (1-based) -> user column.
    column_maps: dict[int, list[int]] = field(default_factory=dict[int, list[int]])

    def original(self, line: int, column: int) -> tuple[int, int]:
        """The user's (line, column) for a (line, column) in the preprocessed text."""
        mapping = self.column_maps.get(line)
        if mapping is None:
            return line, column
        if column - 1 < len(mapping):
            return line, mapping[column - 1]
        return line, mapping[-1] + 1 if mapping else column


def strip_comments(source: str, filename: str) -> str:
    """Replaces each comment by spaces (keeping its newlines), so positions do not move."""
    out: list[str] = []
    i, n = 0, len(source)
    while i < n:
        if source.startswith("//", i):
            end = source.find("\n", i)
            end = n if end < 0 else end
            out.append(" " * (end - i))
            i = end
        elif source.startswith("/*", i):
            end = source.find("*/", i + 2)
            if end < 0:
                line = source.count("\n", 0, i) + 1
                column = i - (source.rfind("\n", 0, i) + 1) + 1
                raise located(
                    "unterminated /* comment: close it with */", filename, source, line, column
                )
            out.append(re.sub(r"[^\n]", " ", source[i : end + 2]))
            i = end + 2
        else:
            out.append(source[i])
            i += 1
    return "".join(out)


class Preprocessor:
    def __init__(self, source: str, filename: str):
        self.source = source
        self.filename = filename
        self.macros: dict[str, Macro] = {}

    def error(self, message: str, line: int, column: int) -> CompileError:
        return located(message, self.filename, self.source, line, column)

    def run(self) -> Preprocessed:
        text = self.source.replace("\r\n", "\n")
        lines = strip_comments(text, self.filename).split("\n")
        result = Preprocessed("")
        out: list[str] = []
        active: list[tuple[bool, int]] = []  # (condition, line) of each open #ifdef/#ifndef
        index = 0
        while index < len(lines):
            line_no = index + 1
            text = lines[index]
            if not _DIRECTIVE.match(text):
                if all(cond for cond, _ in active):
                    expanded, mapping = self.expand_line(text, line_no)
                    if mapping is not None:
                        result.column_maps[line_no] = mapping
                    out.append(expanded)
                else:
                    out.append("")
                index += 1
                continue
            # A directive, possibly continued over several lines with a trailing backslash.
            full = text
            out.append("")
            while full.endswith("\\") and index + 1 < len(lines):
                index += 1
                full = full[:-1] + " " + lines[index]
                out.append("")
            index += 1
            self.directive(full, line_no, active, result)
        if active:
            raise self.error("unterminated conditional directive: add #endif", active[-1][1], 1)
        result.text = "\n".join(out)
        return result

    def directive(
        self, text: str, line: int, active: list[tuple[bool, int]], result: Preprocessed
    ) -> None:
        match = _DIRECTIVE.match(text)
        assert match is not None
        name = match.group(1)
        column = match.start(1) + 1
        rest_start = match.end()
        rest = text[rest_start:]
        if name in ("ifdef", "ifndef"):
            macro = rest.strip()
            if not _IDENT.fullmatch(macro):
                raise self.error(f"#{name} needs one macro name", line, column)
            defined = macro in self.macros
            active.append((defined if name == "ifdef" else not defined, line))
            return
        if name == "else":
            if not active:
                raise self.error("#else without #ifdef or #ifndef", line, column)
            cond, start = active.pop()
            active.append((not cond, start))
            return
        if name == "endif":
            if not active:
                raise self.error("#endif without #ifdef or #ifndef", line, column)
            active.pop()
            return
        if not all(cond for cond, _ in active):
            return
        if name == "" and not rest.strip():
            return  # the null directive
        if name == "include":
            return  # kernels use only what the frontend knows (math.h, the stdint.h names, ...)
        if name == "define":
            self.define(rest, line, rest_start + 1)
        elif name == "undef":
            self.macros.pop(rest.strip(), None)
        elif name == "pragma":
            expanded, mapping = self.expand_line(rest, line, rest_start)
            if mapping is None:
                mapping = list(range(1, len(rest) + 2))
            lead = len(expanded) - len(expanded.lstrip())
            stripped = expanded.strip()
            columns = tuple(rest_start + c for c in mapping[lead : lead + len(stripped) + 1])
            result.pragmas.append(Pragma(line, stripped, columns))
        else:
            raise self.error(
                f"preprocessor directive '#{name}' is not supported: only #include, #define, "
                "#undef, #ifdef/#ifndef/#else/#endif and #pragma are"
                + (" (test a #define'd name with #ifdef/#ifndef)" if name in ("if", "elif")
                   else ""),
                line,
                column,
            )

    def define(self, rest: str, line: int, column: int) -> None:
        match = re.match(r"\s*([A-Za-z_][A-Za-z0-9_]*)", rest)
        if match is None:
            raise self.error("#define needs a macro name", line, column)
        name = match.group(1)
        body = rest[match.end() :]
        params = None
        if body.startswith("("):  # no space before '(': a function-like macro
            close = body.find(")")
            if close < 0:
                raise self.error(f"missing ')' in the parameters of macro '{name}'", line,
                                 column + match.end())  # fmt: skip
            spelled = body[1:close].split(",") if body[1:close].strip() else []
            params = tuple(p.strip() for p in spelled)
            for param in params:
                if param == "..." or param.endswith("..."):
                    raise self.error(
                        f"variadic macro '{name}' is not supported: give it named parameters",
                        line, column + match.start(1),
                    )  # fmt: skip
                if not _IDENT.fullmatch(param) or params.count(param) > 1:
                    raise self.error(
                        f"invalid parameter '{param}' of macro '{name}': the parameters are "
                        "distinct identifiers",
                        line, column + match.start(1),
                    )  # fmt: skip
            body = body[close + 1 :]
        if "#" in body:
            raise self.error(
                f"'#' and '##' in the body of macro '{name}' are not supported: write the "
                "tokens out",
                line,
                column + len(rest) - len(body) + body.index("#"),
            )
        self.macros[name] = Macro(name, body.strip(), line, params)

    def expand(self, text: str, hidden: frozenset[str], where: tuple[int, int]) -> str:
        """Expands macros in a macro body or argument (no position bookkeeping inside it);
        `where` is the user's position of the outermost use, for errors."""
        tokens = _PP_TOKEN.findall(text)
        parts: list[str] = []
        index = 0
        while index < len(tokens):
            token = tokens[index]
            macro = self.macros.get(token)
            if macro is None or token in hidden:
                parts.append(token)
                index += 1
                continue
            replacement, index = self.replace(macro, tokens, index, hidden, where)
            parts.append(replacement)
        return "".join(parts)

    def replace(
        self,
        macro: Macro,
        tokens: list[str],
        index: int,
        hidden: frozenset[str],
        where: tuple[int, int],
    ) -> tuple[str, int]:
        """The expansion of the use of `macro` at `tokens[index]` (padded with spaces so that
        it never pastes onto its neighbours), and the index after the use. A function-like
        macro's name not followed by '(' is left alone, as in C."""
        inner = hidden | {macro.name}
        if macro.params is None:
            alias = self.macros.get(macro.body)
            if alias is not None and alias.params is not None and alias.name not in inner:
                return self.replace(alias, tokens, index, inner, where)  # `#define F SQ`
            return " " + self.expand(macro.body, inner, where) + " ", index + 1
        after = index + 1
        while after < len(tokens) and tokens[after].isspace():
            after += 1
        if after == len(tokens) or tokens[after] != "(":
            return tokens[index], index + 1
        arguments, end = self.arguments(macro, tokens, after, where)
        if len(arguments) != len(macro.params):
            if not (len(macro.params) == 0 and arguments == [""]):
                plural = "" if len(macro.params) == 1 else "s"
                raise self.error(
                    f"macro '{macro.name}' takes {len(macro.params)} argument{plural}, got "
                    f"{len(arguments)}",
                    *where,
                )
        values = {p: self.expand(a, hidden, where).strip()
                  for p, a in zip(macro.params, arguments)}  # fmt: skip
        body_tokens: list[str] = _PP_TOKEN.findall(macro.body)  # re's stub says list[Any]
        body = "".join(values.get(t, t) for t in body_tokens)
        return " " + self.expand(body, inner, where) + " ", end

    def arguments(
        self, macro: Macro, tokens: list[str], open_paren: int, where: tuple[int, int]
    ) -> tuple[list[str], int]:
        """The argument texts of a use whose '(' is `tokens[open_paren]` (commas inside nested
        parentheses separate nothing), and the index after its ')'."""
        arguments: list[str] = []
        current: list[str] = []
        depth = 0
        for index in range(open_paren + 1, len(tokens)):
            token = tokens[index]
            if token == "(":
                depth += 1
            elif token == ")":
                if depth == 0:
                    arguments.append("".join(current))
                    return arguments, index + 1
                depth -= 1
            elif token == "," and depth == 0:
                arguments.append("".join(current))
                current = []
                continue
            current.append(token)
        raise self.error(
            f"unterminated use of macro '{macro.name}': its arguments must end with ')' on the "
            "line where it is used",
            *where,
        )

    def expand_line(
        self, text: str, line: int = 0, offset: int = 0
    ) -> tuple[str, list[int] | None]:
        """Expands macros in one source line (`text` starts at column `offset + 1` of line
        `line`, for errors); the column map if anything was substituted."""
        if not any(t in self.macros for t in _IDENT.findall(text)):
            return text, None
        tokens = _PP_TOKEN.findall(text)
        starts = [0]
        for token in tokens:
            starts.append(starts[-1] + len(token))
        parts: list[str] = []
        mapping: list[int] = []
        index = 0
        while index < len(tokens):
            token = tokens[index]
            column = starts[index] + 1
            macro = self.macros.get(token)
            if macro is not None:
                where = (line, column + offset)
                replacement, end = self.replace(macro, tokens, index, frozenset(), where)
                if end > index + 1 or replacement != token:
                    parts.append(replacement)
                    mapping += [column] * len(replacement)
                    index = end
                    continue
            parts.append(token)
            mapping += range(column, column + len(token))
            index += 1
        mapping.append(starts[-1] + 1)
        return "".join(parts), mapping


def preprocess(source: str, filename: str) -> Preprocessed:
    return Preprocessor(source, filename).run()
