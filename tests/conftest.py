"""Shared test set-up: Qt offscreen, and QSettings and the thumbnail cache
pointed at temporary folders so that no test reads or writes the user's real
preferences or cache."""

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(scope="module", autouse=True)
def _isolated_qsettings(tmp_path_factory):
    """QSettings in a folder of each test module's own: what one module's
    tests save (columns, recent files, geometry) never reaches another's,
    whatever order or process (pytest-xdist) runs them in."""
    try:
        from PySide6.QtCore import QSettings
    except ImportError:  # core-only environments
        yield
        return
    folder = tmp_path_factory.mktemp("qsettings")
    for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
        QSettings.setPath(QSettings.Format.IniFormat, scope, str(folder))
    yield


@pytest.fixture(scope="session", autouse=True)
def _isolated_thumbnail_cache(tmp_path_factory):
    """Thumbnails cached in a temporary folder, never the user's cache; one
    folder for every process of a run (pytest-xdist's workers: the demo's
    shapes drawn once, not once in each; the cache writes each thumbnail to
    a temporary file renamed into place, so two processes may write the
    same one).  A test that needs a cache of its own points the variable
    at one."""
    old = os.environ.get("SHREC_EVAL_CACHE_DIR")
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # one process: its own folder
        folder = tmp_path_factory.mktemp("thumbnail-cache")
    else:  # the run's folder, beside each worker's own (gw0, gw1...)
        folder = tmp_path_factory.getbasetemp().parent / "thumbnail-cache"
        folder.mkdir(exist_ok=True)
    os.environ["SHREC_EVAL_CACHE_DIR"] = str(folder)
    yield
    if old is None:
        os.environ.pop("SHREC_EVAL_CACHE_DIR", None)
    else:
        os.environ["SHREC_EVAL_CACHE_DIR"] = old


@pytest.fixture(scope="session", autouse=True)
def _isolated_data_folder(tmp_path_factory):
    """The app's data folder (autosaves) in a temporary folder, never the user's."""
    old = os.environ.get("SHREC_GUI_DATA_DIR")
    os.environ["SHREC_GUI_DATA_DIR"] = str(tmp_path_factory.mktemp("app-data"))
    yield
    if old is None:
        os.environ.pop("SHREC_GUI_DATA_DIR", None)
    else:
        os.environ["SHREC_GUI_DATA_DIR"] = old


@pytest.fixture(scope="session", autouse=True)
def _isolated_config_folder(tmp_path_factory):
    """Evaluator files found in a temporary config folder, never the user's."""
    old = os.environ.get("SHREC_EVAL_CONFIG_DIR")
    os.environ["SHREC_EVAL_CONFIG_DIR"] = str(tmp_path_factory.mktemp("config"))
    yield
    if old is None:
        os.environ.pop("SHREC_EVAL_CONFIG_DIR", None)
    else:
        os.environ["SHREC_EVAL_CONFIG_DIR"] = old


class _KeptFigureServer:
    """The session's :func:`~shrec_eval.outputs.figure_start.kept_server`,
    let go of around the tests of the server's own lifecycle."""

    def __init__(self) -> None:
        import contextlib

        self._block = contextlib.ExitStack()
        self.kept = False

    def keep(self) -> None:
        from shrec_eval.outputs.figure_start import kept_server

        if not self.kept:
            self._block.enter_context(kept_server())
            self.kept = True

    def let_go(self) -> None:
        if self.kept:
            self.kept = False
            self._block.close()


@pytest.fixture(scope="session", autouse=True)
def _one_figure_server():
    """One server of the report's drawing processes for every report the
    session's process writes (the command line's main with --report, the
    app's exports: about a second of processor time each, their import of
    matplotlib, when each started and ended its own), started by the first
    of them; ended, with its folder, when the session ends.  A test of the
    server's own lifecycle (marker ``figure_server``) runs without it."""
    kept = _KeptFigureServer()
    kept.keep()
    yield kept
    kept.let_go()


