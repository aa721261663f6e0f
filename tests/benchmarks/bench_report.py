"""How long a report takes against the scoring of the same contest (not a
test; the figures go into docs/figures.md).

    python tests/benchmarks/bench_report.py [--rounds N] [--runs R] [--profile NAME]
                                            [--only demo,many,app] [--workdir DIR]

Every time is a whole command as a user runs it (a fresh process, files in,
files out), measured side by side in this one run, the two commands of a
pair in alternating order (A B, B A, ...), so that the load of a shared
machine weighs on both alike:

1. ``shrec-eval demo --json F`` against ``shrec-eval demo --report R`` (7
   runs, 30 queries, 44 classes; the report with its gallery of 894
   thumbnails from the cache);
2. ``shrec-eval evaluate CONTEST --json F`` against ``... --report R`` for a
   contest file of ``--runs`` runs (default 20: the demo's assessment and
   binary matrices of distances of their own seed, no shapes);
3. the app: ``shrec-gui --demo --export-report R`` (no window) against
   ``shrec-eval demo --json F``; and in one app process (offscreen), the
   demo opened and scored, then File > Export report, timed from the
   moment the folder is chosen until the report is written (the
   interactive export against the app's own scoring), the folder chosen at
   once and in 3 s (the figures are started when the dialog opens), and
   chosen at once in a dialog opened 2 s after the scoring (the window's
   drawing processes, started when the runs are scored, ready by then).

``--profile NAME`` scores every command under that built-in profile (both
sides of each pair; the interactive export scores the demo as its contest
file says); without it, each contest's own (the default: today's commands).

A first round of each pair is not counted (it fills the thumbnail cache, a
folder of this run only, and the file cache).  Printed: min and median of
each side and the ratio (report / scoring) of the medians and of the
minima; the target is at most 3.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
#: the report's target: at most this many times the scoring of the same contest
TARGET = 3.0

INTERACTIVE = r"""
import sys, tempfile, time
from pathlib import Path
from PySide6.QtCore import QSettings
from shrec_gui.app import make_app
app = make_app()
from shrec_eval.resources import demo_manifest
from shrec_gui.window.main import MainWindow
settings = QSettings(str(Path(tempfile.mkdtemp()) / "s.ini"), QSettings.Format.IniFormat)
w = MainWindow(settings)
w.quiet = True
w.show()
c = w.controller

def spin(cond, limit=600):
    t = time.perf_counter()
    while not cond():
        if time.perf_counter() - t > limit:
            raise SystemExit("timed out")
        app.processEvents()
        time.sleep(0.002)

t0 = time.perf_counter()
c.open_session(str(demo_manifest()))
spin(lambda: c.assessment is not None and c.idle() and c.entries
     and all(e.result is not None for e in c.entries.values()))
scored = time.perf_counter() - t0
t = time.perf_counter()
while time.perf_counter() - t < float(sys.argv[3]):  # the user, before File > Export report
    app.processEvents()
    time.sleep(0.002)
done = []
w.exports.folderDone.connect(lambda what, folder, err: done.append(err))
choosing = float(sys.argv[2])  # seconds the user takes to choose the folder

chosen = []

def ask(*args):
    t = time.perf_counter()
    while time.perf_counter() - t < choosing:
        app.processEvents()
        time.sleep(0.002)
    chosen.append(time.perf_counter())
    return sys.argv[1]

