"""The command line keeps freed blocks for reuse (core/memory.py): arrays
of a few MB made and dropped per chunk no longer fault their pages in
again each time."""

from __future__ import annotations

import platform
import subprocess
import sys

import pytest

LOOP = """
import resource, sys
import numpy as np
from shrec_eval.memory import keep_freed_blocks
kept = keep_freed_blocks() if sys.argv[1] == "keep" else None
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
a = np.ones(4 << 20, np.uint8); del a
before = faults()
for _ in range(40):  # what a reader does per chunk: a few MB made and dropped
    a = np.ones(4 << 20, np.uint8); b = a + 1; del a, b
print(kept, faults() - before)
"""


def _faults(mode: str) -> tuple[str, int]:
    out = subprocess.run(
        [sys.executable, "-c", LOOP, mode], capture_output=True, text=True, check=True
    ).stdout.split()
    return out[0], int(out[1])


GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"


@pytest.mark.skipif(not GLIBC, reason="glibc's mallopt")
def test_freed_blocks_are_reused_instead_of_faulted_in_again():
    kept, with_it = _faults("keep")
    _, without = _faults("default")
    assert kept == "True"
    # 40 rounds of 8 MB: about 80,000 page faults by default
    assert without > 20_000
    assert with_it < without / 20


def test_the_command_line_asks_for_it(monkeypatch):
    from shrec_eval import cli

    calls = []
    monkeypatch.setattr(cli, "keep_freed_blocks", lambda: calls.append(1) or True)
    assert cli.main(["--version"]) == 0
    assert calls == [1]
