"""Issue 12 in one run: from files to JSON against pytrec_eval, reading
speed, and matrices against the speed of a sort (not a test; the figures go
into the issue note).

    python tests/benchmarks/bench_end_to_end.py [--repeat N] [--workdir DIR]
                                             [--shapenet] [--big-matrix]
                                             [--trec-eval PATH]

It writes the workloads into a temporary folder (or DIR, reused when the
files are there) and prints, each measured side by side in this one run:

1. whole command as a user runs it, ``shrec-eval evaluate QRELS RUN --json
   OUT`` (a fresh process, files in, JSON out) against a fresh Python process
   with pytrec-eval-terrier reading the same files into dicts and evaluating
   map, P_1, Rprec, ndcg_cut_100, recall_100; w1 = 2,000 queries x full lists
   of 2,000 items, w2 = 10,000 queries x lists of 1,000 (collection 10,000).
   Runs alternate A B A B ...; the ratio is the median of the pair ratios
   (target <= 0.3); peak RSS of each process (ru_maxrss);
2. the JSON share of our command: building and writing the document
   (``to_json`` + ``write_json``, timed alone in this process) over the whole
   command's median time (target <= 10 %); also 1 - (the command without
   --json) / (with), which is noisier;
3. reading speed of the TREC run (w1, 115 MB) and of a qrels judging every
   item of w1 (4 M lines), in MB/s (target >= 120);
4. a 10,000 x 10,000 binary float32 matrix scored (read + every measure and
   curve, a fresh process) against the floor: numpy sorting every row by
   (distance, index) packed into one uint64 key, one block of rows at a time
   (target <= 2x; both sides with the allocator setting the command line and
   the app start with); peak RSS less the file cache (the largest RssAnon seen,
   sampled every 2 ms; target <= 600 MB); and the whole command as a user
   runs it, ``shrec-eval evaluate CLA MATRIX --json OUT``, against the floor
   as a fresh process of its own;
5. an ASCII matrix (3,000 x 3,000 by default): our parse against
   ``numpy.loadtxt`` (target ratio <= 1) and the scoring of the parsed matrix
   against the same floor (target <= 2x).

Scale workloads, not run by default: ``--shapenet`` (10,265 queries x 1,000,
end to end as in 1., target <= 0.25 and <= 800 MB), ``--big-matrix`` (a
50,000 x 50,000 binary matrix, 10 GB on disk, as in 4., target <= 2x and
<= 2 GB RSS less the file cache).
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
from bench_engine import make_contest, time_best
from bench_readers import flat_assessment, write_trec

#: this folder: child processes import the benchmark helpers from it
HERE = os.path.dirname(os.path.abspath(__file__))

PEER = r"""
import sys, pytrec_eval
with open(sys.argv[1]) as fh:
    qrels = pytrec_eval.parse_qrel(fh)
with open(sys.argv[2]) as fh:
    run = pytrec_eval.parse_run(fh)