@pytest.fixture(autouse=True)
def _figure_server_of_its_own(request, _one_figure_server):
    """A test marked ``figure_server`` (what starts and ends the server, what
    it leaves behind) sees the server's life as a process that keeps none:
    the session's let go of first (ended, unless an earlier test's window
    still holds it), kept again after.  Drawers an earlier test closed while
    their start's thread still ran leave the server to that thread, which
    lets go of it a moment later (a window's exports: the test before it
    had ended with two users, and a test asserting none failed as the order
    of a run had it): the test starts once they have, or after 30 s (CI
    run 20, at load 8)."""
    if request.node.get_closest_marker("figure_server") is None:
        yield
        return
    _one_figure_server.let_go()
    import time
    from multiprocessing import current_process, forkserver

    from shrec_eval.outputs import figure_start

    deadline = time.monotonic() + 30
    while figure_start._SERVER_USERS[0] and time.monotonic() < deadline:
        time.sleep(0.01)
    with figure_start._SERVER_LOCK:  # the last user's ending of the server done
        pass

    # the server and its folder really ended with the last user (else the test
    # would reuse them, and pass where the product leaves them behind)
    if figure_start._SERVER_USERS[0] == 0:
        assert getattr(forkserver._forkserver, "_forkserver_pid", None) is None, (
            "the session's figure server was let go of by every user and still runs"
        )
        assert current_process()._config.get("tempdir") is None, (
            "the session's figure server ended and left the folder of its socket"
        )
    try:
        yield
    finally:
        _one_figure_server.keep()


@pytest.fixture(autouse=True)
def _profiles_as_a_new_process_has_them():
    """A test that loads an evaluator file leaves the registry of profiles
    with the built-ins alone (another test lists the registry's measures)."""
    yield
    import sys

    profiles = sys.modules.get("shrec_eval.profiles")
    if profiles is not None:
        profiles.forget_loaded()


@pytest.fixture(autouse=True)
def _garbage_collected_as_the_app_does(request):
    """A test of Qt runs with Python's cyclic collection as the app has it: on
    the GUI thread's timer, never in the middle of a Qt call (see
    ``collect_garbage_on_the_gui_thread``).  Without it a worker process that
    had not made a scoring thread yet, or whose dask test had turned collection
    back on, froze in a deadlock inside pyqtgraph's ``ViewBox.addItem``."""
    if "qapp" in request.fixturenames or "qtbot" in request.fixturenames:
        request.getfixturevalue("qapp")
        from shrec_gui.workers.scoring import collect_garbage_on_the_gui_thread

        collect_garbage_on_the_gui_thread()
    yield


@pytest.fixture
def dialogs(monkeypatch):
    """The warnings the window would show, recorded (title, text) instead."""
    from PySide6.QtWidgets import QMessageBox

    seen = []
    monkeypatch.setattr(QMessageBox, "warning", lambda *a, **k: seen.append(a[1:3]))
    return seen


@pytest.fixture
def win(qtbot, dialogs):
    """A shown main window of its own (QSettings in the temporary folder)."""
    from shrec_gui.window.main import MainWindow, app_settings

    w = MainWindow(app_settings())
    qtbot.addWidget(w)
    w.show()
    yield w
    w.close()


@pytest.fixture(scope="module")
def demo(qapp):
    """The demo contest scored once per test module, for the tests that only
    look at it (modules that need it otherwise define their own)."""
    from guitools import retire, scored_demo_window

    w = scored_demo_window(qapp)
    yield w
    retire(w)


@pytest.fixture
def with_failed_first(win, qtbot, tmp_path):
    """The demo contest with an unreadable run listed first (as a session
    that names a file gone bad would open)."""
    from guitools import wait_idle
    from shrec_eval.contest import Contest, RunSource
    from shrec_eval.resources import demo_manifest

    bad = tmp_path / "broken.txt"
    bad.write_text("1.0 2.0\n3.0 x\n")
    contest = Contest.read(demo_manifest())
    win.controller.open_assessment(
        contest.assessment,
        runs=[RunSource(bad, format="ascii-matrix", name="Broken")] + list(contest.runs),
        options=contest.options,
    )
    qtbot.waitUntil(lambda: len(win.controller.scored_entries()) == 7, timeout=30000)
    wait_idle(qtbot, win)
    return win


