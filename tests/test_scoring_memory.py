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


def test_reading_gives_its_freed_memory_back_before_scoring(monkeypatch):
    """What reading a contest's assessment freed (a 4 M-line qrels: 200 MiB
    of chunks' tokens and grown tables between the arrays kept) goes back to
    the system before scoring makes its arrays, which did not fit in the
    holes and grew the heap past the reading's peak: one path for every face
    (the service's)."""
    from shrec_eval import service
    from shrec_eval.contest import Contest
    from shrec_eval.resources import demo_manifest

    events = []
    monkeypatch.setattr(service, "release_freed_blocks", lambda: events.append("release") or True)
    contest = Contest.read(demo_manifest())
    real = Contest.load_assessment
    monkeypatch.setattr(
        Contest, "load_assessment", lambda self: events.append("read") or real(self)
    )
    a, results = service.score_contest(contest)
    assert events[:2] == ["read", "release"] and results and a is not None


def test_unanswered_queries_take_their_kinds_row_without_a_copy_of_every_row():
    """The rows of the queries a run does not answer are copied from their
    kind's a block at a time: no temporary as large as every query's values
    (80,000 queries x 107 columns: 65 MiB more at scoring's peak)."""
    import tracemalloc

    import numpy as np
    from shrec_eval.scoring.missing import score_missing

    n, k = 30_000, 40  # 9.6 MB of values
    rng = np.random.default_rng(3)
    values = np.full((n, k), np.nan)
    missing = np.arange(2, n)
    kind = rng.integers(0, 3, missing.size)
    reps = np.array([2, 3, 4])
    kind[:3] = [0, 1, 2]  # each kind's own query first, as kinds() gives them

    def measure(qs, lengths, hits, width):
        values[qs] = (qs[:, None] + np.arange(k)) * 0.5

    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        score_missing(missing, reps, kind, 2, measure, values, 0)
        peak = tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()
    assert np.array_equal(values[missing], values[reps[kind]])
    assert np.array_equal(values[5], (reps[kind[3]] + np.arange(k)) * 0.5)
    assert np.isnan(values[:2]).all()  # the answered queries' rows untouched
    assert peak < values.nbytes / 4, peak
