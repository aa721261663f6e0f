"""Issue 33 in one run: top-K of feature vectors against faiss' exact
search, the numpy floor and pytorch-metric-learning, at 100,000 and
1,000,000 gallery items, and one vs two Dask workers (not a test; the
figures go into docs/scale.md).

    python tests/benchmarks/bench_topk_faiss.py [--repeat N] [--workdir DIR]
        [--skip-100k] [--skip-1m] [--skip-dask] [--no-floor] [--pml PYTHON [--pml-1m]]
        [--queries N] [--k K] [--class-size R [R ...]] [--faiss-blas-threshold N]
        [--faiss-python PYTHON] [--faiss-env NAME=VALUE ...]

Every side is a whole process, measured in turn (A B C, then C B A, ...), its peak
memory and its CPU seconds (user + system) the kernel's account of it
(``ru_maxrss``, ``ru_utime``, ``ru_stime``):

* **ours**: ``shrec-eval evaluate x.qrels --collection ids.txt FEATURES
  --metric dot --top-k K --json out.json`` as a user runs it (reading, the
  selection, every measure and curve, the JSON);
* **faiss** (``faiss-cpu``: never a dependency; ``--faiss-python PYTHON``
  runs it with another environment's Python, this one's by default): a
  process that loads the arrays and runs ``IndexFlatIP`` (exact
  inner-product search, its own threads on every core), nothing else
  (faiss-cpu 1.15 calls BLAS only from 128,000 queries, earlier versions
  from 20: ``--faiss-blas-threshold 20`` gives its BLAS path).  Its
  environment by default (``--faiss-env``, the fastest faiss: see
  docs/scale.md): ``OPENBLAS_CORETYPE`` the core type numpy's OpenBLAS
  finds here (the OpenBLAS bundled in faiss-cpu's wheels may not know
  the processor and fall back to its slowest kernels: Prescott, 3 to 4
  times slower) and ``OMP_WAIT_POLICY=PASSIVE`` (its OpenMP threads do not
  spin while they wait: far faster when other work shares the cores);
* **floor**: a process that loads the arrays and runs what any exact top-K
  must do with numpy: the product of all queries with blocks of 16,384
  gallery rows (BLAS on every core) and ``argpartition`` of each block's
  scores merged with the best K so far;
* **pml** (``--pml PYTHON``: a Python holding torch and
  pytorch-metric-learning, never a dependency of ours): its
  ``AccuracyCalculator`` (precision_at_1, r_precision,
  mean_average_precision_at_r; inner product, k = K) on the same arrays.

Workloads: 2,000 queries x 100,000 gallery x 512 float32 in a cross-domain
``.npz`` (the issue's command), and 2,000 queries x 1,000,000 gallery x 512
float32 in one memory-mapped ``.npy`` of 2 GB (queries first) with an ids
file (``--ids``).  Relevance: classes of 100 gallery items, R = 100 (a qrels
of 200,000 lines); the 100,000 workload also with classes of 1,000 items,
R = 1,000 (a qrels of 2,000,000 lines, 31 MiB; ``--class-size`` gives the
sizes, 100 and 1,000 by default), every side of both in the same rounds.

``--skip-dask`` leaves out the cluster figures: the library's
``shrec_eval.scoring.distributed.evaluate`` of the 100,000 workload on a
LocalCluster of 1, then 2 worker processes (one thread each; the cluster
started before the clock), the speed-up, and the cost of one gallery shard
per query and gallery item (what docs/scale.md's estimate multiplies).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

import numpy as np

DIM, PER_CLASS = 512, 100  # PER_CLASS: the default class size (R)

FAISS_CHILD = r"""
import sys, time, numpy as np, faiss
kind, path, nq, k = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if len(sys.argv) > 5:
    faiss.cvar.distance_compute_blas_threshold = int(sys.argv[5])
if kind == "npz":
    z = np.load(path)
    q, g = z["query_features"], z["gallery_features"]
else:
    a = np.load(path, mmap_mode="r")
    q, g = np.ascontiguousarray(a[:nq]), a[nq:]
index = faiss.IndexFlatIP(q.shape[1])
for s in range(0, g.shape[0], 1 << 17):
    index.add(np.ascontiguousarray(g[s : s + (1 << 17)]))
D, I = index.search(q, k)
print(int(I[0, 0]))
"""

FLOOR_CHILD = r"""
import sys, numpy as np
kind, path, nq, k = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
if kind == "npz":
    z = np.load(path)
    q, g = z["query_features"], z["gallery_features"]
else:
    a = np.load(path, mmap_mode="r")
    q, g = np.ascontiguousarray(a[:nq]), a[nq:]
