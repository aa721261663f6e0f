"""Large qrels as a user scores them, against trec_eval's C and a
``pandas.read_csv`` floor, side by side in one run (not a test; the figures
go into docs/scale.md).

    python tests/benchmarks/bench_qrels.py [--trec-eval PATH] [--repeat N]
        [--workdir DIR] [--queries N] [--per-query N] [--classes]

Workload (written once into the work folder, fixed seed): a qrels of
``--queries`` x ``--per-query`` judgments (80,000 x 50 = 4 M lines, about
92 MB), every document judged once (4 M distinct docnos, in no order),
grades 0, 1 and 2, and a TREC run of one query (1,000 documents, its 50
judged ones among them).  ``--classes`` writes the top-K workload's shape instead:
classes of 1,000 gallery items, every query judging its class's 1,000
items (R ~ 1,000), 2,000 queries (2 M lines), the run ranking 100 items of
every query.

Every side is a whole fresh process, measured in turn (A B C, then C B A,
...), after one warm-up round; its peak memory is the kernel's account of
it (``ru_maxrss``, through ``os.wait4``):

* **ours_text**: ``shrec-eval evaluate --profile trec_eval -c QRELS RUN
  --format trec_eval`` from this environment, as a user runs it: trec_eval's
  own text (its 30 summary lines), the like-for-like command of ``trec_eval
  -c`` (its output is compared with trec_eval's, byte for byte);
* **ours_json**: ``shrec-eval evaluate --profile trec_eval -c QRELS RUN --json
  OUT``: the JSON document (every query's values and curves) instead;
* **trec_eval** (``--trec-eval PATH``, or ``trec_eval`` on PATH: its C
  source built with ``make`` and ``-O2``, never part of this repository):
  ``trec_eval -c QRELS RUN`` with its default measures, output to a file;
* **pandas**: a Python process that reads the qrels with
  ``pandas.read_csv`` (whitespace-separated, four columns, ids as strings)
  and nothing else: the floor of reading the file in Python.

Prints each side's minimum and median, the median of the pair ratios
(each of ours / trec_eval, ours / pandas), wall and CPU (user + system,
every thread: on a machine shared with other work the CPU seconds move less
than the wall's), and each side's peak RSS against the file's size.
``--stages``: then where our commands' time and memory go, the library's
steps timed one after another in a fresh process (reading the qrels and the
run, scoring, trec_eval's text made, the JSON document built and written),
each with its CPU seconds and the process's peak RSS after it.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np

PANDAS = r"""
import sys, pandas as pd
df = pd.read_csv(sys.argv[1], sep=r"\s+", header=None, names=["qid", "iter", "docno", "rel"],
                 dtype={"qid": str, "iter": str, "docno": str, "rel": "int64"}, engine="c")
print(len(df))
"""


STAGES = r"""
import resource, sys, time
from shrec_eval.scoring.memory import keep_freed_blocks
keep_freed_blocks()  # as shrec-eval starts
from shrec_eval import EvalOptions, evaluate, load_assessment, load_run
from shrec_eval.outputs.json_pieces import write_json
from shrec_eval.outputs.report import to_json
from shrec_eval.profiles.trec_eval_text import P_CUTOFFS, trec_eval_text
qrels, run_path, out, mode = sys.argv[1:5]
cpu = [time.process_time()]
def step(name, t):
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    c = time.process_time()
    print(f"{name} {time.perf_counter() - t:.2f} {rss:.0f} {c - cpu[0]:.2f}")
    cpu[0] = c
    return time.perf_counter()
t = time.perf_counter()
cpu[0] = time.process_time()
a = load_assessment(qrels, profile="trec_eval")
t = step("qrels", t)
run = load_run(run_path, a)
t = step("run", t)
# the options of evaluate -c (--format trec_eval adds its ranks, as the CLI)
ranks = EvalOptions().ranks + (P_CUTOFFS if mode == "text" else ())
res = evaluate(a, run, EvalOptions(profile="trec_eval", complete_queries=True, ranks=ranks))
t = step("scoring", t)
if mode == "text":
    text = trec_eval_text(a, run, res)
    step("text", t)
    sys.exit()