w.dialogs.ask_output_folder = ask
w.exports.export_report_dialog()
spin(lambda: bool(done))
exported = time.perf_counter() - chosen[0]
assert done == [""], done
print(scored, exported)
w.close()
"""


#: where the commands are (``--bin``: another install's, to compare two)
BIN = Path(sys.executable).parent


def tool(name: str) -> list[str]:
    """The installed command in BIN (else on PATH)."""
    beside = BIN / name
    found = str(beside) if beside.exists() else shutil.which(name)
    if found is None:
        raise SystemExit(f"{name} is not installed")
    return [found]


def many_runs(folder: Path, n_runs: int) -> Path:
    """A contest file of the demo's assessment and ``n_runs`` binary matrices
    (queries x models) of distances of their own seed: each run its own
    blend of the grades and noise, so that the curves differ."""
    from shrec_eval import load_assessment
    from shrec_eval.resources import demo_manifest

    folder.mkdir(parents=True, exist_ok=True)
    for name in ("target.cla", "queries.cla"):
        shutil.copy(Path(demo_manifest()).parent / name, folder / name)
    a = load_assessment(folder / "target.cla", queries=folder / "queries.cla", graded=True)
    grades = np.zeros((a.n_queries, a.collection_size))
    for q in range(a.n_queries):
        lo, hi = a.indptr[q], a.indptr[q + 1]
        grades[q, a.judged_items[lo:hi]] = a.judged_grades[lo:hi]
    runs = []
    for i in range(n_runs):
        rng = np.random.default_rng(1000 + i)
        skill = 0.1 + 0.8 * i / max(n_runs - 1, 1)
        d = rng.random(grades.shape) - skill * grades / max(a.top_grade, 1)
        path = folder / f"run{i:02d}.matrix"
        d.astype("<f4").tofile(path)
        runs.append({"name": f"Participant {i:02d}", "format": "binary-matrix", "path": path.name})
    contest = {
        "version": 3,
        "name": f"{n_runs} runs",
        "assessment": {"path": "target.cla", "queries": "queries.cla", "graded": True},
        "runs": runs,
    }
    path = folder / "contest.json"
    path.write_text(json.dumps(contest, indent=1))
    return path


def _children_cpu() -> float:
    """Processor time (user and system) of this process's children that have
    ended and been waited for, and of theirs (a command's drawing processes,
    reaped by their server, which the command reaps)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def timed(cmd: list, env: dict) -> tuple[float, float]:
    """Wall time and the processor time of the command's process tree."""
    t, cpu = time.perf_counter(), _children_cpu()
    subprocess.run(
        [str(c) for c in cmd],
        check=True,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    return time.perf_counter() - t, _children_cpu() - cpu


def pair(label_a, cmd_a, label_b, cmd_b, out_of, rounds: int, env: dict) -> None:
    """Both commands ``rounds`` times (plus one not counted), alternating
    which goes first; ``out_of(side, round)`` makes each output's path."""
    times: dict[str, list[float]] = {label_a: [], label_b: []}
    cpus: dict[str, list[float]] = {label_a: [], label_b: []}
    for r in range(rounds + 1):
        order = [(label_a, cmd_a), (label_b, cmd_b)]
        if r % 2:
            order.reverse()
        for label, cmd in order:
            seconds, cpu = timed(cmd(out_of(label, r)), env)
            if r:  # the first round fills the caches
                times[label].append(seconds)
                cpus[label].append(cpu)
    a, b = times[label_a], times[label_b]
    for label, t in times.items():
        print(
            f"  {label:48s} min {min(t):6.2f} s  median {statistics.median(t):6.2f} s"
            f"  (processor time of its processes: median {statistics.median(cpus[label]):6.2f} s)"
        )
    ratio_med = statistics.median(b) / statistics.median(a)
    ratio_min = min(b) / min(a)
    verdict = "ok" if ratio_med <= TARGET else f"over the target of {TARGET:g}"
    print(f"  ratio {ratio_med:5.2f} (medians), {ratio_min:5.2f} (minima): {verdict}")


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=20, help="runs of the second contest")
    ap.add_argument(
        "--only", default="demo,many,app", help="the workloads to run (default demo,many,app)"
    )
    ap.add_argument("--workdir", help="where the contest and outputs go (default: a temporary one)")
    ap.add_argument("--bin", help="the folder of shrec-eval, shrec-gui and python to time")
    ap.add_argument(
        "--profile", help="score under this profile (shrec-eval profiles; default: the contest's)"
    )
    args = ap.parse_args(argv)
    global BIN
    BIN = Path(args.bin) if args.bin else BIN
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-report-"))
    work.mkdir(parents=True, exist_ok=True)
    out = work / "out"
    env = {
        **os.environ,
        "SHREC_EVAL_CACHE_DIR": str(work / "cache"),
        "QT_QPA_PLATFORM": "offscreen",
    }
    # as a user runs them: the modules' compiled files kept and used (with
    # PYTHONDONTWRITEBYTECODE each process compiled the project's modules
    # again, a report's drawing processes too: 0.3 s of processor time each)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    profile = ["--profile", args.profile] if args.profile else []
    se = tool("shrec-eval")

    def out_of(label, r):
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir(parents=True)
        return out / ("r.json" if "--json" in label else f"report{r}")

    print(
        f"{os.cpu_count()} cores; load {os.getloadavg()[0]:.1f}; {args.rounds} rounds"
        f"; profile {args.profile or 'of each contest'}"
    )
    started = os.getloadavg()[0]
    only = set(args.only.split(","))
    if "demo" in only:
        print("1. the demo (7 runs, with its gallery)")
        pair(
            "shrec-eval demo --json F",
            lambda o: [*se, "demo", *profile, "--json", o],
            "shrec-eval demo --report R",
            lambda o: [*se, "demo", *profile, "--report", o],
            out_of,
            args.rounds,
            env,
        )
    if "many" in only:
        contest = many_runs(work / f"runs{args.runs}", args.runs)
        print(f"2. a contest file of {args.runs} runs (no shapes)")
        pair(
            "shrec-eval evaluate CONTEST --json F",
            lambda o: [*se, "evaluate", contest, *profile, "--json", o],
            "shrec-eval evaluate CONTEST --report R",
            lambda o: [*se, "evaluate", contest, *profile, "--report", o],
            out_of,
            args.rounds,
            env,
        )
    if "app" in only:
        print("3. the app")
        app(se, out_of, out, args.rounds, env, profile)
    shutil.rmtree(out, ignore_errors=True)
    print(f"load {started:.1f} at the start, {os.getloadavg()[0]:.1f} at the end")