measures = {"map", "P_1", "Rprec", "ndcg_cut_100", "recall_100"}
res = pytrec_eval.RelevanceEvaluator(qrels, measures).evaluate(run)
print(sum(v["map"] for v in res.values()) / len(res))
"""


def ours_command() -> list[str]:
    exe = shutil.which("shrec-eval")
    return [exe] if exe else [sys.executable, "-m", "shrec_eval"]


def timed(cmd: list[str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS (bytes) and output of one fresh process."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        if proc.returncode != 0:
            raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{err.read().decode()}")
        return wall, usage.ru_maxrss * 1024, out.read().decode()


def side_by_side(commands: dict[str, list[str]], repeat: int) -> dict[str, list]:
    """Every command once per round, in turn, after one warm-up round."""
    out = {k: [] for k in commands}
    for r in range(repeat + 1):
        for k, cmd in commands.items():
            t = timed(cmd)
            if r:
                out[k].append(t)
    return out


def median_ratio(a: list, b: list) -> float:
    return statistics.median(x[0] / y[0] for x, y in zip(a, b))


def mib(n: float) -> str:
    return f"{n / 2**20:.0f} MiB"


#: trec_eval's own binary (built from source, -O2), when given: the same measures
TREC_EVAL_MEASURES = [
    "-m",
    "map",
    "-m",
    "P.1",
    "-m",
    "Rprec",
    "-m",
    "ndcg_cut.100",
    "-m",
    "recall.100",
]


def end_to_end(name, n_q, n_items, list_len, workdir, repeat, with_share=True, trec_eval=None):
    rel, grades, lists = make_contest(n_q, n_items, list_len)
    qrels, run = write_trec(workdir, name, rel, grades, lists)
    out = os.path.join(workdir, f"{name}.out.json")
    ours = ours_command() + ["evaluate", qrels, run, "--collection-size", str(n_items)]
    commands = {
        "ours": ours + ["--json", out],
        "peer": [sys.executable, "-c", PEER, qrels, run],
    }
    if with_share:
        commands["nojson"] = ours
    if trec_eval:
        commands["trec_eval"] = [trec_eval, *TREC_EVAL_MEASURES, qrels, run]
    t = side_by_side(commands, repeat)
    med = {k: statistics.median(x[0] for x in v) for k, v in t.items()}
    rss = {k: max(x[1] for x in v) for k, v in t.items()}
    print(
        f"[1] {name} whole command ({n_q} queries x {list_len}, run "
        f"{mib(os.path.getsize(run))}, JSON {mib(os.path.getsize(out))}): ours "
        f"{med['ours']:.2f} s (peak {mib(rss['ours'])}), pytrec_eval {med['peer']:.2f} s "
        f"(peak {mib(rss['peer'])}); ratio ours / pytrec_eval = "
        f"{median_ratio(t['ours'], t['peer']):.3f}"
    )
    if "trec_eval" in t:
        print(
            f"[1] {name} trec_eval (C, -O2) {med['trec_eval']:.2f} s (peak "
            f"{mib(rss['trec_eval'])}); ratio ours / trec_eval = "
            f"{median_ratio(t['ours'], t['trec_eval']):.3f}"
        )
    if with_share:
        share = 1 - statistics.median(x[0] / y[0] for x, y in zip(t["nojson"], t["ours"]))
        t_json = json_time(qrels, run, n_items, out, repeat)
        print(
            f"[2] {name} JSON share of our command: {100 * t_json / med['ours']:.0f} % "
            f"(to_json + write_json timed alone: {t_json:.2f} s; by difference with the "
            f"command without --json, {med['nojson']:.2f} s: {100 * share:.0f} %)"
        )
    return rel, grades, lists, qrels, run


def json_time(qrels, run, n_items, out, repeat) -> float:
    """Best time of building and writing the JSON document of one run as
    the command builds it (the reader settings of the assessment and the
    run included), the scoring itself not timed."""
    from shrec_eval import evaluate
    from shrec_eval.contest import AssessmentSource, RunSource
    from shrec_eval.outputs.report import to_json, write_json
    from shrec_eval.reading.readers import load_assessment, load_run

    a = load_assessment(qrels, collection_size=n_items)
    res = evaluate(a, load_run(run, a))
    reader = AssessmentSource(qrels).to_dict()
    reader.pop("path")
    run_reader = RunSource(run).reader_dict()

    def build_and_write():
        doc = to_json(
            a,
            [res],
            assessment_path=qrels,
            run_paths=[run],
            assessment_reader=reader,
            run_readers=[run_reader],
        )
        write_json(out, doc)

    return time_best(build_and_write, repeat)[0]


def reading(workdir, rel, grades, lists, run, repeat):
    from shrec_eval.reading.readers import load_assessment, load_run

    full = os.path.join(workdir, "w1_full.qrels")
    if not os.path.exists(full):
        n = lists.shape[1]
        with open(full, "w") as fh:
            for q, (r, g) in enumerate(zip(rel, grades)):
                grade = np.zeros(n, dtype=np.int64)
                grade[r] = g
                fh.write("".join(f"q{q} 0 d{j} {grade[j]}\n" for j in range(n)))
    t_q, a = time_best(lambda: load_assessment(full, collection_size=lists.shape[1]), repeat)
    t_r, _ = time_best(lambda: load_run(run, a), repeat)
    for what, path, t in (("run", run, t_r), ("qrels", full, t_q)):
        size = os.path.getsize(path)
        print(
            f"[3] TREC {what} reading ({os.path.basename(path)}, {mib(size)}): {t:.2f} s, "
            f"{size / 1e6 / t:.0f} MB/s"
        )


RSS_SAMPLER = r"""
import threading, time

def _anon():
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("RssAnon:"):
                return int(line.split()[1]) * 1024
    return 0

PEAK = [0]

def _sample():
    while True:
        PEAK[0] = max(PEAK[0], _anon())
        time.sleep(0.002)

threading.Thread(target=_sample, daemon=True).start()
"""

FLOOR = r"""
import numpy as np

def floor_sort(m, block=256):
    # keys: the float32 bits made monotone (-0.0 as 0.0) in the high word,
    # the column in the low word; then numpy's sort of each row
    n = m.shape[1]
    col = np.arange(n, dtype=np.uint32)
    for start in range(0, m.shape[0], block):
        sub = np.asarray(m[start : start + block], dtype=np.float32) + np.float32(0)
        u = sub.view(np.int32)
        u ^= (u >> 31) | np.int32(-(2**31))
        key = np.empty(sub.shape, dtype=np.uint64)
        w = key.view(np.uint32).reshape(*sub.shape, 2)
        w[:, :, 1] = u
        w[:, :, 0] = col
        key.sort(axis=1)
