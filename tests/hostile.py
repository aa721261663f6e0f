"""Small inputs and a command-line runner shared by the tests of issue 11's
reproduction scripts (tests/test_reading_hostile.py, test_reading_streams.py,
test_outputs_hostile.py, test_outputs_gate.py, ...)."""

from __future__ import annotations

import io
import os
import time
from pathlib import Path

import numpy as np
from shrec_eval import EvalOptions, evaluate, load_assessment, load_run
from shrec_eval.cli.parser import main

S_CLA = "PSB 1\n2 4\na 0 2\n0\n1\nb 0 2\n2\n3\n"
S_TXT = "0 1 5 5\n1 0 5 5\n5 5 0 1\n5 5 1 0.5\n"
CLA6 = "PSB 1\n2 6\n\na 0 3\n0\n1\n2\n\nb 0 3\n3\n4\n5\n"


def run_cli(argv):
    """``shrec-eval ARGV`` in this process: (exit code, stdout)."""
    out = io.StringIO()
    code = main([str(a) for a in argv], out=out)
    return code, out.getvalue()


def small_contest(folder):
    """The 4-model s.cla and its 4 x 4 matrix s.txt, written into ``folder``."""
    (folder / "s.cla").write_text(S_CLA)
    (folder / "s.txt").write_text(S_TXT)
    return folder


def six_contest(folder):
    """a.cla (2 classes of 3) and m.txt, a 6 x 6 matrix with a clear class structure."""
    (folder / "a.cla").write_text(CLA6)
    lab = np.repeat([0, 1], 3)
    m = np.random.default_rng(0).uniform(1, 2, (6, 6)) - (lab[:, None] == lab[None, :]) * 0.5
    np.fill_diagonal(m, 0)
    np.savetxt(folder / "m.txt", m, fmt="%.4f")
    return folder / "a.cla", folder / "m.txt", m


def six_contest_results(folder, names):
    """The results of one run a name of ``names`` on :func:`six_contest`
    (its matrix with noise of the run's own seed), for figures' tests."""
    cla, _, m = six_contest(folder)
    a = load_assessment(cla)
    out = []
    for i, name in enumerate(names):
        d = m + np.random.default_rng(i).uniform(0, 0.6, m.shape)
        np.fill_diagonal(d, 0)
        path = folder / f"r{i}.txt"
        np.savetxt(path, d, fmt="%.4f")
        out.append(evaluate(a, load_run(path, a, name=name), EvalOptions()))
    return out


def sipiran21_contest(folder, names):
    """A SHREC 2021 contest (``--profile sipiran21``: ids 0..N-1, query
    classes matched to the targets by position) with one query class of 2
    models per name of ``names``: t.cla, q.cla and M.run1.txt in ``folder``."""
    k, n = len(names), 2 * len(names)
    parts = (f"\n{c} 0 2\n{2 * i}\n{2 * i + 1}\n" for i, c in enumerate(names))
    (folder / "q.cla").write_text(f"PSB 1\n{k} {n}\n" + "".join(parts), encoding="utf-8")
    parts = (f"\nc{i} 0 2\n{2 * i}\n{2 * i + 1}\n" for i in range(k))
    (folder / "t.cla").write_text(f"PSB 1\n{k} {n}\n" + "".join(parts), encoding="utf-8")
    lab = np.repeat(np.arange(k), 2)
    m = np.random.default_rng(k).uniform(1, 2, (n, n)) - (lab[:, None] == lab[None, :]) * 0.5
    np.fill_diagonal(m, 0)
    np.savetxt(folder / "M.run1.txt", m, fmt="%.4f")
    return folder / "t.cla", folder / "q.cla", folder / "M.run1.txt"


def alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie does not; Linux's /proc)."""
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def stall_in_helper(marker, draw, *args, **kwargs):
    """A figure function of a FigureJob (``functools.partial(stall_in_helper,
    marker, draw)``): in a drawing process, its id written to ``marker``, then
    never done (a helper busy when a signal or a kill comes); in the process
    that asked for the figure, ``draw(*args, **kwargs)``."""
    import multiprocessing

    if multiprocessing.parent_process() is None:
        return draw(*args, **kwargs)
    # whole or not at all: the test reads it as soon as it appears (and the
    # other helper may write it at the same time)
    part = Path(f"{marker}.{os.getpid()}")
    part.write_text(str(os.getpid()))
    os.replace(part, marker)
    time.sleep(600)


#: the script of :func:`early_server_probe`
_EARLY_SERVER = r"""
import io, json, os, sys, tempfile, time
from multiprocessing import forkserver
sys.path.insert(0, sys.argv[1])
from hostile import alive
from ENTRY import main
from shrec_eval.outputs import figure_start

def server():
    return forkserver._forkserver._forkserver_pid

class Watch:  # told when WATCHED is imported
    def find_spec(self, name, path=None, target=None):
        if name == "WATCHED":
            seen["server at the import of WATCHED"] = server() is not None
        return None

sys.meta_path.insert(0, Watch())
seen = {}
runs = []
for argv in json.loads(sys.argv[2]):
    pids = []
    start = forkserver.ForkServer.ensure_running.__get__(forkserver._forkserver)
    def ensure_running():
        start()
        pids.append(server())
    forkserver._forkserver.ensure_running = forkserver.ensure_running = ensure_running
    try:
        code = CALL
    except SystemExit as exc:
        code = exc.code
    deadline = time.monotonic() + 60  # the drawers' start thread lets go last if it still runs
    while figure_start._SERVER_USERS[0] and time.monotonic() < deadline:
        time.sleep(0.01)
    with figure_start._SERVER_LOCK:  # held until the last one's end of the server is done
        users = figure_start._SERVER_USERS[0]
    runs.append({
        "code": code,
        "users": users,
        "servers": len({p for p in pids if p}),
        "servers left": [p for p in set(pids) if p and alive(p)],
        "server now": server(),
        "folder": os.listdir(tempfile.gettempdir()),
    })
print(json.dumps({"seen": seen, "runs": runs}))
"""


def early_server_probe(entry: str, watched: str, call: str) -> str:
    """The script of a fresh process, ``python -c SCRIPT TESTS_FOLDER
    ARGVS``, that runs ``call`` (with the ``main`` of the module ``entry``)
    for each argv of the JSON list ARGVS, and prints as JSON what it saw:
    whether the report's drawing server ran when the module ``watched`` was
    imported (``seen``), and for each command its exit code, the servers it
    started, the server's users after it, what is left running and in the
    temporary folder (``runs``)."""
    return _EARLY_SERVER.replace("ENTRY", entry).replace("WATCHED", watched).replace("CALL", call)