def app(se, out_of, out: Path, rounds: int, env: dict, profile: list) -> None:
    """The headless export against the command line's JSON, then the
    interactive export against the app's own scoring, in one process."""
    gui = [*tool("shrec-gui"), *profile]
    pair(
        "shrec-eval demo --json F",
        lambda o: [*se, "demo", *profile, "--json", o],
        "shrec-gui --demo --export-report R (no window)",
        lambda o: [*gui, "--demo", "--export-report", o],
        out_of,
        rounds,
        env,
    )
    for after, choosing in ((0, 0), (0, 3), (2, 0)):  # seconds
        scored, exported = [], []
        for r in range(rounds + 1):
            shutil.rmtree(out, ignore_errors=True)
            out.mkdir(parents=True)
            run = subprocess.run(
                [
                    *tool("python"),
                    "-c",
                    INTERACTIVE,
                    str(out / "report"),
                    str(choosing),
                    str(after),
                ],
                check=True,
                env=env,
                capture_output=True,
                text=True,
            )
            s, e = map(float, run.stdout.split()[-2:])
            if r:
                scored.append(s)
                exported.append(e)
        wait = f"Export report {after} s after, folder chosen in {choosing} s"
        for label, t in (("app: demo opened and scored", scored), (wait, exported)):
            print(f"  {label:48s} min {min(t):6.2f} s  median {statistics.median(t):6.2f} s")
        ratio = statistics.median(exported) / statistics.median(scored)
        print(f"  export once the folder is chosen / scoring in the app {ratio:5.2f} (medians)")


if __name__ == "__main__":
    main()