"""

MATRIX_CHILD = (
    RSS_SAMPLER
    + FLOOR
    + r"""
import sys, time
sys.path.insert(0, sys.argv[4])  # this folder, for bench_readers
from shrec_eval.scoring.memory import keep_freed_blocks
keep_freed_blocks()  # as shrec-eval and shrec-gui start (both sides)
what, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
if what == "floor":
    m = np.memmap(path, dtype="<f4", mode="r", shape=(n, n))
    base = PEAK[0]; t = time.perf_counter()
    floor_sort(m)
    t = time.perf_counter() - t
else:
    from bench_readers import flat_assessment
    from shrec_eval import evaluate
    from shrec_eval.reading.readers import load_run
    a = flat_assessment(n)
    time.sleep(0.01); base = PEAK[0]; t = time.perf_counter()
    res = evaluate(a, load_run(path, a, format="binary-matrix"))
    t = time.perf_counter() - t
    assert res.values.shape[0] == n
time.sleep(0.01)
print(t, PEAK[0] - base)
"""
)


def binary_matrix(n, workdir, repeat, whole=True):
    path = os.path.join(workdir, f"matrix_{n}.bin")
    if not os.path.exists(path):
        rng = np.random.default_rng(1)
        with open(path + ".part", "wb") as fh:
            for start in range(0, n, 1000):
                (rng.random((min(1000, n - start), n)) * 100).astype("<f4").tofile(fh)
        os.replace(path + ".part", path)
    res = {"floor": [], "ours": []}
    for r in range(repeat + 1):
        for what in res:
            cmd = [sys.executable, "-c", MATRIX_CHILD, what, path, str(n), HERE]
            _, hwm, out = timed(cmd)
            if r:
                t, anon = out.split()
                res[what].append((float(t), int(anon), hwm))
    floor = statistics.median(x[0] for x in res["floor"])
    ours = statistics.median(x[0] for x in res["ours"])
    ratio = statistics.median(x[0] / y[0] for x, y in zip(res["ours"], res["floor"]))
    anon = max(x[1] for x in res["ours"])
    hwm = max(x[2] for x in res["ours"])
    print(
        f"[4] binary {n} x {n} ({mib(os.path.getsize(path))}): ours read + score {ours:.2f} s, "
        f"packed-key sort floor {floor:.2f} s; ratio = {ratio:.2f}; peak RSS less file cache "
        f"{mib(anon)} (whole process peak RSS with the mapped file's pages {mib(hwm)})"
    )
    if whole:
        matrix_command(n, path, workdir, repeat)


FLOOR_COMMAND = (
    FLOOR
    + r"""
import sys
n = int(sys.argv[2])
floor_sort(np.memmap(sys.argv[1], dtype="<f4", mode="r", shape=(n, n)))
"""
)


def flat_cla(n: int, workdir: str) -> str:
    """The classification of :func:`bench_readers.flat_assessment` as a
    PSB .cla file (classes of 20, models 0..n-1 in order), written by the
    tests' own writer."""
    sys.path.insert(0, os.path.dirname(HERE))  # tests/, for contest_files
    from contest_files import write_cla

    path = os.path.join(workdir, f"flat_{n}.cla")
    if not os.path.exists(path):
        classes = [
            (f"c{c // 20}", "0", [str(m) for m in range(c, min(c + 20, n))])
            for c in range(0, n, 20)
        ]
        write_cla(path, classes)
    return path


def matrix_command(n, path, workdir, repeat):
    """The whole command as a user runs it (``shrec-eval evaluate CLA MATRIX
    --json OUT``, a fresh process) against the floor as a fresh process
    (numpy imported, the file mapped, every row sorted by packed keys)."""
    out = os.path.join(workdir, f"matrix_{n}.out.json")
    cla = flat_cla(n, workdir)
    t = side_by_side(
        {
            "ours": ours_command() + ["evaluate", cla, path, "--json", out],
            "floor": [sys.executable, "-c", FLOOR_COMMAND, path, str(n)],
        },
        repeat,
    )
    print(
        f"[4] binary {n} x {n} whole command with --json (JSON {mib(os.path.getsize(out))}): "
        f"ours {statistics.median(x[0] for x in t['ours']):.2f} s (peak "
        f"{mib(max(x[1] for x in t['ours']))}), floor as a process "
        f"{statistics.median(x[0] for x in t['floor']):.2f} s; ratio = "
        f"{median_ratio(t['ours'], t['floor']):.2f}"
    )


