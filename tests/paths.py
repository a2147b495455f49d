"""Where the repository's inputs are, for tests in any folder of tests/."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
FILECHECK_TESTS = ROOT / "filecheck_tests"
TESTS = ROOT / "tests"