@pytest.fixture
def toy_measure(monkeypatch):
    """A toy measure in the registry for one test, as one entry added to
    BASE_MEASURES in core/scoring/base_measures.py would be (its compute
    function is nn's, so its values are nn's): tests/test_measures_toy.py,
    tests/test_app_toy_measure.py."""
    from shrec_eval.profiles import base as profile_base
    from shrec_eval.scoring import base_measures
    from shrec_eval.scoring import measures as registry

    m = base_measures.Measure(
        key="toy_nn",
        label="Toy nearest neighbour",
        family="psb",
        definition="the nearest neighbour again, registered by a test",
        compute=base_measures.m_nn,
        short="TOY",
    )
    extended = base_measures.BASE_MEASURES + (m,)
    # every module that reads the tuple (an edit of base_measures.py changes it for all)
    for module in (base_measures, registry, profile_base):
        monkeypatch.setattr(module, "BASE_MEASURES", extended)
    return m


# -- tiers and subjects (tests/tiers.py; docs/development.md) -------------------------------


def pytest_addoption(parser):
    parser.addoption(
        "--full",
        action="store_true",
        help="the full tier: every test, the slow ones included, with each property test's "
        "own number of examples (hypothesis profile 'ci'); what CI runs",
    )


def pytest_configure(config):
    import sys

    import tiers
    from hypothesis import settings

    # Python's compiled modules kept, as a user's Python keeps them: an
    # environment that sets PYTHONDONTWRITEBYTECODE (some containers and CI
    # images do) made every process of the suite (the xdist workers and the
    # command lines and apps the tests start) compile the project again
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.dont_write_bytecode = False

    # the fast tier runs a tenth of each property test's examples (tests call
    # tiers.examples(n)); --hypothesis-profile chooses otherwise
    settings.register_profile("fast", max_examples=10)
    settings.register_profile("ci", max_examples=100)
    settings.register_profile("thorough", max_examples=1000)
    if config.getoption("hypothesis_profile", None) is None:
        settings.load_profile("ci" if config.getoption("--full") else "fast")
    for name, text in tiers.MARKERS.items():
        config.addinivalue_line("markers", f"{name}: {text}")
    # pytest-xdist declares the mark conftest gives a group's tests; without
    # it (-p no:xdist) it is declared here, so that no warning names it
    if not config.pluginmanager.hasplugin("xdist"):
        config.addinivalue_line("markers", "xdist_group(name): tests/tiers.py's GROUPS")


def pytest_collection_modifyitems(config, items):
    from pathlib import Path

    import tiers

    full = config.getoption("--full")
    kept, slow = [], []
    subjects: dict[str, int] = {}
    listed: set[str] = set()  # the entries of tiers.SLOW that name a test collected
    for item in items:
        file_name = Path(str(item.fspath)).name
        fn = getattr(item, "function", None)
        listed |= tiers.slow_entries(file_name, getattr(fn, "__name__", item.name), item.name)
        for marker in sorted(tiers.needs(file_name, fn, getattr(item, "fixturenames", ()))):
            item.add_marker(marker)
        if tiers.group(item.nodeid):
            item.add_marker(pytest.mark.xdist_group(tiers.group(item.nodeid)))
        own = {m.name for m in item.iter_markers()}
        if tiers.is_slow(file_name, getattr(fn, "__name__", item.name), own, item.name):
            item.add_marker("slow")
            if not full:
                slow.append(item)
                continue
        stand_in = tiers.stand_in_entry(file_name, getattr(fn, "__name__", item.name))
        if stand_in:
            listed.add(stand_in)
            if full:  # its whole run is repeated by the test it stands in for
                slow.append(item)
                continue
        kept.append(item)
        s = tiers.subject(file_name)
        if s:
            subjects[s] = subjects.get(s, 0) + 1
    if slow:
        config.hook.pytest_deselected(items=slow)
        items[:] = kept
    # the whole folder collected for the fast tier: every subject keeps tests in it
    whole = _whole_folder(config)
    if not full and whole and not config.getoption("-k") and not config.getoption("-m"):
        missing = [s for s in dict.fromkeys(tiers.SUBJECTS.values()) if not subjects.get(s)]
        if missing:
            raise pytest.UsageError(
                f"the fast tier has no test of: {', '.join(missing)} (tests/tiers.py)"
            )
    # the whole folder collected: every entry of tiers.SLOW names a test of its
    # file (one renamed would otherwise come back to the fast tier unnoticed;
    # a file not collected, an app's without Qt, is not looked at)
    if whole and not config.getoption("-k") and not config.getoption("-m"):
        files = {Path(str(item.fspath)).name for item in items} | {
            Path(str(item.fspath)).name for item in slow
        }
        named = set(tiers.SLOW) | set(tiers.STAND_INS)
        stale = sorted(k for k in named - listed if k.split("::", 1)[0] in files)
        if stale:
            raise pytest.UsageError(
                "tests/tiers.py's SLOW or STAND_INS names no collected test: " + ", ".join(stale)
            )


