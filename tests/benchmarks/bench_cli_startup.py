"""Benchmark of the command line's start (not a test; issue 22's target:
``--help`` and ``--version`` under 0.15 s; issue 41's: a whole command
against another tool's process).

    python tests/benchmarks/bench_cli_startup.py [--rounds 15] [--exe PATH]
        [--before FOLDER]

Runs ``shrec-eval --help``, ``shrec-eval evaluate --help``, ``shrec-eval
--version``, ``shrec-eval evaluate --profile trec_eval -c --format
trec_eval`` of a small qrels and run (a command's own start), the same with
``--json`` instead, and ``shrec-eval demo --json`` (the demo contest scored)
as fresh processes (the console script next to this Python, or ``--exe``;
``python -m shrec_eval`` where there is none), and ``python -c pass`` as the floor; prints the
best and the median wall time and the median processor time (user +
system) of each, and whether numpy was imported for ``--help``.
Each round runs every case once, in turn, so that a change of the
machine's load falls on all of them alike.

``--before FOLDER``: a folder that holds another copy of the package as
``FOLDER/shrec_eval`` (``git archive OLD core | tar -x -C FOLDER``, then
``core`` renamed ``shrec_eval``), run through ``PYTHONPATH`` in the same
rounds, each case of it right after the same case of this one: the two
compared under the same load.  The best of several rounds is what the
machine can do; the medians show the noise of a loaded machine.  Compiled
modules are kept (PYTHONDONTWRITEBYTECODE dropped), as a user's install
has them.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TINY = [
    str(Path(__file__).parents[1] / "data" / "trec_eval" / f) for f in ("gen1.qrels", "gen1.run")
]


def one(cmd: list[str], env: dict) -> tuple[float, float]:
    """Wall and processor time (user + system, which other processes on a
    busy machine do not inflate as much) of one run of ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True, env=env)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--exe", default=str(Path(sys.executable).with_name("shrec-eval")))
    ap.add_argument("--before", type=Path, help="a folder holding another shrec_eval to compare")
    args = ap.parse_args()
    run = [args.exe] if Path(args.exe).exists() else [sys.executable, "-m", "shrec_eval"]
    out = Path(tempfile.mkdtemp(prefix="bench-startup-"))
    cases = [
        ("python -c pass", [sys.executable, "-c", "pass"]),
        ("shrec-eval --help", [*run, "--help"]),
        ("shrec-eval evaluate --help", [*run, "evaluate", "--help"]),
        ("shrec-eval --version", [*run, "--version"]),
        # a command's start: scoring trec_eval's small test files as trec_eval -c
        (
            "evaluate --format trec_eval",
            [*run, "evaluate", "--profile", "trec_eval", "-c", *TINY, "--format", "trec_eval"],
        ),
        (
            "evaluate --json",
            [*run, "evaluate", "--profile", "trec_eval", "-c", *TINY, "--json", str(out / "e")],
        ),
        ("demo --json", [*run, "demo", "--json", str(out / "d")]),
    ]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    trees = {"": env}
    if args.before is not None:
        old = env.get("PYTHONPATH")
        path = str(args.before.resolve()) + (os.pathsep + old if old else "")
        trees = {"": env, " (before)": {**env, "PYTHONPATH": path}}
    times: dict[str, list[tuple[float, float]]] = {}
    for _ in range(args.rounds):
        for name, cmd in cases:
            for tag, tree_env in trees.items():
                if tag and cmd[0] == sys.executable and cmd[1] == "-c":
                    continue  # the floor is the same Python for both
                times.setdefault(name + tag, []).append(one(cmd, tree_env))
    for name, got in times.items():
        walls, cpus = [w for w, _ in got], [c for _, c in got]
        print(
            f"{name:40s} wall best {min(walls):.3f} s, median {statistics.median(walls):.3f} s;"
            f" CPU median {statistics.median(cpus):.3f} s"
        )
    probe = "import sys, shrec_eval.cli.parser; print('numpy' in sys.modules)"
    found = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True).stdout
    print(f"numpy imported by 'import shrec_eval.cli.parser': {found.strip()}")


if __name__ == "__main__":
    main()