doc = to_json(a, [res], assessment_path=qrels, run_paths=[run_path])
t = step("json_document", t)
write_json(out, doc)
step("json_written", t)
"""


def stages(qrels: str, run: str, out: str, repeat: int) -> None:
    """Our commands' steps, timed in a fresh process each (best of ``repeat``)."""
    for mode in ("text", "json"):
        best: dict[str, list[float]] = {}
        for _ in range(repeat):
            got = subprocess.run(
                [sys.executable, "-c", STAGES, qrels, run, out, mode],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split("\n")
            for line in filter(None, got):
                name, secs, rss, cpu = line.split()
                old = best.get(name, [float("inf"), 0.0, float("inf")])
                best[name] = [
                    min(old[0], float(secs)),
                    max(old[1], float(rss)),
                    min(old[2], float(cpu)),
                ]
        print(
            f"stages of ours_{mode} (best of {repeat}): "
            + ", ".join(
                f"{k} {v[0]:.2f} s (CPU {v[2]:.2f} s, peak RSS {v[1]:.0f} MiB)"
                for k, v in best.items()
            )
        )


def write_workload(workdir: str, n_q: int, per_q: int, classes: bool) -> tuple[str, str]:
    """The qrels and the run (written once; reused when present)."""
    stem = os.path.join(workdir, f"{'classes' if classes else 'flat'}_{n_q}x{per_q}")
    qrels, run = stem + ".qrels", stem + ".run"
    if os.path.exists(qrels) and os.path.exists(run):
        return qrels, run
    rng = np.random.default_rng(2024)
    with open(qrels + ".part", "w") as fh:
        if classes:
            # classes of per_q gallery items; every query judges its class's items
            n_classes = max(n_q // 20, 1)
            names = np.array([f"g{i:07d}" for i in rng.permutation(n_classes * per_q)])
            for q in range(n_q):
                c = q % n_classes
                docs = names[c * per_q : (c + 1) * per_q]
                fh.write("".join(f"q{q} 0 {d} 1\n" for d in docs.tolist()))
        else:
            # every document judged once, docnos in no order
            perm = rng.permutation(n_q * per_q)
            grades = rng.choice(3, n_q * per_q, p=[0.6, 0.3, 0.1])
            for q in range(n_q):
                a, b = q * per_q, (q + 1) * per_q
                fh.write(
                    "".join(
                        f"{10000 + q} 0 D{d:011d} {g}\n"
                        for d, g in zip(perm[a:b].tolist(), grades[a:b].tolist())
                    )
                )
    os.replace(qrels + ".part", qrels)
    with open(run + ".part", "w") as fh:
        if classes:
            n_classes = max(n_q // 20, 1)
            for q in range(n_q):
                c = q % n_classes
                pick = rng.choice(n_classes * per_q, 100, replace=False)
                fh.write(
                    "".join(
                        f"q{q} Q0 {names[d]} {r} {100 - r}.5 bench\n"
                        for r, d in enumerate(pick.tolist(), 1)
                    )
                )
        else:
            # one query: its judged documents, and unjudged ones up to 1,000
            with open(qrels) as qf:
                first = [next(qf).split()[2] for _ in range(per_q)]
            others = rng.permutation(n_q * per_q)[: max(1000 - per_q, 0)]
            docs = first + [f"X{d:011d}" for d in others.tolist()]
            order = rng.permutation(len(docs))
            fh.write(
                "".join(
                    f"10000 Q0 {docs[i]} {r} {1000 - r}.25 bench\n"
                    for r, i in enumerate(order.tolist(), 1)
                )
            )
    os.replace(run + ".part", run)
    return qrels, run


def timed(cmd: list[str], out_path: str | None = None) -> tuple[float, int, float]:
    """Wall seconds, peak RSS (bytes) and CPU seconds (user + system, every
    thread) of one fresh process."""
    with (
        open(out_path or os.devnull, "wb") as out,
        tempfile.TemporaryFile() as err,
    ):
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed:\n{err.read().decode()}")
        return wall, usage.ru_maxrss * 1024, usage.ru_utime + usage.ru_stime


def ours_command() -> list[str]:
    exe = os.path.join(os.path.dirname(sys.executable), "shrec-eval")
    if os.path.exists(exe):
        return [exe]
    exe = shutil.which("shrec-eval")
    return [exe] if exe else [sys.executable, "-m", "shrec_eval"]


def mib(n: float) -> str:
    return f"{n / 2**20:.0f} MiB"


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--trec-eval", help="trec_eval binary built from source (make, -O2)")
    p.add_argument("--repeat", type=int, default=5, help="rounds after the warm-up (5)")
    p.add_argument("--workdir", help="keep the workload there (default: a temporary folder)")
    p.add_argument("--queries", type=int, help="queries (80,000; 2,000 with --classes)")
    p.add_argument("--per-query", type=int, help="judgments per query (50; 1,000 with --classes)")
    p.add_argument("--classes", action="store_true", help="the top-K workload's qrels")
    p.add_argument("--no-pandas", action="store_true", help="leave the pandas floor out")
    p.add_argument("--stages", action="store_true", help="where our command's time goes")
    args = p.parse_args(argv)
    n_q = args.queries or (2000 if args.classes else 80_000)
    per_q = args.per_query or (1000 if args.classes else 50)
    workdir = args.workdir or tempfile.mkdtemp(prefix="shrec-bench-qrels-")
    os.makedirs(workdir, exist_ok=True)
    with open("/proc/loadavg") as fh:
        load = " ".join(fh.read().split()[:3])
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load {load}; in {workdir}")
    qrels, run = write_workload(workdir, n_q, per_q, args.classes)
    size = os.path.getsize(qrels)
    with open(qrels, "rb") as fh:
        n_lines = sum(block.count(b"\n") for block in iter(lambda: fh.read(1 << 24), b""))
    print(
        f"qrels {os.path.basename(qrels)}: {n_lines:,} lines, {size / 1e6:.1f} MB; "
        f"run {os.path.basename(run)}: {os.path.getsize(run) / 1e6:.2f} MB"
    )
    json_out = os.path.join(workdir, "out.json")
    text_out = os.path.join(workdir, "ours.txt")
    ours = ours_command() + ["evaluate", "--profile", "trec_eval", "-c", qrels, run]
    sides: dict[str, tuple[list[str], str | None]] = {
        "ours_text": (ours + ["--format", "trec_eval"], text_out),
        "ours_json": (ours + ["--json", json_out], None),
    }
    trec_eval = args.trec_eval or shutil.which("trec_eval")
    if trec_eval:
        sides["trec_eval"] = ([trec_eval, "-c", qrels, run], os.path.join(workdir, "te.txt"))
    else:
        print("no trec_eval (--trec-eval PATH): its column is left out")
    if not args.no_pandas:
        sides["pandas"] = ([sys.executable, "-c", PANDAS, qrels], None)
    times: dict[str, list[tuple[float, int]]] = {k: [] for k in sides}
    names = list(sides)
    for r in range(args.repeat + 1):
        for k in names if r % 2 else names[::-1]:
            got = timed(*sides[k])
            if r:
                times[k].append(got)
    for k, v in times.items():
        secs, cpu = [x[0] for x in v], [x[2] for x in v]
        rss = max(x[1] for x in v)
        print(
            f"{k:9s}: min {min(secs):.2f} s, median {statistics.median(secs):.2f} s "
            f"({', '.join(f'{s:.2f}' for s in secs)}); CPU median {statistics.median(cpu):.2f} s; "
            f"peak RSS {mib(rss)} = "
            f"{rss / size:.1f}x the qrels"
        )
    print(
        f"our text: {os.path.getsize(text_out):,} bytes; our JSON: "
        f"{os.path.getsize(json_out) / 1e6:.0f} MB"
    )
    if "trec_eval" in sides:
        with open(text_out, "rb") as a, open(sides["trec_eval"][1], "rb") as b:
            same = a.read() == b.read()
        print(f"our text is trec_eval's output byte for byte: {'yes' if same else 'NO'}")
    for ours_side in ("ours_text", "ours_json"):
        for other in names[2:]:
            ratios = [a[0] / b[0] for a, b in zip(times[ours_side], times[other])]
            cpu_ratios = [a[2] / b[2] for a, b in zip(times[ours_side], times[other])]
            print(
                f"{ours_side} / {other}: median {statistics.median(ratios):.2f} "
                f"(pair by pair {', '.join(f'{x:.2f}' for x in ratios)}); CPU "
                f"{statistics.median(cpu_ratios):.2f}"
            )
    if args.stages:
        stages(qrels, run, json_out, args.repeat)
    if not args.workdir:
        shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