def _whole_folder(config) -> bool:
    """Whether the whole test folder is collected (no file or folder named,
    or only ``tests``)."""
    from pathlib import Path

    args = [a for a in config.args if not a.startswith("-")]
    return not args or all(Path(a).resolve() == Path(config.rootpath, "tests") for a in args)


#: the most processes a run of the whole folder starts by itself (pytest-xdist)
MAX_WORKERS = 4


def default_workers(config) -> int:
    """How many processes a run of the whole folder uses when ``-n`` is not
    given: one per core this process may use (at most :data:`MAX_WORKERS`);
    0 (no pytest-xdist, one process) for a run of named files, with ``-n``,
    ``--dist``, ``--tx``, ``--pdb`` or ``--collect-only``, without
    pytest-xdist (``-p no:xdist``), on one core, or in an xdist worker."""
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return 0
    opt = config.option
    if (
        getattr(opt, "numprocesses", None) is not None
        or getattr(opt, "dist", "no") != "no"
        or getattr(opt, "tx", None)
        or opt.usepdb
        or opt.collectonly
        or not _whole_folder(config)
    ):
        return 0
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    n = min(cores or 1, MAX_WORKERS)
    return n if n > 1 else 0


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """A bare ``pytest -q`` (the whole folder) runs over the machine's cores
    with pytest-xdist, as if ``-n N`` were given (before xdist reads it);
    ``-n 0`` runs it in one process, a run of named files is one process.
    Over several processes, ``--dist loadgroup`` unless another is given:
    the tests of an ``xdist_group`` share one process (and its module's
    fixtures: the bundle is built once, not once per process)."""
    n = default_workers(config)
    if n:
        config.option.numprocesses = n
    if getattr(config.option, "numprocesses", None) and config.option.dist == "no":
        # tests of one xdist_group (the bundle's: one build for all of them)
        # go to one process; the others are shared out as --dist load does
        config.option.dist = "loadgroup"


@pytest.hookimpl(optionalhook=True, tryfirst=True)
def pytest_xdist_make_scheduler(config, log):
    """Under ``--dist loadgroup``, the tests of a group of ``tests/tiers.py``'s
    GROUPS go to one process as one unit of work, handed out first (the
    bundle's: built once, from the start of the run); so do the tests of a
    module that makes a fixture once for them (``shares_a_module_fixture``:
    the demo scored in a window, a cluster), made then in one process, not
    in each; every other test is a unit of its own, as xdist's loadgroup
    shares them out (the largest units first).  xdist's own
    grouping reads a suffix it writes on node ids, which pytest 9.2 no
    longer keeps (pytest-xdist issue 1386): the bundle's tests were spread
    over the processes, each building the bundle."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from pathlib import Path

    import tiers
    from xdist.scheduler import LoadGroupScheduling

    class TierGroups(LoadGroupScheduling):
        ordered = False

        def _split_scope(self, nodeid: str) -> str:
            name = tiers.group(nodeid)
            if name:
                return f"group:{name}"
            module = nodeid.split("::", 1)[0]
            if tiers.shares_a_module_fixture(Path(config.rootpath, module)):
                return f"module:{module}"
            return super()._split_scope(nodeid)

        def _assign_work_unit(self, node) -> None:
            if not self.ordered:  # the groups first, then xdist's order (the largest first)
                self.ordered = True
                for scope in [s for s in self.workqueue if s.startswith("group:")][::-1]:
                    self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

    return TierGroups(config, log)


def pytest_report_header(config):
    if config.getoption("--full"):
        return "tier: full (every test; hypothesis profile 'ci')"
    return "tier: fast (slow tests deselected, see tests/tiers.py; --full runs every test)"
