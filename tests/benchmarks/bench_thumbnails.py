"""Benchmark of the thumbnails (not a test; figures go into the issue note).

    python tests/benchmarks/bench_thumbnails.py [--workdir DIR] [--models 1000] [--gui]

1,000 OFF models of 10,000 faces each (tori with random radii and bumps,
written once into the work folder), thumbnailed at 128 px by
shrec_eval.shapes.thumbnails:

* one process, no cache: time per model (reading with trimesh, drawing),
  and the peak memory of the process (ru_maxrss) and of one thumbnail's
  arrays (tracemalloc);
* every core (a process pool of os.cpu_count() workers), no cache: models
  per second and time per model;
* a cold and a warm disk cache (ThumbnailCache in the work folder): time per
  model when the PNG is written, and when it is only read back.

``--command`` (or ``--command-only``) times the whole ``shrec-eval
thumbnails --shapes MODELS OUT`` command as a user runs it (a process, from
files): cold cache (every model drawn), then warm (every thumbnail copied
from the cache), each the median of 3 runs, per model with and without the
start-up (``shrec-eval --version``'s time and the imports of the command).

``--gui`` adds the app: a 1,000-item leave-one-out contest of the same
models (10 classes) with 5 runs, the Ranked list tab showing every run's
first 50 results, stepping through 20 queries while the worker draws
(about 1,000 thumbnails, cache off): the longest stall of the GUI event
loop (5 ms heartbeat; target under 100 ms).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

FACES = 10_000
SIZE = 128


def torus(rng) -> tuple[np.ndarray, np.ndarray]:
    """A bumpy torus of exactly 10,000 triangles (50 x 100 quads)."""
    nu, nv = 100, 50
    R, r = rng.uniform(1.0, 2.0), rng.uniform(0.2, 0.8)
    u, v = np.meshgrid(
        np.linspace(0, 2 * np.pi, nu, endpoint=False),
        np.linspace(0, 2 * np.pi, nv, endpoint=False),
        indexing="ij",
    )
    k = rng.integers(2, 7)
    rr = r * (1 + 0.25 * np.sin(k * u) * np.cos(k * v))
    x = (R + rr * np.cos(v)) * np.cos(u)
    y = rr * np.sin(v) * rng.uniform(0.5, 1.5)
    z = (R + rr * np.cos(v)) * np.sin(u)
    verts = np.stack([x.ravel(), y.ravel(), z.ravel()], 1)
    i, j = np.meshgrid(np.arange(nu), np.arange(nv), indexing="ij")
    a = i * nv + j
    b = ((i + 1) % nu) * nv + j
    c = ((i + 1) % nu) * nv + (j + 1) % nv
    d = i * nv + (j + 1) % nv
    faces = np.concatenate(
        [np.stack([a, b, c], -1).reshape(-1, 3), np.stack([a, c, d], -1).reshape(-1, 3)]
    )
    assert len(faces) == FACES
    return verts, faces


def make_models(folder: Path, n: int) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(18)
    paths = []
    for i in range(n):
        path = folder / f"m{i}.off"
        paths.append(path)
        v, f = torus(rng)
        if path.exists():
            continue
        with open(path, "w") as fh:
            fh.write(f"OFF\n{len(v)} {len(f)} 0\n")
            np.savetxt(fh, v, fmt="%.5f")
            np.savetxt(fh, np.hstack([np.full((len(f), 1), 3), f]), fmt="%d")
    return paths


def _one(path: str) -> float:
    from shrec_eval.shapes.index import ShapeFiles
    from shrec_eval.shapes.thumbnails import thumbnail

    t = time.perf_counter()
    th = thumbnail(ShapeFiles(mesh=Path(path)), SIZE)
    assert th.ok, th.problem
    return time.perf_counter() - t


def bench_core(paths: list[Path], workdir: Path) -> None:
    from shrec_eval.shapes.index import ShapeFiles
    from shrec_eval.shapes.thumbnails import ThumbnailCache, thumbnail

    _one(str(paths[0]))  # imports (trimesh: about a second) out of the figures
    times = [_one(str(p)) for p in paths]
    print(f"{len(paths)} OFF models of {FACES:,} faces at {SIZE} px, one process, no cache:")
    print(
        f"  {np.mean(times) * 1000:.1f} ms per model (median {np.median(times) * 1000:.1f}, "
        f"max {max(times) * 1000:.1f}); {sum(times):.1f} s in all"
    )
    from shrec_eval.shapes.render import render_mesh
    from shrec_eval.shapes.thumbnails import load_mesh

    read, draw = [], []
    for path in paths[:100]:
        t = time.perf_counter()
        v, f = load_mesh(path)
        read.append(time.perf_counter() - t)
        t = time.perf_counter()
        render_mesh(v, f, SIZE)
        draw.append(time.perf_counter() - t)
    print(
        f"  of which (100 models): reading (trimesh) {np.mean(read) * 1000:.1f} ms, "
        f"drawing (numpy) {np.mean(draw) * 1000:.1f} ms"
    )
    tracemalloc.start()
    _one(str(paths[1]))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"  peak memory: {rss:.0f} MiB for the process; {peak / 2**20:.1f} MiB traced "
        "(numpy and Python) for one thumbnail"
    )

    cores = os.cpu_count() or 1
    t = time.perf_counter()
    with ProcessPoolExecutor(cores) as pool:
        list(pool.map(_one, [str(p) for p in paths[:cores]]))  # warm the workers
        t = time.perf_counter()
        list(pool.map(_one, [str(p) for p in paths], chunksize=8))
    wall = time.perf_counter() - t
    print(
        f"  {cores} processes: {wall:.1f} s, {wall / len(paths) * 1000:.1f} ms per model "
        f"({len(paths) / wall:.0f} models/s)"
    )

    cache = ThumbnailCache(workdir / "cache")
    for label in ("cold cache (drawn and written)", "warm cache (read back)"):
        t = time.perf_counter()
        hits = sum(thumbnail(ShapeFiles(mesh=p), SIZE, cache).cached for p in paths)
        dt = time.perf_counter() - t
        print(f"  {label}: {dt / len(paths) * 1000:.2f} ms per model ({hits} from the cache)")


def bench_gui(paths: list[Path], workdir: Path) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["SHREC_EVAL_CACHE_DIR"] = tempfile.mkdtemp()  # every thumbnail drawn
    n = len(paths)
    per = n // 10
    cla = workdir / "c.cla"
    lines = ["PSB 1", f"10 {per * 10}", ""]
    for c in range(10):
        lines += [f"class{c} 0 {per}"] + [str(c * per + i) for i in range(per)] + [""]
    cla.write_text("\n".join(lines))
    rng = np.random.default_rng(3)
    runs = []
    for r in range(5):
        path = workdir / f"run{r}.matrix"
        d = rng.random((per * 10, per * 10)).astype("<f4")
        d.tofile(path)
        runs.append(path)
    from PySide6.QtCore import QElapsedTimer, QSettings, QTimer

    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, tempfile.mkdtemp())
    from shrec_eval.contest import AssessmentSource, RunSource
    from shrec_eval.shapes.index import ShapesSource

    from shrec_gui.app import make_app
    from shrec_gui.window.main import MainWindow

    app = make_app()
    w = MainWindow()
    w.resize(1400, 1000)
    w.show()

    def spin_until(cond, limit=600):
        t = time.perf_counter()
        while not cond() and time.perf_counter() - t < limit:
            app.processEvents()
            time.sleep(0.001)

    c = w.controller
    c.open_assessment(AssessmentSource(str(cla)))
    spin_until(lambda: c.assessment is not None and not c.busy)
    c.add_runs([RunSource(str(r), format="binary-matrix") for r in runs])
    spin_until(lambda: c.idle())
    c.shapes.set_sources(ShapesSource(paths[0].parent))
    tab = w.ranked
    w.tabs.setCurrentWidget(tab)
    tab.thumbs.k.setValue(50)
    clock = QElapsedTimer()
    clock.start()
    gaps, last = [], [clock.elapsed()]

    def beat():
        now = clock.elapsed()
        gaps.append(now - last[0])
        last[0] = now

    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(beat)
    drawn = [0]
    c.shapes.thumbnailReady.connect(lambda *a: drawn.__setitem__(0, drawn[0] + 1))
    t0 = time.perf_counter()
    timer.start()
    for q in range(20):
        qid = str(q * (n // 20))
        tab.select_query(qid)
        spin_until(lambda qid=qid: tab.lists is not None and tab.lists.query_id == qid, 60)
        spin_until(
            lambda: (
                bool(tab.thumbs.rows)
                and all(t.pixmap is not None for _, ts in tab.thumbs.rows for t in ts)
            ),
            300,
        )
    timer.stop()
    total = time.perf_counter() - t0
    print(
        f"app: 20 queries x 5 runs x 50 results shown, {drawn[0]} thumbnails drawn in {total:.1f} s"
    )
    print(
        f"  longest GUI stall (5 ms heartbeat): {max(gaps)} ms over {len(gaps)} beats; "
        f"99th percentile {np.percentile(gaps, 99):.0f} ms"
    )
    c.shutdown()


def _timed(argv, env) -> float:
    t = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def bench_command(paths: list[Path], workdir: Path) -> None:
    """The `thumbnails` command, cold and warm cache, as a process."""
    import shutil

    exe = [sys.executable, "-m", "shrec_eval"]
    cache = workdir / "command-cache"
    env = {**os.environ, "SHREC_EVAL_CACHE_DIR": str(cache)}
    start = np.median([_timed([*exe, "--version"], env) for _ in range(3)])
    empty = workdir / "empty-models"
    empty.mkdir(exist_ok=True)
    (empty / "0.png").write_bytes(b"")  # one shape (a placeholder): start-up and imports
    base = np.median(
        [_timed([*exe, "thumbnails", "--shapes", empty, workdir / "cmd-e"], env) for _ in range(3)]
    )
    n = len(paths)
    print(f"`shrec-eval thumbnails` on {n} models, a process (start-up {start:.2f} s, ")
    print(f"  with the command's imports {base:.2f} s):")
    for label in ("cold", "warm"):
        runs = []
        for _ in range(3):
            if label == "cold":
                shutil.rmtree(cache, ignore_errors=True)
            shutil.rmtree(workdir / "cmd-out", ignore_errors=True)
            argv = [*exe, "thumbnails", "--shapes", paths[0].parent, workdir / "cmd-out"]
            runs.append(_timed(argv, env))
        wall = float(np.median(runs))
        print(
            f"  {label} cache: {wall:.2f} s, {wall / n * 1000:.2f} ms per model "
            f"({(wall - base) / n * 1000:.2f} ms without the start-up)"
        )


def main(argv=None) -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "shrec-bench-thumbs"))
    p.add_argument("--models", type=int, default=1000)
    p.add_argument("--gui", action="store_true", help="also the app's GUI stall")
    p.add_argument("--gui-only", action="store_true", help="only the app's GUI stall")
    p.add_argument("--command", action="store_true", help="also the thumbnails command")
    p.add_argument("--command-only", action="store_true", help="only the thumbnails command")
    args = p.parse_args(argv)
    workdir = Path(args.workdir)
    t = time.perf_counter()
    paths = make_models(workdir / "models", args.models)
    print(f"models ready in {time.perf_counter() - t:.1f} s ({workdir / 'models'})")
    if not (args.gui_only or args.command_only):
        bench_core(paths, workdir)
    if args.command or args.command_only:
        bench_command(paths, workdir)
    if args.gui or args.gui_only:
        bench_gui(paths, workdir)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