best_d = np.empty((nq, 0), np.float32)
best_i = np.empty((nq, 0), np.int64)
for start in range(0, g.shape[0], 16384):
    blk = np.require(g[start : start + 16384], requirements=["C", "A"])
    d = np.concatenate((best_d, -(q @ blk.T)), axis=1)
    cols = np.arange(start, start + blk.shape[0])
    i = np.concatenate((best_i, np.broadcast_to(cols, (nq, cols.size))), axis=1)
    if d.shape[1] > k:
        p = np.argpartition(d, k - 1, axis=1)[:, :k]
        d, i = np.take_along_axis(d, p, 1), np.take_along_axis(i, p, 1)
    best_d, best_i = d, i
s = np.argsort(best_d, axis=1, kind="stable")
print(int(best_i[0, s[0, 0]]))
"""

PML_CHILD = r"""
import sys, json, numpy as np, torch
from pytorch_metric_learning.distances import DotProductSimilarity
from pytorch_metric_learning.utils.accuracy_calculator import AccuracyCalculator
from pytorch_metric_learning.utils.inference import CustomKNN
kind, path, labels = sys.argv[1], sys.argv[2], sys.argv[5]
nq, k = int(sys.argv[3]), int(sys.argv[4])
torch.set_num_threads(2)
if kind == "npz":
    z = np.load(path)
    q, g = z["query_features"], z["gallery_features"]
else:
    a = np.load(path, mmap_mode="r")
    q, g = np.ascontiguousarray(a[:nq]), np.ascontiguousarray(a[nq:])
