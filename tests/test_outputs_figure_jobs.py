"""A report's figures drawn fast and the same ("reports in a blink"): each
figure a job that helper processes draw while the tables and the gallery
are made, from what it shows of the results (no per-query values); the same
bytes as drawn in this process; laid out without drawing every artist, each
file drawn once, text measured as matplotlib measures it; a report folder
flushed to disk by several threads at once; the helpers started before the
contest is scored and gone after it, also on SIGINT / SIGTERM, or when one
of them is killed (tests/benchmarks/bench_report.py measures the times)."""

from __future__ import annotations

import functools
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
import zlib
from dataclasses import replace
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from hostile import (
    alive,
    early_server_probe,
    run_cli,
    six_contest,
    small_contest,
    stall_in_helper,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.textpath import TextPath
from shrec_eval import EvalOptions, evaluate, load_assessment, load_run
from shrec_eval.outputs import figure_style, writing
from shrec_eval.outputs import figures as F
from shrec_eval.outputs.figure_data import FigureRun
from shrec_eval.outputs.figure_jobs import FigureDrawers, draw_figures
from shrec_eval.outputs.report import report_figure_files, write_report
from tiers import examples

HERE = Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def drawers():
    """Drawers for the tests that hand them jobs: forked from the session's
    server where there is one (spawned, each imported matplotlib again)."""
    with FigureDrawers(from_server=True) as d:
        yield d


def _scored(folder: Path, n_runs: int = 2, names=("a long name of a first run", "B")):
    cla, _, m = six_contest(folder)
    a = load_assessment(cla)
    out = []
    for i in range(n_runs):
        d = m + np.random.default_rng(i).uniform(0, 0.6, m.shape)
        np.fill_diagonal(d, 0)
        path = folder / f"r{i}.txt"
        np.savetxt(path, d, fmt="%.4f")
        out.append(evaluate(a, load_run(path, a, name=names[i]), EvalOptions()))
    return a, out


def test_a_figure_job_carries_no_per_query_values(tmp_path):
    """What a drawing process gets is the same size for 6 queries and for
    60 (the runs' per-query values and curves stay here)."""
    sizes = []
    for n in (3, 30):
        folder = tmp_path / str(n)
        folder.mkdir()
        lines = [f"PSB 1\n2 {2 * n}\n"] + [
            f"\n{c} 0 {n}\n" + "".join(f"{k * n + i}\n" for i in range(n))
            for k, c in enumerate("ab")
        ]
        (folder / "a.cla").write_text("".join(lines))
        d = np.random.default_rng(n).uniform(0, 1, (2 * n, 2 * n))
        np.fill_diagonal(d, 0)
        np.savetxt(folder / "r.txt", d, fmt="%.4f")
        a = load_assessment(folder / "a.cla")
        r = evaluate(a, load_run(folder / "r.txt", a, name="r"), EvalOptions())
        run = FigureRun.of(r)
        assert run.mean("nn") == r.mean("nn") and run.per_class == r.per_class
        assert np.array_equal(run.curves["pr"].mean, r.curves["pr"].mean)
        jobs = F.report_figure_jobs([r], F.PRESETS["column"], rank_key="nn")
        sizes.append((len(pickle.dumps(jobs)), len(pickle.dumps(r))))
    (jobs_small, result_small), (jobs_large, result_large) = sizes
    assert result_large > 3 * result_small  # what stays here grows with the queries
    assert jobs_large < 1.1 * jobs_small  # what is sent does not


#: what a drawing process imports, as spawned: the module of its start
#: (figure_jobs._ready), then the jobs it gets and the function drawing them
DRAWING_PROCESS = r"""
import pickle, sys, zlib
from shrec_eval.outputs.figure_jobs import _ready, figure_files
jobs = pickle.loads(open(sys.argv[1], "rb").read())
files = {}
for job in jobs:
    files.update(figure_files(job))
project = sorted({m.split(".")[1] for m in sys.modules if m.startswith("shrec_eval.")})
print(" ".join(project))
print(" ".join(f"{name}={zlib.crc32(data)}" for name, data in sorted(files.items())))
"""


def test_a_drawing_process_imports_matplotlib_and_the_figures_not_the_registry(tmp_path):
    """A report's figure jobs name their measures and curves as text: the
    process drawing them imports the figures' modules (outputs, with names
    and errors), never the measures, profiles, readers or options (a third
    of its import, paid twice a report), and draws the same files."""
    _, results = _scored(tmp_path, n_runs=2)
    jobs = F.report_figure_jobs(results, F.PRESETS["column"], rank_key="nn", formats=("svg",))
    (tmp_path / "jobs.pickle").write_bytes(pickle.dumps(jobs))
    out = subprocess.run(
        [sys.executable, "-c", DRAWING_PROCESS, str(tmp_path / "jobs.pickle")],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.splitlines()
    imported = set(out[0].split())
    assert {"outputs", "model", "errors"} <= imported
    assert not imported & {"scoring", "profiles", "reading", "options", "choices", "kernels"}
    # the same files as the figure functions draw here from the results
    here = {
        "figures/precision_recall.svg": F.curve_figure(results, "pr", F.PRESETS["column"]),
        "figures/ndcg.svg": F.curve_figure(results, "ndcg", F.PRESETS["column"]),
        "figures/measure_bars.svg": F.bars_figure(results, F.PRESETS["column"]),
        "figures/class_heatmap.svg": F.heatmap_figure(results, "nn", F.PRESETS["column"]),
    }
    assert out[1].split() == [
        f"{name}={zlib.crc32(F.figure_bytes(fig, 'svg'))}" for name, fig in sorted(here.items())
    ]


def _count(monkeypatch, owner, name) -> list:
    calls: list = []
    real = getattr(owner, name)

    def counted(*args, **kwargs):
        calls.append(name)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_a_figure_is_laid_out_without_drawing_and_each_file_drawn_once(tmp_path, monkeypatch):
    """Laying a figure out (the layout engine, a few times) draws no text
    and makes no image; saving draws the figure once per file (matplotlib's
    savefig drew a figure that had kept a placeholder layout engine twice)."""
    from matplotlib.figure import Figure
    from matplotlib.image import AxesImage
    from matplotlib.text import Text

    _, results = _scored(tmp_path)
    texts = _count(monkeypatch, Text, "draw")
    images = _count(monkeypatch, AxesImage, "make_image")
    figures = _count(monkeypatch, Figure, "draw")
    made = [
        F.heatmap_figure(results, "nn", F.PRESETS["column"]),
        F.bars_figure(results, F.PRESETS["column"]),
        F.curve_figure(results, "pr", F.PRESETS["column"]),
    ]
    assert (texts, images, figures) == ([], [], [])
    for fig in made:
        assert fig.get_layout_engine() is None  # frozen
        for fmt in F.FORMATS:
            figures.clear()
            F.figure_bytes(fig, fmt)
            assert figures == ["draw"], fmt
        assert texts and images  # the files do draw them


@settings(max_examples=examples(200), deadline=None)
@given(
    text=st.text(
        st.sampled_from(
            [chr(c) for c in range(33, 127)] + list("ÅÉÎõüßæαβγδЖжπ€…–—“”°±µ") + [" "] * 8
        ),
        min_size=1,
        max_size=40,
    ),
    size=st.sampled_from([7.0, 8.0, 9.5, 14.0, 48.0]),
)
def test_text_widths_are_matplotlibs_extents(text, size):
    """A figure's text measured before layout is TextPath's extent, the same
    number to the last bit (figure heights, legend columns and wrapped
    titles follow it)."""
    figure_style.text_width.cache_clear()
    with matplotlib.rc_context({"text.parse_math": False}):
        got = figure_style.text_width(text, size)
        if text.strip():
            path = TextPath((0, 0), text, size=size, prop={"family": "DejaVu Sans"})
            assert got == path.get_extents().width


def test_text_widths_evaluate_only_the_curves_at_either_end(monkeypatch):
    """The extent of a name comes from its outline's ends and the few curves
    that reach its sides, not from every curve of every glyph."""
    import matplotlib.bezier

    evaluated = _count(monkeypatch, matplotlib.bezier.BezierSegment, "axis_aligned_extrema")
    with matplotlib.rc_context({"text.parse_math": False}):
        path = TextPath((0, 0), "ashcan_trash_can_garbage_can", size=8)
        ours = figure_style._ink_width(path)
        n_ours = len(evaluated)
        evaluated.clear()
        assert ours == path.get_extents().width
    assert 0 < n_ours < len(evaluated) / 20  # matplotlib's: every segment of every glyph


def test_write_report_draws_the_figures_while_the_rest_is_made(tmp_path, drawers, monkeypatch):
    """write_report hands every figure to the drawers before it makes the
    tables and the gallery (``extra``, a function), so that they are drawn
    meanwhile, and writes the figures they drew: every file of figures/ (4
    figures x PDF, SVG, PNG) the one drawn here."""
    import shrec_eval.outputs.report as report

    a, results = _scored(tmp_path)
    events = []
    submit, tables = FigureDrawers.submit, report.report_files

    def spied(self, job):
        events.append(job.name)
        return submit(self, job)

    def spied_tables(*args, **kwargs):
        events.append("tables")
        return tables(*args, **kwargs)

    monkeypatch.setattr(FigureDrawers, "submit", spied)
    monkeypatch.setattr(report, "report_files", spied_tables)
    written = write_report(
        tmp_path / "rep",
        a,
        results,
        rank_key="nn",
        extra=lambda: events.append("gallery") or {"gallery.html": "<p>gallery</p>"},
        drawers=drawers,
    )
    figures = ["class_heatmap", "measure_bars", "precision_recall", "ndcg"]
    assert events == [*figures, "tables", "gallery"]
    assert (tmp_path / "rep" / "gallery.html").read_text() == "<p>gallery</p>"
    here = report_figure_files(results, rank_key="nn")
    assert {p.name for p in written if "figures" in str(p)} == {Path(n).name for n in here}
    for name, data in here.items():
        assert (tmp_path / "rep" / name).read_bytes() == data


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forkserver: Linux")
def test_drawing_processes_are_forked_from_one_that_imported_matplotlib():
    """The command line's drawing modules are imported once, by the process
    the drawing processes are forked from (multiprocessing's forkserver),
    not by each of them (a second of processor time each, while the runs
    are scored): both have the same parent, which is not this process, and
    were ready having used a few hundredths of a second."""
    with FigureDrawers(workers=2, from_server=True) as d:
        pool = d._pool
        assert pool is not None
        parents = {f.result(timeout=120) for f in [pool.submit(os.getppid) for _ in range(8)]}
        used = [f.result(timeout=120) for f in [pool.submit(time.process_time) for _ in range(8)]]
    assert len(parents) == 1 and os.getpid() not in parents
    assert max(used) < 0.25  # a spawned one: 0.7 s and more


#: drawers forked from a new server, ended at once (an error or Ctrl-C while
#: the runs are scored): how long the end took, and how long the server's
#: import takes (drawers started again, until one of them answers)
EARLY_CLOSE = r"""
import os, time
from shrec_eval.outputs.figure_jobs import FigureDrawers
d = FigureDrawers(from_server=True)
t = time.perf_counter()
d.close()
closed = time.perf_counter() - t
t = time.perf_counter()
with FigureDrawers(from_server=True) as again:
    again._pool.submit(os.getpid).result(timeout=120)
print(closed, time.perf_counter() - t)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forkserver: Linux")
def test_drawers_ended_while_their_server_imports_end_at_once():
    """Drawers ended before their server has imported matplotlib (the
    command failing or interrupted while it scores) end without waiting for
    that import."""
    out = subprocess.run(
        [sys.executable, "-c", EARLY_CLOSE], capture_output=True, text=True, check=True
    ).stdout.split()
    closed, started = map(float, out)
    assert closed < started / 4, (closed, started)


#: drawers forked from the server, two at once, then closed one after the
#: other, then a third pair (one closed while its server imports): what is
#: alive and what is in the temporary folder after each step
SERVER_ENDS = r"""
import json, os, sys, tempfile, time
from multiprocessing import forkserver
from shrec_eval.outputs.figure_jobs import FigureDrawers
sys.path.insert(0, sys.argv[1])
from hostile import alive

def server():
    return forkserver._forkserver._forkserver_pid

def ask(d):
    return {d._pool.submit(os.getpid).result(timeout=120) for _ in range(6)}

seen = {}
a, b = FigureDrawers(from_server=True), FigureDrawers(from_server=True)
helpers, first = ask(a) | ask(b), server()
seen["folder while drawing"] = os.listdir(tempfile.gettempdir())
a.close()
seen["b after a closed"] = len(ask(b)) > 0 and alive(first)
b.close()
seen["alive after both"] = [p for p in helpers | {first} if alive(p)]
seen["folder after both"] = os.listdir(tempfile.gettempdir())
early = FigureDrawers(from_server=True)
early.close()  # its server still importing
with FigureDrawers(from_server=True) as again:
    helpers, second = ask(again), server()
deadline = time.monotonic() + 60
while alive(second) and time.monotonic() < deadline:  # ended by early's start thread
    time.sleep(0.01)
seen["servers"] = [first != second, alive(second)]
seen["alive at the end"] = [p for p in helpers if alive(p)]
seen["folder at the end"] = os.listdir(tempfile.gettempdir())
print(json.dumps(seen))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forkserver: Linux")
def test_the_last_drawers_closed_end_their_server_and_its_folder(tmp_path):
    """The server the drawers are forked from, and the folder of its socket
    (/tmp/pymp-*), outlive no drawers: the app and the headless export,
    which go on after a report, leave neither behind.  Drawers closed while
    others use the server leave it to them; a later start makes a new one."""
    import json

    run = subprocess.run(
        [sys.executable, "-c", SERVER_ENDS, str(HERE)],
        capture_output=True,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp_path)},
        timeout=300,
    )
    assert run.returncode == 0 and run.stderr == "", run.stderr
    seen = json.loads(run.stdout)
    assert [n[:5] for n in seen["folder while drawing"]] == ["pymp-"]
    assert seen["b after a closed"] is True
    assert seen["alive after both"] == [] and seen["folder after both"] == []
    assert seen["servers"] == [True, False]
    assert seen["alive at the end"] == [] and seen["folder at the end"] == []


