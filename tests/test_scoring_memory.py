"""The command line keeps freed blocks for reuse (core/scoring/memory.py): arrays
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
from shrec_eval.scoring.memory import keep_freed_blocks
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
    from shrec_eval.cli import parser as cli

    calls = []
    monkeypatch.setattr(cli, "keep_freed_blocks", lambda: calls.append(1) or True)
    assert cli.main(["--version"]) == 0
    assert calls == [1]


@pytest.mark.skipif(not GLIBC, reason="glibc's malloc_trim")
def test_freed_memory_is_given_back_after_a_job():
    """The app keeps freed blocks while a job runs and gives them back
    after: the resident size falls again."""
    code = """
import numpy as np
from shrec_eval.scoring.memory import keep_freed_blocks, release_freed_blocks
def rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * 4096
keep_freed_blocks()
base = rss()
parts = [np.ones(1 << 20) for _ in range(100)]  # 800 MB made and dropped, as a job does
del parts
kept = rss() - base
release_freed_blocks()
print(kept, rss() - base)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    kept, after = map(int, out.stdout.split())
    assert kept > 500e6  # kept for reuse while the job runs
    assert after < 50e6  # given back once it is done


def test_the_app_gives_memory_back_after_each_job(qapp, monkeypatch):
    from guitools import retire, scored_demo_window
    from shrec_eval.scoring.memory import keep_freed_blocks

    import shrec_gui.app as app
    import shrec_gui.workers.scoring as worker

    assert app.keep_freed_blocks is keep_freed_blocks  # asked for at start (main)
    calls = []
    monkeypatch.setattr(worker, "release_freed_blocks", lambda: calls.append(1) or True)
    w = scored_demo_window(qapp)
    try:
        assert calls  # the scoring job gave its memory back when it ended
    finally:
        retire(w)