def ascii_matrix(n, workdir, repeat):
    from shrec_eval import evaluate
    from shrec_eval.reading.formats.matrix import read_ascii_matrix

    path = os.path.join(workdir, f"matrix_{n}.txt")
    if not os.path.exists(path):
        rng = np.random.default_rng(n)
        with open(path + ".part", "w") as fh:
            for start in range(0, n, 500):
                np.savetxt(fh, rng.random((min(500, n - start), n)) * 100, fmt="%.6f")
        os.replace(path + ".part", path)
    a = flat_assessment(n)
    ns = {}
    exec(FLOOR, ns)
    t_np = t_parse = t_score = t_floor = float("inf")
    for _ in range(repeat):  # alternated, so that neither profits from a warmer cache
        t, m = time_best(lambda: np.loadtxt(path), 1)
        t_np = min(t_np, t)
        t, run = time_best(lambda: read_ascii_matrix(path, a), 1)
        t_parse = min(t_parse, t)
        t_score = min(t_score, time_best(lambda r=run: evaluate(a, r), 1)[0])
        t_floor = min(t_floor, time_best(lambda x=m: ns["floor_sort"](x), 1)[0])
        del m, run
    print(
        f"[5] ASCII {n} x {n} ({mib(os.path.getsize(path))}): parse ours {t_parse:.2f} s, "
        f"numpy.loadtxt {t_np:.2f} s, ratio = {t_parse / t_np:.2f}; scoring the parsed "
        f"matrix {t_score:.2f} s, packed-key sort floor {t_floor:.2f} s, "
        f"ratio = {t_score / t_floor:.2f}"
    )


def compile_bytecode() -> list[str]:
    """Compile our packages' bytecode as ``pip install`` does, so that an
    editable checkout is timed as an installed copy runs (where
    ``PYTHONDONTWRITEBYTECODE`` is set, every run would otherwise compile
    every module again: about 0.1 s of each command)."""
    import compileall
    import importlib.util

    done = []
    for pkg in ("shrec_eval",):
        spec = importlib.util.find_spec(pkg)
        for folder in spec.submodule_search_locations or []:
            compileall.compile_dir(folder, quiet=1)
            done.append(folder)
    return done


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--workdir", help="keep the workloads there (default: a temporary folder)")
    p.add_argument("--repeat", type=int, default=3)
    p.add_argument("--ascii-n", type=int, default=3000)
    p.add_argument("--only", help="comma-separated parts to run: 1,3,4,5 (2 comes with 1)")
    p.add_argument("--shapenet", action="store_true", help="10,265 x 1,000 end to end")
    p.add_argument("--big-matrix", action="store_true", help="50,000 x 50,000 binary (10 GB)")
    p.add_argument(
        "--trec-eval",
        help="trec_eval binary built from source (github.com/usnistgov/trec_eval, "
        "make CFLAGS='-O2 ...'): timed as a third column of 1.",
    )
    args = p.parse_args(argv)
    parts = set((args.only or "1,3,4,5").split(","))
    workdir = args.workdir or tempfile.mkdtemp(prefix="shrec-bench12-")
    os.makedirs(workdir, exist_ok=True)
    with open("/proc/loadavg") as fh:
        load = fh.read().split()[:3]
    print(
        f"python {sys.version.split()[0]}, numpy {np.__version__}, {os.cpu_count()} cpus, "
        f"load {' '.join(load)}; workloads in {workdir}"
    )
    compiled = compile_bytecode()
    print(f"bytecode of {', '.join(compiled)} compiled first (pip does it on install)")
    from shrec_eval.scoring.memory import keep_freed_blocks

    # the parts timed in this process (reading, JSON) run with the allocator
    # setting the command line and the app start with
    print(f"malloc keeps freed blocks, as shrec-eval and shrec-gui do: {keep_freed_blocks()}")
    if "1" in parts or "3" in parts:
        rel, grades, lists, _, run = end_to_end(
            "w1", 2000, 2000, 2000, workdir, args.repeat, trec_eval=args.trec_eval
        )
        if "1" in parts:
            end_to_end("w2", 10000, 10000, 1000, workdir, args.repeat, trec_eval=args.trec_eval)
        if "3" in parts:
            reading(workdir, rel, grades, lists, run, args.repeat)
    if "4" in parts:
        binary_matrix(10000, workdir, args.repeat)
    if "5" in parts:
        ascii_matrix(args.ascii_n, workdir, args.repeat)
    if args.shapenet:
        end_to_end(
            "shapenet",
            10265,
            10265,
            1000,
            workdir,
            args.repeat,
            with_share=False,
            trec_eval=args.trec_eval,
        )
    if args.big_matrix:
        binary_matrix(50000, workdir, 1, whole=False)
    if not args.workdir:
        shutil.rmtree(workdir)


if __name__ == "__main__":
    main()