#: drawers whose server cannot start (a socket path too long), drawers whose
#: folder a /tmp cleaner removed, drawers without a thread to start them
SERVER_TROUBLE = r"""
import json, os, shutil, sys, tempfile, threading, time
from multiprocessing import forkserver
from shrec_eval.outputs import figure_start
from shrec_eval.outputs.figure_jobs import FigureDrawers, start_drawers
long, short = sys.argv[1], sys.argv[2]
seen = {}
tempfile.tempdir = long
d = FigureDrawers(from_server=True)
deadline = time.monotonic() + 60
while d._waiting is not None and time.monotonic() < deadline:
    time.sleep(0.01)
seen["long: error"] = repr(d.start_error)
seen["long: running"] = d.running
seen["long: folder while"] = len(os.listdir(long))
d.close()
seen["long: folder after"] = os.listdir(long)
tempfile.tempdir = short
d = FigureDrawers(from_server=True)
d._pool.submit(os.getpid).result(timeout=120)
for name in os.listdir(short):
    shutil.rmtree(os.path.join(short, name))  # the folder removed while the app ran
d.close()

def let_go():  # the start's thread lets go of the server last when it still runs
    deadline = time.monotonic() + 60
    while figure_start._SERVER_USERS[0] and time.monotonic() < deadline:
        time.sleep(0.01)
    with figure_start._SERVER_LOCK:  # held until the last one's end of the server is done
        return figure_start._SERVER_USERS[0]

seen["removed: users"] = let_go()
with FigureDrawers(from_server=True) as again:  # a later start makes them anew
    seen["again: drawn"] = again._pool.submit(os.getpid).result(timeout=120) > 0
let_go()
seen["again: folder after"] = os.listdir(short)
start = threading.Thread.start
def no_thread(self):
    if self.name == "shrec-drawers":
        raise RuntimeError("can't start new thread")
    return start(self)
threading.Thread.start = no_thread
seen["no thread: drawers"] = start_drawers(from_server=True)
seen["no thread: users"] = figure_start._SERVER_USERS[0]
print(json.dumps(seen))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forkserver: Linux")
def test_drawers_in_trouble_leave_the_figures_to_their_caller_and_no_folder(tmp_path):
    """A server that cannot start (its socket's path over 107 bytes, in a long
    TMPDIR), the folder removed while the app ran (a /tmp cleaner), no thread
    to start the processes: the figures are drawn by the caller, close()
    raises nothing, the server's count goes back to 0, a later start works,
    and no pymp-* folder is left."""
    import json
    import shutil
    import tempfile

    long = tmp_path / ("x" * max(1, 100 - len(str(tmp_path))))
    long.mkdir()
    short = Path(tempfile.mkdtemp(prefix="tr-", dir="/tmp"))
    try:
        run = subprocess.run(
            [sys.executable, "-c", SERVER_TROUBLE, str(long), str(short)],
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
        seen = json.loads(run.stdout)
        assert "AF_UNIX path too long" in seen["long: error"] and not seen["long: running"]
        assert seen["long: folder while"] == 1 and seen["long: folder after"] == []
        assert seen["removed: users"] == 0
        assert seen["again: drawn"] and seen["again: folder after"] == []
        assert seen["no thread: drawers"] is None and seen["no thread: users"] == 0
    finally:
        shutil.rmtree(short, ignore_errors=True)


#: the server's start (figure_server) with its standard input an accepted
#: connection of another service's named socket, as inetd or socat hand it
SERVICE_STDIN = r"""
import os, socket, sys
folder = sys.argv[1]
service = socket.socket(socket.AF_UNIX)
service.bind(os.path.join(folder, "service.sock"))
service.listen()
client = socket.socket(socket.AF_UNIX)
client.connect(os.path.join(folder, "service.sock"))
conn, _ = service.accept()
os.dup2(conn.fileno(), 0)
mine = socket.socket(socket.AF_UNIX)
os.mkdir(os.path.join(folder, "pymp-x"))
mine.bind(os.path.join(folder, "pymp-x", "listener-y"))
mine.listen()
from shrec_eval.outputs import figure_server
print(figure_server._socket_paths())
"""


def test_the_servers_end_removes_its_own_socket_only(tmp_path):
    """The server removes, when it ends by itself, the socket it listens on
    (``pymp-*/listener-*``), never a socket it was handed (its standard input
    an accepted connection names the other service's socket)."""
    run = subprocess.run(
        [sys.executable, "-c", SERVICE_STDIN, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == repr([str(tmp_path / "pymp-x" / "listener-y")])
    assert (tmp_path / "service.sock").exists()
    assert not (tmp_path / "pymp-x").exists()


#: drawers forked from a server, then nothing (killed from outside)
KILLED = r"""
import os, signal, sys, time
from multiprocessing import forkserver
from shrec_eval.outputs.figure_jobs import FigureDrawers
signal.signal(signal.SIGINT, signal.SIG_IGN)  # the command's decision, not the server's
d = FigureDrawers(from_server=True)
deadline = time.monotonic() + 60
while forkserver._forkserver._forkserver_pid is None and time.monotonic() < deadline:
    time.sleep(0.001)
print(forkserver._forkserver._forkserver_pid, flush=True)
if sys.argv[1] == "drawn":
    d._pool.submit(os.getpid).result(timeout=120)
    print(" ".join(map(str, d._pool._processes)), flush=True)
time.sleep(120)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forkserver, /proc: Linux")
@pytest.mark.parametrize("when", ["importing", "drawn"])
def test_a_killed_command_leaves_no_server_and_no_folder(tmp_path, when):
    """Ctrl-C reaching the whole process group while the server imports
    matplotlib prints no traceback (the server ignores SIGINT from its
    start, as the drawing processes do); the command then killed (SIGKILL:
    no clean-up of its own), its server and drawing processes end and the
    folder of the server's socket (/tmp/pymp-*) goes with them."""
    from hostile import alive

    p = subprocess.Popen(
        [sys.executable, "-c", KILLED, when],
        env={**os.environ, "TMPDIR": str(tmp_path)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        pids = [int(p.stdout.readline())]
        if when == "drawn":
            pids += map(int, p.stdout.readline().split())
        else:
            time.sleep(0.3)  # the server started, importing matplotlib (about a second)
        os.killpg(p.pid, signal.SIGINT)  # the terminal's Ctrl-C: the command ignores it
        time.sleep(0.5)
        assert p.poll() is None and alive(pids[0])
        p.kill()
        _, err = p.communicate(timeout=60)
        deadline = time.monotonic() + 30
        while any(alive(x) for x in pids) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert [x for x in pids if alive(x)] == []
        assert "Traceback" not in err, err
        assert list(tmp_path.iterdir()) == []
    finally:
        p.kill()
        p.wait()


def test_drawers_keep_the_futures_of_the_last_reports_only(drawers):
    """The app keeps its drawers for every export: what they remember of the
    figures asked for (to draw each once) is the last few reports' only."""
    from shrec_eval.outputs.figure_data import FigureJob
    from shrec_eval.outputs.figure_jobs import MEMORY

    jobs = [FigureJob(f"j{i}", max, (i, 0), {}, ()) for i in range(MEMORY + 5)]
    futures = [drawers.submit(j) for j in jobs]
    assert [f.result(timeout=120) for f in futures] == [{}] * len(jobs)
    assert len(drawers._submitted) == MEMORY
    assert drawers.submit(jobs[-1]) is futures[-1]  # the newest found
    assert drawers.submit(jobs[0]) is not futures[0]  # the oldest forgotten: drawn again


def test_the_same_figure_asked_again_is_drawn_once(tmp_path, drawers):
    """The app starts a report's figures when its folder is asked for; the
    export asks for them again and gets the ones under way."""
    _, results = _scored(tmp_path)
    jobs = F.report_figure_jobs(results, F.PRESETS["column"], rank_key="nn")
    first = [drawers.submit(j) for j in jobs]
    again = [
        drawers.submit(j) for j in F.report_figure_jobs(results, F.PRESETS["column"], rank_key="nn")
    ]
    assert again == first
    other = F.report_figure_jobs(results, F.PRESETS["slide"], rank_key="nn")
    assert drawers.submit(other[0]) not in first


@pytest.mark.parametrize("from_server", [False, True], ids=["spawned", "forked"])
def test_a_helper_killed_while_drawing_leaves_the_figures_whole(tmp_path, from_server):
    """A drawing process that dies (killed, out of memory) fails none of
    the figures: those it did not send are drawn in this process (the
    jobs submitted while forked processes start too)."""
    _, results = _scored(tmp_path)
    marker = tmp_path / "helper"
    jobs = F.report_figure_jobs(results, F.PRESETS["column"], rank_key="nn")[:2]  # the curves
    stalled = [replace(j, draw=functools.partial(stall_in_helper, marker, j.draw)) for j in jobs]
    with FigureDrawers(from_server=from_server) as d:
        files = draw_figures(stalled, d)
        deadline = time.monotonic() + 60
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        os.kill(int(marker.read_text()), signal.SIGKILL)
        got = files()
    assert got == draw_figures(jobs)()


def test_a_folder_is_flushed_by_threads_at_once_and_a_failed_flush_leaves_nothing(
    tmp_path, monkeypatch
):
    """The files of a report folder are flushed to disk together (two
    flushes at the same time at least: the file system commits them at
    once), each once; a failing flush is the folder's error, and neither
    the folder nor a temporary one is left."""
    real = os.fsync
    together = threading.Barrier(2, timeout=10)
    lock = threading.Lock()
    flushed: list[int] = []

    def fsync(fd):
        with lock:
            flushed.append(fd)
            first = len(flushed) <= 2
        if first:
            together.wait()  # the first two meet here: one flush alone would wait in vain
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    files = {f"thumbs/{i}.png": bytes([i]) * 100 for i in range(40)} | {"index.html": "<p>"}
    writing.write_folder(tmp_path / "rep", files)
    assert len(flushed) == len(files) and not together.broken
    assert (tmp_path / "rep" / "thumbs" / "7.png").read_bytes() == bytes([7]) * 100

    def failing(fd):
        if os.fstat(fd).st_size == 7:
            raise OSError(5, "Input/output error")
        real(fd)

    monkeypatch.setattr(os, "fsync", failing)
    with pytest.raises(writing.OutputError, match="Input/output error"):
        writing.write_folder(tmp_path / "new", {**files, "thumbs/bad.png": b"1234567"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rep"]


def test_a_reports_other_files_go_to_disk_while_its_figures_are_drawn(tmp_path, monkeypatch):
    """write_report asks for the drawn figures only once the tables and the
    gallery are written and being flushed, then writes and flushes the
    figures too: every file flushed once, the folder whole."""
    import shrec_eval.outputs.report as report

    a, results = _scored(tmp_path)
    real_fsync, real_draw = os.fsync, report.draw_figures
    flushed: list[str] = []
    seen: list[list[str]] = []

    def fsync(fd):
        real_fsync(fd)
        flushed.append(os.path.relpath(os.readlink(f"/proc/self/fd/{fd}"), flushed_in[0]))

    def draw(jobs, drawers=None):
        files = real_draw(jobs, drawers)

        def when_asked():
            deadline = time.monotonic() + 10
            while len(flushed) < 3 and time.monotonic() < deadline:
                time.sleep(0.01)
            seen.append(list(flushed))  # what went to disk before the figures were wanted
            return files()

        return when_asked

    flushed_in = [str(tmp_path)]
    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(report, "draw_figures", draw)
    write_report(
        tmp_path / "rep", a, results, rank_key="nn", extra={"gallery.html": "<p>gallery</p>"}
    )
    folder = {str(p.relative_to(tmp_path / "rep")) for p in (tmp_path / "rep").rglob("*.*")}
    figures = {n for n in folder if n.startswith("figures/")}
    assert len(figures) == 12
    before = {n.split("/", 1)[1] for n in seen[0]}  # without the temporary folder's name
    assert len(before) >= 3 and before <= folder - figures
    assert sorted(n.split("/", 1)[1] for n in flushed) == sorted(folder)


# -- the command line ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def small_figures(tmp_path_factory):
    """The small contest scored, and its report's figures drawn in this
    process (the files the tests below compare with: drawn once for them)."""
    folder = tmp_path_factory.mktemp("small")
    small_contest(folder)
    a = load_assessment(folder / "s.cla")
    results = [evaluate(a, load_run(folder / "s.txt", a, name="r"), EvalOptions())]
    return results, report_figure_files(results, rank_key="nn", drawers=None)


@pytest.mark.parametrize("from_server", [False, True], ids=["spawned", "forked from a server"])
def test_drawers_that_cannot_start_leave_the_figures_to_this_process(
    small_figures, monkeypatch, from_server
):
    """No process can be started (fork or exec fails: EAGAIN at the process
    limit): every figure is drawn in this process, the same bytes; the
    report is not lost to the error.  Spawned, the error leaves the drawers'
    start (start_drawers gives None); forked from the server, started on a
    thread, the drawers say they are broken to each job."""
    import errno
    from multiprocessing import popen_forkserver, popen_spawn_posix

    from shrec_eval.outputs.figure_jobs import start_drawers

    results, want = small_figures

    def cannot(self, process_obj):
        raise OSError(errno.EAGAIN, "Resource temporarily unavailable")

    monkeypatch.setattr(popen_spawn_posix.Popen, "_launch", cannot)
    monkeypatch.setattr(popen_forkserver.Popen, "_launch", cannot)
    drawers = start_drawers(from_server=from_server)
    try:
        if from_server:
            assert drawers is not None
            deadline = time.monotonic() + 30
            while drawers._waiting is not None and time.monotonic() < deadline:
                time.sleep(0.01)  # the start's thread has failed
        else:
            assert drawers is None
        got = report_figure_files(results, rank_key="nn", drawers=drawers)
    finally:
        if drawers is not None:
            drawers.close()
    assert got == want and len(got) == 12


def test_the_command_line_starts_its_drawers_before_scoring_and_ends_them(tmp_path, monkeypatch):
    """--report starts the drawing processes before the runs are scored (their
    import of matplotlib meanwhile); none is left when the command ends."""
    import multiprocessing

    import shrec_eval.cli.steps as steps

    small_contest(tmp_path)
    events = []
    init, score = FigureDrawers.__init__, steps.score_contest

    def started(self, *args, **kwargs):
        events.append("drawers" if kwargs.get("from_server") else "spawned drawers")
        init(self, *args, **kwargs)

    monkeypatch.setattr(FigureDrawers, "__init__", started)
    monkeypatch.setattr(
        steps, "score_contest", lambda *a, **k: events.append("score") or score(*a, **k)
    )
    before = set(multiprocessing.active_children())
    code, _ = run_cli(
        ["evaluate", tmp_path / "s.cla", tmp_path / "s.txt", "--report", tmp_path / "r"]
    )
    assert code == 0 and events == ["drawers", "score"]
    assert len(list((tmp_path / "r" / "figures").iterdir())) == 12
    assert set(multiprocessing.active_children()) <= before
    events.clear()
    code, _ = run_cli(
        ["evaluate", tmp_path / "s.cla", tmp_path / "s.txt", "--json", tmp_path / "j"]
    )
    assert code == 0 and events == ["score"]  # no drawer without a report


def _script_seen(script: str, *args: str) -> dict:
    """What ``script`` (run with ``args`` in a Python of its own, its
    temporary folder a short one of its own: the socket's path has 107
    bytes) printed as JSON, once it ended without an error."""
    import json
    import shutil
    import tempfile

    short = Path(tempfile.mkdtemp(prefix="ks-", dir="/tmp"))
    try:
        run = subprocess.run(
            [sys.executable, "-c", script, *args],
            capture_output=True,
            text=True,
            env={**os.environ, "TMPDIR": str(short)},
            timeout=300,
        )
    finally:
        shutil.rmtree(short, ignore_errors=True)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    return json.loads(run.stdout)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forkserver: Linux")
def test_the_command_line_starts_the_drawers_server_before_it_imports_the_engine(tmp_path):
    """With --report, the server the drawing processes are forked from is
    started before the arguments are read (where the command line names
    --report; an abbreviated --rep once they are), before the command imports
    the engine and reads the contest: its import of matplotlib (the longest
    wait of a short scoring: the demo's runs were scored 0.6 s before it
    was done) runs meanwhile.  The report is written (its bytes: the
    golden tests); a command that fails before its drawers start leaves no
    server and no folder; a command without --report starts none."""
    import json

    small_contest(tmp_path)
    cla, txt = str(tmp_path / "s.cla"), str(tmp_path / "s.txt")
    commands = [
        ["evaluate", cla, txt, "--report", str(tmp_path / "r")],
        ["evaluate", cla, str(tmp_path / "missing.txt"), "--report", str(tmp_path / "r2")],
        ["evaluate", cla, txt, "--json", str(tmp_path / "j.json")],
    ]
    probe = early_server_probe(
        "shrec_eval.cli.parser", "shrec_eval.cli.commands", "main(argv, out=io.StringIO())"
    )
    out = _script_seen(probe, str(HERE), json.dumps(commands))
    assert out["seen"] == {"server at the import of shrec_eval.cli.commands": True}
    done, failed, scored = out["runs"]
    assert done["code"] == 0 and failed["code"] == 2 and scored["code"] == 0
    assert (done["servers"], failed["servers"], scored["servers"]) == (1, 1, 0), out
    for each in (done, failed, scored):
        assert each["users"] == 0 and each["servers left"] == [], out
        assert each["server now"] is None, out
        assert each["folder"] == [], out
    assert len(list((tmp_path / "r" / "figures").iterdir())) == 12
    assert not (tmp_path / "r2").exists()


#: reports written by the command line's main in one process, in a kept
#: server (kept_server): the server after each, one killed between two
KEPT = r"""
import io, json, os, signal, sys, tempfile, time
from multiprocessing import forkserver
sys.path.insert(0, sys.argv[1])
from hostile import alive
from shrec_eval.cli.parser import main
from shrec_eval.outputs import figure_start
from shrec_eval.outputs.figure_start import kept_server

folder, seen, servers = sys.argv[2], {}, []

def report(name, *more):
    out = os.path.join(folder, name)
    code = main(["evaluate", os.path.join(folder, "s.cla"), os.path.join(folder, "s.txt"),
                 *more, "--report", out], out=io.StringIO())
    pid = forkserver._forkserver._forkserver_pid
    servers.append(pid)
    figures = os.path.join(out, "figures")
    return code, alive(pid), {n: open(os.path.join(figures, n), "rb").read().hex()
                              for n in sorted(os.listdir(figures))}

with kept_server():
    seen["started by the block"] = forkserver._forkserver._forkserver_pid is not None
    seen["r1"], seen["r2"] = report("r1")[:2], report("r2")[:2]
    seen["json"] = main(["evaluate", os.path.join(folder, "s.cla"), os.path.join(folder, "s.txt"),
                         "--json", os.path.join(folder, "j.json")], out=io.StringIO())
    os.kill(servers[-1], signal.SIGKILL)  # the server killed between two reports
    deadline = time.monotonic() + 30
    while alive(servers[-1]) and time.monotonic() < deadline:
        time.sleep(0.01)
    code, up, files = report("r3")
    seen["r3"] = [code, up]
    seen["same files"] = files == report("r4")[2] and len(files) == 12
    seen["users in the block"] = figure_start._SERVER_USERS[0]
deadline = time.monotonic() + 60  # the drawers' start thread lets go last if it still runs
while figure_start._SERVER_USERS[0] and time.monotonic() < deadline:
    time.sleep(0.01)
with figure_start._SERVER_LOCK:
    seen["users after"] = figure_start._SERVER_USERS[0]
seen["servers"] = len(set(servers))
seen["first kept"] = servers[0] == servers[1]
seen["alive after"] = [p for p in set(servers) if alive(p)]
seen["server now"] = forkserver._forkserver._forkserver_pid
seen["temporary folder"] = os.listdir(tempfile.gettempdir())
print(json.dumps(seen))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forkserver, /proc: Linux")
def test_reports_in_a_kept_server_share_one_and_it_ends_with_the_block(tmp_path):
    """kept_server(): the command line's main writing reports again and again
    in one process (a script, a notebook, the test session) forks every
    report's drawers from one server, not one started and ended per report
    (its import of matplotlib, a second of processor time each); nothing
    starts before a report asks; a server killed between two reports is
    replaced by a fresh one at the next, whose files are the same bytes;
    when the block ends, no server is left, nor a folder of its socket (the
    killed one's included)."""
    small_contest(tmp_path)
    seen = _script_seen(KEPT, str(HERE), str(tmp_path))
    assert seen["started by the block"] is False
    assert seen["r1"] == [0, True] and seen["r2"] == [0, True] and seen["json"] == 0
    assert seen["first kept"] is True
    assert seen["r3"] == [0, True] and seen["same files"] is True
    assert seen["servers"] == 2  # the first, and the one after it was killed
    assert seen["users in the block"] == 1
    assert seen["users after"] == 0 and seen["alive after"] == [] and seen["server now"] is None
    assert seen["temporary folder"] == []


#: a kept server reaped by someone else (an os.wait() loop of the script),
#: then a process forked inside the block that leaves it (sys.exit unwinds
#: the block in the child too)
KEPT_REAPED_FORKED = r"""
import io, json, os, signal, sys, tempfile, time
from multiprocessing import forkserver
sys.path.insert(0, sys.argv[1])
from hostile import alive
from shrec_eval.cli.parser import main
from shrec_eval.outputs import figure_start
from shrec_eval.outputs.figure_start import kept_server

folder, seen = sys.argv[2], {}

def report(name):
    code = main(["evaluate", os.path.join(folder, "s.cla"), os.path.join(folder, "s.txt"),
                 "--report", os.path.join(folder, name)], out=io.StringIO())
    return code, forkserver._forkserver._forkserver_pid

with kept_server():
    code, first = report("r1")
    os.kill(first, signal.SIGKILL)
    os.waitpid(first, 0)  # reaped by the script, not by multiprocessing
    code2, second = report("r2")
    seen["after the reaping"] = [code, code2, second not in (None, first), alive(second)]
    child = os.fork()
    if child == 0:
        sys.exit(0)  # the child leaves the block it inherited
    os.waitpid(child, 0)
    address = forkserver._forkserver._forkserver_address
    seen["the parent's server after the child"] = [forkserver._forkserver._forkserver_pid == second,
                                                   alive(second), os.path.exists(address)]
    seen["r3"] = report("r3")[0]
deadline = time.monotonic() + 60
while figure_start._SERVER_USERS[0] and time.monotonic() < deadline:
    time.sleep(0.01)
seen["after the block"] = [alive(second), forkserver._forkserver._forkserver_pid]
seen["a command after it"] = report("r4")[0]
seen["temporary folder"] = os.listdir(tempfile.gettempdir())
print(json.dumps(seen))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forkserver, fork: Linux")
def test_a_kept_server_reaped_by_the_script_or_left_by_a_forked_child_serves_on(tmp_path):
    """A kept server reaped by someone else (the script's os.wait()) is
    forgotten, never signalled (its pid may be another process's), and the
    next report starts a fresh one; a process forked inside the block and
    leaving it does not end its parent's server; after the block nothing is
    left and a command writes its report as before (it failed on the
    forgotten server's state: 'NoneType' object cannot be interpreted as an
    integer)."""
    small_contest(tmp_path)
    seen = _script_seen(KEPT_REAPED_FORKED, str(HERE), str(tmp_path))
    assert seen["after the reaping"] == [0, 0, True, True], seen
    assert seen["the parent's server after the child"] == [True, True, True], seen
    assert seen["r3"] == 0 and seen["a command after it"] == 0, seen
    assert seen["after the block"] == [False, None], seen
    assert seen["temporary folder"] == [], seen


def test_json_and_csv_import_neither_matplotlib_nor_process_pools(tmp_path):
    small_contest(tmp_path)
    probe = (
        "import sys, io; from shrec_eval.cli.parser import main\n"
        "argv = ['evaluate', 's.cla', 's.txt', '--json', 'j.json', '--csv', 'c']\n"
        "a = main(argv, out=io.StringIO())\n"
        "print(a, 'matplotlib' in sys.modules, 'concurrent.futures.process' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert out.stdout.split() == ["0", "False", "False"]


_STALLED_REPORT = r"""
import functools, sys
from dataclasses import replace
import hostile
import shrec_eval.outputs.figures as figures

made, marker = figures.report_figure_jobs, sys.argv[1]


def stalled(*args, **kwargs):  # every figure: a helper that never ends drawing it
    return [replace(j, draw=functools.partial(hostile.stall_in_helper, marker, j.draw))
            for j in made(*args, **kwargs)]


figures.report_figure_jobs = stalled
sys.argv = ["shrec-eval", *sys.argv[2:]]
from shrec_eval.cli.parser import entry_point
entry_point()
"""


def _descendants(pid: int) -> list[int]:
    """Every process under ``pid`` (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        try:
            with open(f"/proc/{d}/stat") as fh:
                children.setdefault(int(fh.read().rsplit(")", 1)[1].split()[1]), []).append(int(d))
        except (OSError, ValueError, IndexError):
            continue
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out += [c]
            todo.append(c)
    return out


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how,code", [("SIGTERM", 143), ("ctrl-c", 130)])
def test_a_signal_while_the_figures_are_drawn_ends_every_process(tmp_path, how, code):
    """SIGTERM to the command, or Ctrl-C to its terminal's process group,
    while its helpers draw: it ends at once (143, 130), the earlier report
    whole, no helper left, no temporary file."""
    small_contest(tmp_path)
    rep = tmp_path / "rep"
    rep.mkdir()
    (rep / "summary.csv").write_text("OLD")
    marker = tmp_path / "marker"
    p = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _STALLED_REPORT,
            marker,
            "evaluate",
            "s.cla",
            "s.txt",
            "--report",
            "rep",
        ],
        cwd=tmp_path,
        env={
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
        },
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while not marker.exists() and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.02)
    assert marker.exists(), p.stderr.read().decode()[-2000:] if p.poll() is not None else ""
    helpers = _descendants(p.pid)
    assert int(marker.read_text()) in helpers
    t = time.monotonic()
    if how == "ctrl-c":  # the terminal sends SIGINT to its whole foreground group
        os.killpg(p.pid, signal.SIGINT)
    else:
        p.send_signal(signal.SIGTERM)
    assert p.wait(timeout=30) == code
    assert time.monotonic() - t < 10
    err = p.stderr.read().decode()
    assert "Traceback" not in err, err[-2000:]
    deadline = time.monotonic() + 10
    while any(alive(h) for h in helpers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [h for h in helpers if alive(h)]
    assert [f.name for f in rep.iterdir()] == ["summary.csv"] and (
        rep / "summary.csv"
    ).read_text() == "OLD"
    assert sorted(f.name for f in tmp_path.iterdir()) == ["marker", "rep", "s.cla", "s.txt"]
