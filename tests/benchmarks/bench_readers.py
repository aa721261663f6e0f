"""Benchmark of the readers (not a test; figures go into the issue note).

    python tests/benchmarks/bench_readers.py [--skip-9000] [--workdir DIR]

(a) parsing ASCII dissimilarity matrices of 3,000 x 3,000 and 9,000 x 9,000
    (SHREC 2014's size): throughput of our reader (with its checks) against
    ``numpy.loadtxt`` on the same file; target ratio >= 1.0;
(b) end to end from files on disk, w1 and w2 of bench_engine.py written as
    TREC qrels + run: our read + score of every measure against
    pytrec-eval-terrier's read of the same files into dicts + evaluate of
    map, P_1, Rprec, ndcg_cut_100, recall_100; target ratio <= 0.5;
(c) peak memory when scoring a 10,000 x 10,000 binary matrix (memory-mapped;
    measured in a fresh process: peak RSS and the tracemalloc peak).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
from bench_engine import PEER_MEASURES, make_contest, time_best
from shrec_eval import Assessment, evaluate
from shrec_eval.reading.formats.matrix import read_ascii_matrix
from shrec_eval.reading.readers import load_assessment, load_run

#: this folder: child processes import the benchmark helpers from it
HERE = os.path.dirname(os.path.abspath(__file__))


def flat_assessment(n: int) -> Assessment:
    """n x n leave-one-out, classes of 20: what the matrix belongs to."""
    items = [str(i) for i in range(n)]
    judg = {
        q: {items[j]: 1 for j in range(i - i % 20, min(i - i % 20 + 20, n))}
        for i, q in enumerate(items)
    }
    return Assessment.from_judgments(judg, items, leave_one_out=True)


def bench_ascii(n: int, workdir: str, repeat: int) -> None:
    path = os.path.join(workdir, f"matrix_{n}.txt")
    if not os.path.exists(path):
        rng = np.random.default_rng(n)
        with open(path, "w") as fh:
            for start in range(0, n, 500):
                np.savetxt(fh, rng.random((min(500, n - start), n)) * 100, fmt="%.6f")
    a = flat_assessment(n)
    size = os.path.getsize(path) / 2**20
    # alternate the two so that neither profits from a warmer cache
    t_np = t_ours = float("inf")
    for _ in range(repeat):
        t, ref = time_best(lambda: np.loadtxt(path), 1)
        t_np = min(t_np, t)
        del ref
        t, run = time_best(lambda: read_ascii_matrix(path, a), 1)
        t_ours = min(t_ours, t)
        del run
    print(
        f"(a) ASCII {n} x {n} ({size:.0f} MiB): numpy.loadtxt {t_np:.2f} s "
        f"({size / t_np:.0f} MiB/s), ours {t_ours:.2f} s ({size / t_ours:.0f} MiB/s); "
        f"throughput ratio ours / loadtxt = {t_np / t_ours:.2f}"
    )


def write_trec(workdir, name, rel, grades, lists):
    qrels = os.path.join(workdir, f"{name}.qrels")
    run = os.path.join(workdir, f"{name}.run")
    if not os.path.exists(run):
        with open(qrels, "w") as fh:
            for q, (r, g) in enumerate(zip(rel, grades)):
                fh.writelines(f"q{q} 0 d{j} {k}\n" for j, k in zip(r, g))
        with open(run, "w") as fh:
            L = lists.shape[1]
            for q, row in enumerate(lists):
                fh.write(
                    "".join(
                        f"q{q} Q0 d{j} {i + 1} {L - i} bench\n" for i, j in enumerate(row.tolist())
                    )
                )
    return qrels, run


def bench_end_to_end(name, n_q, n_items, list_len, workdir, repeat):
    import pytrec_eval

    rel, grades, lists = make_contest(n_q, n_items, list_len)
    qrels, run = write_trec(workdir, name, rel, grades, lists)

    def ours():
        a = load_assessment(qrels, collection_size=n_items)
        return evaluate(a, load_run(run, a))

    def peer():
        with open(qrels) as fh:
            q = pytrec_eval.parse_qrel(fh)
        with open(run) as fh:
            r = pytrec_eval.parse_run(fh)
        return pytrec_eval.RelevanceEvaluator(q, PEER_MEASURES).evaluate(r)

    t_ours = t_peer = float("inf")
    for _ in range(repeat):
        t, res = time_best(ours, 1)
        t_ours = min(t_ours, t)
        t, p = time_best(peer, 1)
        t_peer = min(t_peer, t)
    ap = np.array([p[q]["map"] for q in res.query_ids])
    assert np.allclose(ap, res.column("ap_trec_r"), atol=1e-12)
    mb = os.path.getsize(run) / 2**20
    print(
        f"(b) {name} end to end ({n_q} queries, run file {mb:.0f} MiB): ours read+score "
        f"{t_ours:.2f} s, pytrec_eval read+evaluate {t_peer:.2f} s; "
        f"ratio ours / pytrec_eval = {t_ours / t_peer:.3f}"
    )


CHILD = r"""
import sys, time, tracemalloc

def hwm():  # peak RSS of this process image (ru_maxrss survives exec on Linux)
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024

sys.path.insert(0, sys.argv[3])  # this folder, for bench_readers
from bench_readers import flat_assessment
from shrec_eval import evaluate
from shrec_eval.reading.readers import load_run
a = flat_assessment(int(sys.argv[2]))
base = hwm()
tracemalloc.start()
t = time.perf_counter()
res = evaluate(a, load_run(sys.argv[1], a, format="binary-matrix"))
t = time.perf_counter() - t
peak = tracemalloc.get_traced_memory()[1]
rss = hwm()
print(t, peak, base, rss, res.mean("nn"))
"""


def bench_binary(n, workdir):
    path = os.path.join(workdir, f"matrix_{n}.bin")
    if not os.path.exists(path):
        rng = np.random.default_rng(1)
        with open(path, "wb") as fh:
            for start in range(0, n, 1000):
                (rng.random((min(1000, n - start), n)) * 100).astype("<f4").tofile(fh)
    out = subprocess.run(
        [sys.executable, "-c", CHILD, path, str(n), HERE],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    t, peak, base, rss = float(out[0]), int(out[1]), int(out[2]), int(out[3])
    size = os.path.getsize(path) / 2**20
    print(
        f"(c) binary {n} x {n} ({size:.0f} MiB, memory-mapped): load + score {t:.2f} s; "
        f"peak traced allocations {peak / 2**20:.0f} MiB; peak RSS {rss / 2**20:.0f} MiB "
        f"({(rss - base) / 2**20:.0f} MiB above the process before loading, page cache of "
        "the mapped file included)"
    )


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--skip-9000", action="store_true")
    p.add_argument("--skip-ascii", action="store_true")
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "shrec-bench"))
    p.add_argument("--repeat", type=int, default=2)
    args = p.parse_args(argv)
    os.makedirs(args.workdir, exist_ok=True)
    print(f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} cpus")
    if not args.skip_ascii:
        bench_ascii(3000, args.workdir, args.repeat + 1)
    if not (args.skip_9000 or args.skip_ascii):
        bench_ascii(9000, args.workdir, args.repeat)
    bench_end_to_end("w1", 2000, 2000, 2000, args.workdir, args.repeat)
    bench_end_to_end("w2", 10000, 10000, 1000, args.workdir, args.repeat)
    bench_binary(10000, args.workdir)


if __name__ == "__main__":
    main()