lab = np.load(labels)
calc = AccuracyCalculator(
    include=("precision_at_1", "r_precision", "mean_average_precision_at_r"),
    k=k,
    knn_func=CustomKNN(DotProductSimilarity(normalize_embeddings=False), batch_size=256),
)
acc = calc.get_accuracy(
    torch.from_numpy(q), torch.from_numpy(lab["query"]),
    torch.from_numpy(np.asarray(g)), torch.from_numpy(lab["gallery"]),
    ref_includes_query=False,
)
print(json.dumps({key: float(v) for key, v in acc.items()}))
"""


def mib(n: float) -> str:
    return f"{n / 2**20:,.0f} MiB"


def _anon(pid: int) -> int:
    """The process's anonymous resident memory (its own, not mapped files)."""
    try:
        with open(f"/proc/{pid}/status") as fh:
            for line in fh:
                if line.startswith("RssAnon:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


#: every side as a user runs it: with the bytecode an install compiles (a
#: shell with PYTHONDONTWRITEBYTECODE set would make ours compile its
#: modules at every run, some 0.3 s, while numpy and faiss have theirs)
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run(cmd: list[str], env: dict[str, str] | None = None) -> dict:
    """One whole process: wall seconds, CPU seconds (user + system: what a
    loaded machine's wall time hides), peak RSS (ru_maxrss: with the pages
    of mapped files it touched) and peak anonymous RSS (sampled)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env={**ENV, **(env or {})})
        peak = [0]
        stop = threading.Event()

        def sample() -> None:
            while not stop.wait(0.01):
                peak[0] = max(peak[0], _anon(proc.pid))

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        stop.set()
        sampler.join()
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            raise SystemExit(f"{cmd[:3]} failed:\n{err.read().decode()[-3000:]}")
        out.seek(0)
        return {
            "wall": wall,
            "cpu": usage.ru_utime + usage.ru_stime,
            "hwm": usage.ru_maxrss * 1024,
            "anon": peak[0],
            "out": out.read().decode(),
        }


def make_workload(workdir: str, n: int, nq: int, kind: str, per_class: int = PER_CLASS) -> dict:
    """Features, qrels, collection list (and labels for pml), written once."""
    stem = os.path.join(workdir, f"g{n}" if per_class == PER_CLASS else f"g{n}r{per_class}")
    paths = {
        "qrels": stem + ".qrels",
        "collection": stem + ".collection.txt",
        "labels": stem + ".labels.npz",
        "features": stem + (".npz" if kind == "npz" else ".npy"),
        "ids": stem + ".ids.txt" if kind == "npy" else None,
        "kind": kind,
        "n": n,
        "nq": nq,
        "per_class": per_class,
    }
    if os.path.exists(paths["features"]):
        return paths
    rng = np.random.default_rng(0)
    n_cls = -(-n // per_class)
    centres = rng.standard_normal((n_cls, DIM)).astype(np.float32)
    q_cls = rng.integers(0, n_cls, nq)
    q = centres[q_cls] * 0.35 + rng.standard_normal((nq, DIM), dtype=np.float32)

    def gallery():
        for s in range(0, n, 1 << 16):
            e = min(s + (1 << 16), n)
            cls = np.arange(s, e) // per_class
            yield centres[cls] * 0.35 + rng.standard_normal((e - s, DIM), dtype=np.float32)

    part = paths["features"] + ".part"
    if kind == "npz":
        np.savez(
            stem + ".tmp.npz",
            query_features=q,
            query_ids=np.array([f"q{i}" for i in range(nq)]),
            gallery_features=np.concatenate(list(gallery())),
            gallery_ids=np.array([f"g{i}" for i in range(n)]),
        )
        os.replace(stem + ".tmp.npz", paths["features"])
    else:
        arr = np.lib.format.open_memmap(part, mode="w+", dtype="<f4", shape=(nq + n, DIM))
        arr[:nq] = q
        at = nq
        for block in gallery():
            arr[at : at + block.shape[0]] = block
            at += block.shape[0]
        arr.flush()
        del arr
        with open(paths["ids"], "w") as fh:
            fh.writelines(f"q{i}\n" for i in range(nq))
            fh.writelines(f"g{i}\n" for i in range(n))
        os.replace(part, paths["features"])
    with open(paths["collection"], "w") as fh:
        fh.writelines(f"g{i}\n" for i in range(n))
    with open(paths["qrels"], "w") as fh:
        for i, c in enumerate(q_cls):
            members = range(c * per_class, min(n, (c + 1) * per_class))
            fh.writelines(f"q{i} 0 g{j} 1\n" for j in members)
    np.savez(paths["labels"], query=q_cls, gallery=np.arange(n) // per_class)
    return paths


def faiss_env(given: list[str] | None) -> dict[str, str]:
    """The faiss side's environment variables: ``NAME=VALUE`` items, or by
    default the core type of numpy's OpenBLAS and passive OpenMP threads."""
    if given is not None:
        return dict(item.split("=", 1) for item in given if item)
    env = {"OMP_WAIT_POLICY": "PASSIVE"}
    try:
        from threadpoolctl import threadpool_info

        np.ones((2, 2)) @ np.ones((2, 2))  # (numpy's BLAS loaded)
        arch = [i.get("architecture") for i in threadpool_info() if i["internal_api"] == "openblas"]
        if arch and arch[0]:
            env["OPENBLAS_CORETYPE"] = arch[0]
    except ImportError:
        pass
    return env


def faiss_version(python: str, env: dict[str, str]) -> str | None:
    """The faiss-cpu version that ``python`` imports (None: none)."""
    got = subprocess.run(
        [python, "-c", "import faiss; print(faiss.__version__)"],
        capture_output=True,
        text=True,
        env={**ENV, **env},
    )
    return got.stdout.strip() if got.returncode == 0 else None


def shrec_eval_command() -> str:
    """The shrec-eval beside the Python that runs this (the install being
    measured), else the one on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "shrec-eval")
    return beside if os.path.exists(beside) else shutil.which("shrec-eval") or "shrec-eval"


def ours_cmd(w: dict, k: int, out: str, *extra: str) -> list[str]:
    cmd = [
        shrec_eval_command(),
        "evaluate",
        w["qrels"],
        "--collection",
        w["collection"],
        w["features"],
        "--metric",
        "dot",
        "--top-k",
        str(k),
        "--json",
        out,
        *extra,
    ]
    if w["ids"]:
        cmd += ["--ids", w["ids"]]
    return cmd


def label(w: dict) -> str:
    return f"{w['n']:,} gallery, R = {w['per_class']:,}"


def compare(
    ws: list[dict],
    k: int,
    repeat: int,
    pml: str | None,
    floor: bool = True,
    blas_threshold: int | None = None,
    faiss_python: str | None = None,
    faiss_vars: dict[str, str] | None = None,
) -> None:
    """Every side of every workload of ``ws`` in each round, the order of
    the round the reverse of the last's (a machine's drift falls on every
    side and workload alike); ratios pair by pair within a workload."""
    faiss_python = faiss_python or sys.executable
    faiss_vars = faiss_vars or {}
    version = faiss_version(faiss_python, faiss_vars)
    have_faiss = version is not None
    if have_faiss:
        print(
            f"    (faiss-cpu {version}, {faiss_python}; "
            + " ".join(f"{k}={v}" for k, v in sorted(faiss_vars.items()))
            + (f", blas threshold {blas_threshold}" if blas_threshold is not None else "")
            + ")"
        )
    else:
        print(f"    (faiss-cpu is not installed for {faiss_python}: no faiss column)")
    envs: dict[tuple[int, str], dict[str, str]] = {}
    sides: dict[tuple[int, str], list[str]] = {}
    for j, w in enumerate(ws):
        sides[j, "ours"] = ours_cmd(w, k, os.path.join(os.path.dirname(w["qrels"]), "out.json"))
        args = [w["kind"], w["features"], str(w["nq"]), str(k)]
        if have_faiss:
            sides[j, "faiss"] = [faiss_python, "-c", FAISS_CHILD, *args]
            envs[j, "faiss"] = faiss_vars
            if blas_threshold is not None:
                sides[j, "faiss"].append(str(blas_threshold))
        if floor:
            sides[j, "floor"] = [sys.executable, "-c", FLOOR_CHILD, *args]
        if pml:
            sides[j, "pml"] = [pml, "-c", PML_CHILD, *args, w["labels"]]
    res = {key: [] for key in sides}
    for w in ws:
        with open(w["features"], "rb") as fh:  # the file in the page cache for every side
            while fh.read(1 << 24):
                pass
    for key, cmd in sides.items():  # one round untimed: bytecode written, libraries read
        run(cmd, envs.get(key))
    for r in range(repeat):
        for key in list(sides)[:: 1 if r % 2 == 0 else -1]:
            res[key].append(run(sides[key], envs.get(key)))
    for j, w in enumerate(ws):
        size = os.path.getsize(w["features"])
        print(
            f"[{label(w)}] {w['nq']:,} queries x {w['n']:,} x {DIM} float32 "
            f"({mib(size)} {os.path.splitext(w['features'])[1]}), classes of "
            f"{w['per_class']:,} ({os.path.getsize(w['qrels']) / 2**20:,.0f} MiB qrels), "
            f"dot, k = {k}, {repeat} rounds, medians:"
        )
        mine = [key for key in sides if key[0] == j]
        for key in mine:
            s = key[1]
            wall = statistics.median(x["wall"] for x in res[key])
            cpu = statistics.median(x["cpu"] for x in res[key])
            hwm = max(x["hwm"] for x in res[key])
            anon = max(x["anon"] for x in res[key])
            line = (
                f"    {s:6s} {wall:7.2f} s (CPU {cpu:6.2f} s)  peak RSS {mib(hwm):>10s} "
                f"(anonymous {mib(anon):>10s})"
            )
            if s != "ours":
                pairs = list(zip(res[j, "ours"], res[key]))
                ratio = statistics.median(o["wall"] / x["wall"] for o, x in pairs)
                cpu_ratio = statistics.median(o["cpu"] / x["cpu"] for o, x in pairs)
                line += f"   ours / {s} = {ratio:.2f} (pair by pair; CPU {cpu_ratio:.2f})"
            print(line)
            print("           rounds: " + " ".join(f"{x['wall']:.2f}" for x in res[key]))
        if pml:
            with open(os.path.join(os.path.dirname(w["qrels"]), "out.json"), "rb") as fh:
                mean = json.load(fh)["runs"][0]["mean"]
            theirs = json.loads(res[j, "pml"][0]["out"].strip().splitlines()[-1])
            for ours_key, their_key in (
                ("map@r", "mean_average_precision_at_r"),
                ("ft_psb", "r_precision"),
                ("nn", "precision_at_1"),
            ):
                print(
                    f"    {ours_key:7s} {mean[ours_key]:.8f}  pml {their_key} "
                    f"{theirs[their_key]:.8f}"
                    f"  (difference {abs(mean[ours_key] - theirs[their_key]):.1e})"
                )


DASK_CHILD = r"""
import sys, time, json
from shrec_eval.reading.readers import load_assessment, load_run
from shrec_eval.scoring import distributed as dist
from shrec_eval.kernels import distances as dm
import distributed
qrels, coll, feats, k, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
if __name__ == "__main__":
    a = load_assessment(qrels, collection=coll)
    with distributed.LocalCluster(n_workers=n, threads_per_worker=1, dashboard_address=":0",
                                  silence_logs=50) as cluster, distributed.Client(cluster) as c:
        c.run(lambda: None)
        run = load_run(feats, a, metric="dot", top_k=k)
        t = time.perf_counter()
        res = dist.evaluate(c, a, run)
        total = time.perf_counter() - t
        # one gallery shard alone on one worker: the cost the estimate scales
        d = run.distances
        tiles = list(run.group_tiles(0))
        ref = c.scatter(d, broadcast=True)
        c.submit(dist._select_shard, ref, tiles, 0, 1, run.keep, dm.TILE_COLS, pure=False).result()
        pieces = min(d.n_pieces, 24)
        t = time.perf_counter()
        c.submit(dist._select_shard, ref, tiles, 0, pieces, run.keep, dm.TILE_COLS,
                 pure=False).result()
        shard = time.perf_counter() - t
        pairs = a.n_queries * min(d.shape[1], pieces * dm.TILE_COLS)
    print(json.dumps({"total": total, "shard": shard, "pairs": pairs}))
