"""`autogpu-opt`: xDSL's opt driver with autogpu's C frontend, dialect, passes and targets.

Reads C (`.c` files, or `-f c`) or IR, runs `-p` pipelines of autogpu's and xDSL's passes, and
prints IR (or CUDA with `-t cuda`). Errors in the user's input are printed as located
diagnostics with exit status 1, never as Python tracebacks.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import IO

from xdsl.utils.arg_spec import ArgSpecParseError
from xdsl.utils.exceptions import DiagnosticException, ParseError, VerifyException
from xdsl.xdsl_opt_main import xDSLOptMain

from autogpu.context import DIALECTS
from autogpu.diagnostics import CompileError


class AutogpuOptMain(xDSLOptMain):
    version_format = "autogpu-opt built from xdsl version {xdsl_version}"

    def __init__(self, args: Sequence[str] | None = None):
        super().__init__(description="autogpu modular optimizer driver", args=args)

    def register_all_dialects(self):
        super().register_all_dialects()
        # Our own dialects even when the package is not installed (no entry point).
        for dialect in DIALECTS:
            if dialect.name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(dialect.name, lambda d=dialect: d)

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser):
        super().register_all_arguments(arg_parser)
        arg_parser.add_argument(
            "--Werror",
            action="store_true",
            help="treat the C frontend's warnings (e.g. parallel loops whose iterations may "
            "touch one element) as errors",
        )

    def register_all_frontends(self):
        super().register_all_frontends()

        def parse_c(io: IO[bytes]):
            from autogpu.frontend import parse_c as parse

            return parse(io.read().decode(), self.get_input_name(), werror=self.args.Werror)

        self.available_frontends["c"] = parse_c

    def register_all_passes(self):
        super().register_all_passes()
        from autogpu.passes import get_all_passes

        for name, factory in get_all_passes().items():
            self.register_pass(name, factory)

    def register_all_targets(self):
        super().register_all_targets()
        from autogpu.backend import get_all_targets

        for name, factory in get_all_targets().items():
            self.available_targets[name] = factory


def main(argv: Sequence[str] | None = None) -> int:
    try:
        AutogpuOptMain(args=argv).run()
    except CompileError as e:
        print(e.format(), file=sys.stderr)
        return 1
    except (ParseError, VerifyException, DiagnosticException) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    except (ValueError, ArgSpecParseError) as e:  # bad pipeline, option or file extension
        print(f"error: {e}", file=sys.stderr)
        return 1
    except OSError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
