"""Benchmark of the desktop app (not a test; figures go into the issue note).

    python tests/benchmarks/bench_gui.py [--workdir DIR]

A contest of 1,200 leave-one-out queries (SHREC 2012's size: 60 classes of
20) with 20 runs as ASCII matrices.  Offscreen, it measures
* the longest stall of the GUI event loop while the worker reads and scores
  everything (a 5 ms QTimer heartbeat; target under 100 ms),
* the time until the first run's curves are shown,
* the time from Cancel to idle (target under 0.5 s),
* the time from launch to a shown window (a fresh process).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np

N, CLASSES, RUNS = 1200, 60, 20


def make_contest(folder: Path) -> tuple[Path, list[Path]]:
    folder.mkdir(parents=True, exist_ok=True)
    cla = folder / "shrec12.cla"
    per = N // CLASSES
    if not cla.exists():
        lines = ["PSB 1", f"{CLASSES} {N}", ""]
        for c in range(CLASSES):
            lines += [f"class{c} 0 {per}"] + [str(c * per + i) for i in range(per)] + [""]
        cla.write_text("\n".join(lines))
    rng = np.random.default_rng(12)
    labels = np.repeat(np.arange(CLASSES), per)
    centres = rng.normal(0, 1, (CLASSES, 16))
    runs = []
    for r in range(RUNS):
        path = folder / f"run{r:02d}.txt"
        runs.append(path)
        if path.exists():
            continue
        x = centres[labels] + rng.normal(0, 0.6 + 0.08 * r, (N, 16))
        d = np.sqrt(((x[:, None, :] - x[None, :, :]) ** 2).sum(-1))
        np.savetxt(path, d, fmt="%.5f")
    return cla, runs


def launch_time() -> float:
    code = (
        "import time, sys; t0 = float(sys.argv[1])\n"
        "from PySide6.QtCore import QSettings\n"
        "import tempfile\n"
        "QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, "
        "tempfile.mkdtemp())\n"
        "from shrec_gui.app import make_app\n"
        "app = make_app()\n"
        "from shrec_gui.window.main import MainWindow\n"
        "w = MainWindow(); w.show(); app.processEvents()\n"
        "print(time.time() - t0)\n"
        "w.close()\n"
    )
    best = float("inf")
    for _ in range(3):
        t0 = time.time()
        out = subprocess.run(
            [sys.executable, "-c", code, repr(t0)],
            capture_output=True,
            text=True,
            check=True,
        )
        best = min(best, float(out.stdout.split()[-1]))
    return best


def main(argv=None) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "shrec-bench-gui"))
    args = p.parse_args(argv)
    cla, runs = make_contest(Path(args.workdir))
    from PySide6.QtCore import QElapsedTimer, QSettings, QTimer

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
    from shrec_gui.app import make_app

    app = make_app()
    from shrec_eval.contest import AssessmentSource, RunSource

    from shrec_gui.window.main import MainWindow

    w = MainWindow()
    w.show()
    app.processEvents()

    clock = QElapsedTimer()
    clock.start()
    gaps = []
    last = [clock.elapsed()]

    def beat():
        now = clock.elapsed()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(beat)
    first_curves = []
    # the Curves tab shown (hidden tabs wait for the end of a job): the
    # curves fill in run by run, the heaviest refresh of the window
    w.tabs.setCurrentWidget(w.curves)
    orig = w.curves.set_entries

    def watch(entries):
        orig(entries)
        if not first_curves and any(e[2] is not None for e in entries):
            first_curves.append(time.perf_counter())

    w.curves.set_entries = watch

    def spin_until(cond, limit=900):
        t = time.perf_counter()
        while not cond() and time.perf_counter() - t < limit:
            app.processEvents()
            time.sleep(0.001)

    t0 = time.perf_counter()
    timer.start()
    c = w.controller
    c.open_assessment(AssessmentSource(str(cla)))
    spin_until(lambda: c.assessment is not None and not c.busy)
    c.add_runs([RunSource(str(r)) for r in runs])
    spin_until(lambda: c.idle())
    total = time.perf_counter() - t0
    timer.stop()
    scored = sum(e.result is not None for e in c.entries.values())
    stall = max(gaps) if gaps else 0
    print(f"contest: {N} leave-one-out queries, {RUNS} ASCII matrices of {N} x {N}")
    print(f"read + score everything: {total:.1f} s ({scored} runs scored)")
    print(
        f"longest GUI stall (5 ms heartbeat): {stall} ms over {len(gaps)} beats; "
        f"99th percentile {np.percentile(gaps, 99):.0f} ms"
    )
    print(f"first run's curves shown after {first_curves[0] - t0:.2f} s")

    cancels = []
    for i in range(3):
        # F5 scores what changed: other options each time (the ranks)
        c.set_options(dataclasses.replace(c.options, ranks=(10 + i,)))
        c.score()
        spin_until(lambda: c.busy and w.progress.value() > 100, 60)
        t = time.perf_counter()
        c.cancel()
        spin_until(lambda: not c.busy, 60)
        cancels.append(time.perf_counter() - t)
    print(f"Cancel to idle: {max(cancels) * 1000:.0f} ms at most over {len(cancels)} tries")
    w.close()
    print(f"launch to shown window (fresh process, best of 3): {launch_time():.2f} s")


if __name__ == "__main__":
    main()
