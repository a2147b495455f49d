"""Every refusal that docs/c-subset.md lists is a `file:line:col: error:` that says what to write
instead (issue #16): each is compiled from a file, and its message, position and advice are
checked."""

from __future__ import annotations

from pathlib import Path

import pytest

import autogpu
from autogpu.diagnostics import CompileError

F = "void f(int n, float *x) {"
# name: (source, (line, column), what the message says, what it advises)
REFUSED = {
    # preprocessor
    "token-pasting": ("#define CAT(a, b) a##b\n" + F + " x[0] = CAT(1, 2); }\n", (1, 20),
                      "'#' and '##' in the body of macro 'CAT'", "write the tokens out"),
    "stringizing": ("#define S(a) #a\n" + F + " x[0] = 1; }\n", (1, 14),
                    "'#' and '##' in the body of macro 'S'", "write the tokens out"),
    "variadic-macro": ("#define V(...) 0\n" + F + " x[0] = V(1); }\n", (1, 9),
                       "variadic macro 'V'", "give it named parameters"),
    "macro-over-lines": ("#define SQ(a) ((a) * (a))\n" + F + " x[0] = SQ(\n 2); }\n", (2, 34),
                         "unterminated use of macro 'SQ'", "must end with ')' on the line"),
    "#if": ("#if 1\n#endif\n" + F + " x[0] = 1; }\n", (1, 2), "'#if' is not supported",
            "with #ifdef/#ifndef"),
    "#error": ("#error no\n" + F + " x[0] = 1; }\n", (1, 2), "'#error' is not supported",
               "only #include, #define"),
    # types
    "long-double": (F + " long double d = 1; x[0] = d; }\n", (1, 27), "'long double'",
                    "use double"),
    "struct": ("struct s { int a; };\n" + F + " x[0] = 1; }\n", (1, 1), "structs",
               "pass each field as its own array or scalar parameter"),
    "union": (F + " union u { int a; } v; x[0] = 1; }\n", (1, 27), "unions",
              "pass each member as its own parameter"),
    "enum": ("enum e { A };\n" + F + " x[0] = 1; }\n", (1, 1), "enums", "use #define constants"),
    "typedef": ("typedef float real;\nvoid f(int n, real *x) { x[0] = 1; }\n", (1, 1),
                "typedefs", "write the type out"),
    "volatile": ("void f(int n, volatile float *x) { x[0] = 1; }\n", (1, 15), "'volatile'",
                 "drop it"),
    "_Complex": (F + " _Complex float z; x[0] = 1; }\n", (1, 27), "complex numbers",
                 "two arrays (or two scalars)"),
    # functions
    "recursion": ("void f(int n, float *x) { if (n > 0) f(n - 1, x); }\n", (1, 38),
                  "'f' calls itself", "write it as a loop"),
    "declared-only": ("float g(float);\n" + F + " x[0] = g(1.0f); }\n", (2, 34),
                      "'g' is declared but not defined", "define it here"),
    "non-void-kernel": ("float f(int n, float *x) { return x[0]; }\n", (1, 1),
                        "must return void", "through pointer parameters"),
    "function-pointer": ("void f(int n, float *x, float (*g)(float)) { x[0] = 1; }\n", (1, 31),
                         "function pointer parameter 'g'", "call the function directly"),
    "early-return": (F + " if (n) return; x[0] = 1; }\n", (1, 34), "early 'return'",
                     "restructure the code with if/else"),
    "helper-after-&&": ("static float h(float *x) { float s = 0; for (int k = 0; k < 2; k++)"
                        " s += x[k]; return s; }\n" + F + " x[0] = n > 0 && h(x) > 0; }\n",
                        (2, 43), "after '&&', '||' or '?'", "call it in a statement of its own"),
    "static-local": (F + " static float s = 0; x[0] = s; }\n", (1, 27), "'static' on a local",
                     "declare it without 'static'"),
    # declarations
    "lastprivate-array": (F + " float w[2];\n#pragma omp parallel for lastprivate(w)\n"
                          " for (int i = 0; i < n; i++) { w[0] = i; x[i] = w[0]; } }\n", (2, 38),
                          "lastprivate array 'w'", "declare the array inside the loop"),
    "private-parameter": ("void f(int n, float *x, float *y) {\n#pragma omp parallel for "
                          "private(y)\n for (int i = 0; i < n; i++) { x[i] = 1; } }\n", (2, 34),
                          "array parameter or pointer", "list it shared"),
    "pointer-arithmetic-local": (F + " float *p = x + 1; p[0] = 1; }\n", (1, 40),
                                 "local pointer 'p'", "index the array directly"),
    "address-of-local": (F + " float *p = &x[1]; p[0] = 1; }\n", (1, 38), "local pointer 'p'",
                         "index the array directly"),
    "variable-length-array": (F + " float w[n]; w[0] = 1; x[0] = w[0]; }\n", (1, 35),
                              "must be an integer constant", "use a #define constant"),
    "global-variable": ("float g;\n" + F + " x[0] = g; }\n", (1, 7), "global variable 'g'",
                        "pass it as a parameter"),
    "scalar-braces": (F + " float s = {1}; x[0] = s; }\n", (1, 37),
                      "braces around the initializer of scalar 's'", "write it without them"),
    "array-of-pointers": (F + " float *p[2]; x[0] = 1; }\n", (1, 33), "arrays of pointers",
                          "use a flat array"),
    "pointer-to-pointer": ("void f(int n, float **x) { x[0][0] = 1; }\n", (1, 21),
                           "pointer to pointers", "index a 1-D array with i * n + j"),
    # statements
    "goto": (F + " goto end; end: x[0] = 1; }\n", (1, 27), "'goto'",
             "structure the code with loops and if/else"),
    "break": (F + " for (int i = 0; i < n; i++) { if (i) break; x[i] = 1; } }\n", (1, 64),
              "'break'", "express the exit in the loop condition"),
    "continue": (F + " for (int i = 0; i < n; i++) { if (i) continue; x[i] = 1; } }\n", (1, 64),
                 "'continue'", "guard the rest of the loop body with 'if'"),
    "switch": (F + " switch (n) { case 0: x[0] = 1; } }\n", (1, 27), "'switch'", "use if/else"),
    # expressions
    "assignment-in-expression": (F + " float a; x[0] = (a = 1); }\n", (1, 46),
                                 "assignment inside an expression",
                                 "write it as its own statement"),
    "++-in-expression": (F + " int i = 0; x[i++] = 1; }\n", (1, 41), "'++' inside an expression",
                         "write it as its own statement"),
    "comma": (F + " x[0] = (1, 2); }\n", (1, 35), "the comma operator",
              "write each expression as a statement of its own"),
    "dereference-arithmetic": (F + " *(x + 1) = 1; }\n", (1, 27), "dereferencing an expression",
                               "write p[i] for *(p + i)"),
    "sizeof": (F + " x[0] = sizeof(float); }\n", (1, 34), "'sizeof'",
               "index arrays by element"),
    "string-literal": (F + ' x[0] = "a"[0]; }\n', (1, 34), "string literals",
                       "pass them as parameters or #define constants"),
    "character-literal": (F + " x[0] = 'a'; }\n", (1, 34), "character literals",
                          "write the character's code"),
    # the C library
    "l-form": ("void f(int n, double *x) { x[0] = sinl(x[0]); }\n", (1, 35),
               "'sinl' computes in long double", "call 'sin'"),
    "frexp": ("void f(int n, double *x, int *e) { x[0] = frexp(x[0], e); }\n", (1, 43),
              "'frexp'", "use logb (or ilogb) and ldexp"),
    "modf": ("void f(int n, double *x, double *y) { x[0] = modf(x[0], y); }\n", (1, 46),
             "'modf'", "use trunc(x) and x - trunc(x)"),
    "remquo": ("void f(int n, double *x, int *q) { x[0] = remquo(x[0], 2.0, q); }\n", (1, 43),
               "'remquo'", "use remainder"),
    "sincos": ("void f(int n, double *x, double *y) { sincos(x[0], x, y); }\n", (1, 39),
               "'sincos'", "call sin and cos"),
    "lgamma_r": ("void f(int n, double *x, int *s) { x[0] = lgamma_r(x[0], s); }\n", (1, 43),
                 "'lgamma_r'", "use lgamma"),
    "nan()": ("void f(int n, double *x) { x[0] = nan(\"\"); }\n", (1, 35), "'nan'",
              "write NAN or 0.0 / 0.0"),
}


@pytest.mark.parametrize("name", list(REFUSED))
def test_each_refusal_is_located_and_says_what_to_write(name: str, tmp_path: Path):
    source, (line, column), message, advice = REFUSED[name]
    path = tmp_path / "kernel.c"
    path.write_text(source)
    with pytest.raises(CompileError) as info:
        _ = autogpu.compile(path, warn=lambda w: None).cuda_source
    text = info.value.format()
    assert text.startswith(f"{path}:{line}:{column}: error: "), text
    assert message in text, text
    assert advice in text, text
