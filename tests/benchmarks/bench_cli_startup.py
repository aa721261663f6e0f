"""Benchmark of the command line's start (not a test; issue 22's target:
``--help`` and ``--version`` under 0.15 s).

    python tests/benchmarks/bench_cli_startup.py [--rounds 15] [--exe PATH]

Runs ``shrec-eval --help``, ``shrec-eval evaluate --help``, ``shrec-eval
--version`` and ``shrec-eval evaluate --profile trec_eval -c --format
trec_eval`` of a small qrels and run (a command's own start) as fresh
processes (the console script next to this Python, or ``--exe``), and
``python -c pass`` as the floor; prints the best and the median wall time
of each, and whether numpy was imported for ``--help``.
The best of several rounds is what the machine can do; the median shows
the noise of a loaded machine.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

TINY = [
    str(Path(__file__).parents[1] / "data" / "trec_eval" / f) for f in ("gen1.qrels", "gen1.run")
]


def wall(cmd: list[str], rounds: int) -> tuple[float, float, float]:
    """Best and median wall time, and the best CPU time (user + system, which
    other processes on a busy machine do not inflate as much)."""
    times, cpu = [], []
    for _ in range(rounds):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times.append(time.perf_counter() - t)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(times), statistics.median(times), min(cpu)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--exe", default=str(Path(sys.executable).with_name("shrec-eval")))
    args = ap.parse_args()
    cases = [
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ("shrec-eval --help", [args.exe, "--help"]),
        ("shrec-eval evaluate --help", [args.exe, "evaluate", "--help"]),
        ("shrec-eval --version", [args.exe, "--version"]),
        # a command's start: scoring trec_eval's small test files as trec_eval -c
        (
            "evaluate --format trec_eval",
            [args.exe, "evaluate", "--profile", "trec_eval", "-c", *TINY, "--format", "trec_eval"],
        ),
    ]
    for name, cmd in cases:
        best, median, cpu = wall(cmd, args.rounds)
        print(f"{name:28s} wall best {best:.3f} s, median {median:.3f} s; CPU {cpu:.3f} s")
    probe = "import sys, shrec_eval.cli.parser; print('numpy' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout
    print(f"numpy imported by 'import shrec_eval.cli.parser': {out.strip()}")


if __name__ == "__main__":
    main()
