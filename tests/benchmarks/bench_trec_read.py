"""Reading speed and peak memory of TREC runs and qrels, two checkouts side
by side in one run (not a test; the figures go into issue 12's note).

    python tests/benchmarks/bench_trec_read.py [--before DIR] [--after DIR]
                                               [--lines N] [--repeat N]
                                               [--workdir DIR]

``--before`` / ``--after`` are project checkouts (default: this one for
both); each reading runs in a fresh process that imports ``shrec_eval``
from that checkout's ``core/``, alternating before / after.  Workloads
(written once into the work folder): a run of N lines with 6-decimal
scores as most systems write them (2,000 queries x 1,000 documents of a
collection of 200,000 ids like ``clueweb-00012345``), the same run with 17-digit ``repr``
scores (these take Python's ``float()``), and qrels of N lines.  Prints the
best time, MB/s and the process's peak RSS (ru_maxrss, file bytes
included).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

CHILD = r"""
import importlib.util, resource, sys, time
root, kind, qrels, path = sys.argv[1:5]
spec = importlib.util.spec_from_file_location(
    "shrec_eval", root + "/core/__init__.py", submodule_search_locations=[root + "/core"])
mod = importlib.util.module_from_spec(spec)
sys.modules["shrec_eval"] = mod
spec.loader.exec_module(mod)
from shrec_eval.reading.formats.trec import read_qrels
from shrec_eval.reading.formats.trec_run import read_trec_run
a = read_qrels(qrels, collection_size=10**7) if kind == "run" else None
t = time.perf_counter()
if kind == "run":
    read_trec_run(path, a)
else:
    read_qrels(path, collection_size=10**7)
t = time.perf_counter() - t
print(t, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


def workloads(workdir: str, n: int) -> dict[str, str]:
    rng = np.random.default_rng(1)
    per_q = 1000
    n_q = max(n // per_q, 1)
    paths = {k: os.path.join(workdir, f"{k}_{n}.txt") for k in ("run", "run_repr", "qrels")}
    if all(os.path.exists(p) for p in paths.values()):
        return paths
    with (
        open(paths["run"], "w") as run,
        open(paths["run_repr"], "w") as rr,
        open(paths["qrels"], "w") as qr,
    ):
        for q in range(n_q):
            docs = rng.choice(200_000, per_q, replace=False)
            scores = np.sort(rng.random(per_q) * 30)[::-1]
            grades = rng.integers(0, 3, per_q)
            dl = [f"clueweb-{d:08d}" for d in docs.tolist()]
            run.write(
                "".join(
                    f"{q} Q0 {d} {r} {s:.6f} bm25\n"
                    for r, (d, s) in enumerate(zip(dl, scores.tolist()), 1)
                )
            )
            rr.write(
                "".join(
                    f"{q} Q0 {d} {r} {s!r} bm25\n"
                    for r, (d, s) in enumerate(zip(dl, scores.tolist()), 1)
                )
            )
            qr.write("".join(f"{q} 0 {d} {g}\n" for d, g in zip(dl, grades.tolist())))
    return paths


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--before", default=ROOT)
    p.add_argument("--after", default=ROOT)
    p.add_argument("--lines", type=int, default=2_000_000)
    p.add_argument("--repeat", type=int, default=2)
    p.add_argument("--workdir")
    args = p.parse_args(argv)
    workdir = args.workdir or tempfile.mkdtemp(prefix="bench_trec_read_")
    os.makedirs(workdir, exist_ok=True)
    paths = workloads(workdir, args.lines)
    for kind, path in (
        ("run", paths["run"]),
        ("run", paths["run_repr"]),
        ("qrels", paths["qrels"]),
    ):
        size = os.path.getsize(path)
        best = {}
        for _ in range(args.repeat):
            for label, root in (("before", args.before), ("after", args.after)):
                out = subprocess.run(
                    [sys.executable, "-c", CHILD, root, kind, paths["qrels"], path],
                    capture_output=True,
                    text=True,
                    check=True,
                ).stdout.split()
                t, rss = float(out[0]), int(out[1]) / 1024
                old = best.get(label, (float("inf"), 0))
                best[label] = (min(old[0], t), max(old[1], rss))
        name = os.path.basename(path)
        for label, (t, rss) in best.items():
            print(
                f"{name} ({size / 2**20:.0f} MiB) {label:6s}: {t:.2f} s, "
                f"{size / 1e6 / t:.0f} MB/s, peak RSS {rss:.0f} MiB"
            )


if __name__ == "__main__":
    main()