"""


def dask_figures(w: dict, k: int, repeat: int) -> None:
    try:
        import distributed  # noqa: F401
    except ImportError:
        print("[dask] distributed is not installed: pip install 'shrec-eval[dask]'")
        return
    got = {1: [], 2: []}
    for _ in range(repeat):
        for n in (1, 2):
            args = [w["qrels"], w["collection"], w["features"], str(k), str(n)]
            got[n].append(json.loads(run([sys.executable, "-c", DASK_CHILD, *args])["out"]))
    t1 = statistics.median(x["total"] for x in got[1])
    t2 = statistics.median(x["total"] for x in got[2])
    per = statistics.median(x["shard"] / x["pairs"] for x in got[1] + got[2])
    print(
        f"[dask] {w['nq']:,} x {w['n']:,} top-{k} on a LocalCluster (started before the clock): "
        f"1 worker {t1:.2f} s, 2 workers {t2:.2f} s, speed-up {t1 / t2:.2f} "
        f"(2 cores, shared with the machine's other work: load {os.getloadavg()[0]:.1f})"
    )
    print(
        f"[dask] one gallery shard on one worker: {per * 1e9:.2f} s per 10^9 query x item "
        f"pairs of {DIM} dimensions ({2 * DIM * 1e9 / per / 1e9 / 1e9:.0f} GFLOP/s of products)"
    )


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--workdir")
    p.add_argument("--queries", type=int, default=2000)
    p.add_argument("--k", type=int, default=100)
    p.add_argument(
        "--class-size",
        type=int,
        nargs="+",
        default=[100, 1000],
        metavar="R",
        help="the 100,000 workload's class sizes (R), each its own workload, in the same rounds",
    )
    p.add_argument(
        "--faiss-blas-threshold",
        type=int,
        metavar="N",
        help="faiss' distance_compute_blas_threshold (its exact search calls BLAS from N "
        "queries: 20 in earlier versions, 128,000 in faiss-cpu 1.15)",
    )
    p.add_argument(
        "--faiss-python",
        metavar="PYTHON",
        help="the Python that runs the faiss side (a separate environment holding "
        "faiss-cpu; this one's by default)",
    )
    p.add_argument(
        "--faiss-env",
        nargs="*",
        metavar="NAME=VALUE",
        help="the faiss side's environment variables (by default OPENBLAS_CORETYPE, the "
        "core type numpy's OpenBLAS finds, and OMP_WAIT_POLICY=PASSIVE; none: --faiss-env)",
    )
    p.add_argument("--skip-1m", action="store_true")
    p.add_argument("--skip-dask", action="store_true")
    p.add_argument("--skip-100k", action="store_true")
    p.add_argument("--no-floor", action="store_true", help="leave out the numpy floor")
    p.add_argument(
        "--pml-1m", action="store_true", help="pytorch-metric-learning at 1,000,000 too (slow)"
    )
    p.add_argument(
        "--pml", metavar="PYTHON", help="a Python with torch and pytorch-metric-learning"
    )
    args = p.parse_args(argv)
    workdir = args.workdir or tempfile.mkdtemp(prefix="bench_topk_faiss_")
    os.makedirs(workdir, exist_ok=True)
    t = time.perf_counter()
    print(f"(load average at the start: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    ws = [make_workload(workdir, 100_000, args.queries, "npz", r) for r in args.class_size]
    w = ws[0]
    if not args.skip_100k:
        compare(
            ws,
            args.k,
            args.repeat,
            args.pml,
            floor=not args.no_floor,
            blas_threshold=args.faiss_blas_threshold,
            faiss_python=args.faiss_python,
            faiss_vars=faiss_env(args.faiss_env),
        )
    if not args.skip_dask:
        dask_figures(w, args.k, args.repeat)
    if not args.skip_1m:
        w = make_workload(workdir, 1_000_000, args.queries, "npy")
        compare(
            [w],
            args.k,
            max(1, args.repeat - 1),
            args.pml if args.pml_1m else None,
            floor=not args.no_floor,
            blas_threshold=args.faiss_blas_threshold,
            faiss_python=args.faiss_python,
            faiss_vars=faiss_env(args.faiss_env),
        )
    print(
        f"(workloads in {workdir}; {time.perf_counter() - t:.0f} s in all; load average at "
        f"the end: {os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    main()
