"""Small inputs and a command-line runner shared by the tests of issue 11's
reproduction scripts (tests/test_hostile_*.py)."""

from __future__ import annotations

import io

from shrec_eval.cli.parser import main

S_CLA = "PSB 1\n2 4\na 0 2\n0\n1\nb 0 2\n2\n3\n"
S_TXT = "0 1 5 5\n1 0 5 5\n5 5 0 1\n5 5 1 0.5\n"


def run_cli(argv):
    """``shrec-eval ARGV`` in this process: (exit code, stdout)."""
    out = io.StringIO()
    code = main([str(a) for a in argv], out=out)
    return code, out.getvalue()


def small_contest(folder):
    """The 4-model s.cla and its 4 x 4 matrix s.txt, written into ``folder``."""
    (folder / "s.cla").write_text(S_CLA)
    (folder / "s.txt").write_text(S_TXT)
    return folder
