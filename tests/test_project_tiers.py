"""The suite's tiers as conftest applies them (tests/tiers.py, docs/development.md):
a run of the whole folder spreads over the cores by itself, a run of named
files stays in one process."""

from __future__ import annotations

import os
import subprocess
import sys
import types
from pathlib import Path

import conftest
import pytest

ROOT = Path(__file__).resolve().parent.parent


class _Plugins:
    def __init__(self, xdist: bool) -> None:
        self.xdist = xdist

    def hasplugin(self, name: str) -> bool:
        return name == "xdist" and self.xdist


def _config(args=(), *, xdist=True, worker=False, **options):
    opt = {"numprocesses": None, "dist": "no", "tx": [], "usepdb": False, "collectonly": False}
    opt.update(options)
    config = types.SimpleNamespace(
        args=list(args),
        rootpath=ROOT,
        option=types.SimpleNamespace(**opt),
        pluginmanager=_Plugins(xdist),
    )
    if worker:
        config.workerinput = {}
    return config


@pytest.fixture
def cores(monkeypatch):
    """The cores this process may use, as the test sets them."""

    def use(n: int) -> None:
        monkeypatch.setattr(conftest.os, "sched_getaffinity", lambda _pid: set(range(n)))

    return use


@pytest.mark.parametrize("args", [(), (str(ROOT / "tests"),)])
def test_the_whole_folder_runs_on_every_core_up_to_the_most(cores, args):
    cores(2)
    assert conftest.default_workers(_config(args)) == 2
    cores(3)
    assert conftest.default_workers(_config(args)) == 3
    cores(64)
    assert conftest.default_workers(_config(args)) == conftest.MAX_WORKERS == 4


@pytest.mark.parametrize(
    "args, options",
    [
        (("tests/test_cli.py",), {}),  # named files
        (("tests/test_cli.py", "tests"), {}),
        ((), {"numprocesses": 0}),  # -n 0: one process
        ((), {"numprocesses": 3}),  # -n 3: xdist's own
        ((), {"dist": "loadfile"}),
        ((), {"tx": ["popen"]}),
        ((), {"usepdb": True}),
        ((), {"collectonly": True}),
    ],
)
def test_named_files_and_the_users_own_choices_stay_as_given(cores, args, options):
    cores(4)
    assert conftest.default_workers(_config(args, **options)) == 0


def test_one_core_no_xdist_or_a_worker_stays_in_one_process(cores):
    cores(1)
    assert conftest.default_workers(_config()) == 0
    cores(4)
    assert conftest.default_workers(_config(xdist=False)) == 0
    assert conftest.default_workers(_config(worker=True)) == 0


def test_the_hook_sets_what_xdist_reads(cores):
    cores(2)
    config = _config()
    conftest.pytest_cmdline_main(config)
    assert config.option.numprocesses == 2
    config = _config(("tests/test_cli.py",))
    conftest.pytest_cmdline_main(config)
    assert config.option.numprocesses is None


def test_several_processes_keep_an_xdist_group_together(cores):
    """Over several processes the tests of one xdist_group (the bundle's)
    share one: --dist loadgroup, set by conftest when the run is spread
    by itself or with -n alone; a --dist the user gives stays."""
    cores(2)
    config = _config()
    conftest.pytest_cmdline_main(config)
    assert config.option.dist == "loadgroup"
    config = _config(("tests/test_cli.py",), numprocesses=2)  # pytest -n 2 FILE
    conftest.pytest_cmdline_main(config)
    assert config.option.dist == "loadgroup"
    config = _config(numprocesses=2, dist="loadfile")
    conftest.pytest_cmdline_main(config)
    assert config.option.dist == "loadfile"
    config = _config(("tests/test_cli.py",))  # one process: nothing to group
    conftest.pytest_cmdline_main(config)
    assert config.option.dist == "no"


def test_the_bundle_tests_are_one_group():
    import tiers

    assert tiers.GROUPS["test_project_bundle.py"] == "bundle"
    assert tiers.group("tests/test_project_bundle.py::test_x") == "bundle"
    assert tiers.group("tests/test_project_bundle.py::test_x@bundle") == "bundle"  # xdist's own
    assert tiers.group("tests/test_project_bundle_x" + ".py::test_x") is None  # another module
    assert tiers.group("tests/test_cli.py::test_project_bundle.py") is None


def test_a_group_runs_in_one_process_first_over_several(tmp_path):
    """``pytest -n 2 --dist loadgroup`` (README's command; conftest gives
    ``--dist loadgroup`` by itself, as the test above checks) with this
    suite's conftest (as a plugin) on a folder of its own: the tests of the
    bundle's module (a group of tests/tiers.py), spread among others, all run
    in one process, before any other test there; a module's fixture made
    once for its tests is made once, its tests in one process; the others
    are shared out over both processes."""
    folder = tmp_path / "suite"
    folder.mkdir()
    record = (
        "import os, pathlib, pytest\n"
        "@pytest.mark.parametrize('i', range({n}))\n"
        "def test_x(i):\n"
        "    with open(pathlib.Path(__file__).parent.parent / 'ran.txt', 'a') as fh:\n"
        "        fh.write(f\"{{os.environ['PYTEST_XDIST_WORKER']}} {{__name__}}\\n\")\n"
    )
    (folder / "test_app_a").with_suffix(".py").write_text(record.format(n=6))
    (folder / "test_project_bundle.py").write_text(record.format(n=5))
    (folder / "test_shapes_z").with_suffix(".py").write_text(record.format(n=6))
    # a module whose fixture is made once for its tests: made in one process
    (folder / "test_app_m").with_suffix(".py").write_text(
        record.format(n=6).replace("def test_x(i):", "def test_x(i, made):")
        + "@pytest.fixture(scope='module')\n"
        "def made():\n"
        "    with open(pathlib.Path(__file__).parent.parent / 'made.txt', 'a') as fh:\n"
        "        fh.write('made\\n')\n"
    )
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), *sys.path]))
    p = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "conftest", "--full", "-n", "2"]
        + ["--dist", "loadgroup", "-p", "no:cacheprovider", "--rootdir", str(folder), str(folder)],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    ran = [line.split() for line in (tmp_path / "ran.txt").read_text().splitlines()]
    assert len(ran) == 23
    assert (tmp_path / "made.txt").read_text() == "made\n"
    assert len({w for w, m in ran if m == "test_app_m"}) == 1, ran
    bundle = {w for w, m in ran if m == "test_project_bundle"}
    assert len(bundle) == 1, ran
    (worker,) = bundle
    mine = [m for w, m in ran if w == worker]
    assert mine[:5] == ["test_project_bundle"] * 5, ran
    assert {w for w, _ in ran} == {"gw0", "gw1"}


def test_an_entry_of_slow_that_names_no_test_of_its_file_stops_the_run(tmp_path):
    """tests/tiers.py's SLOW names tests by file and function: a test renamed
    (or a case's parameters changed) would leave its entry naming nothing,
    and the test back in the fast tier unnoticed.  A run of the whole folder
    refuses such an entry, naming it; files not collected (an app's without
    Qt) are not looked at."""
    import tiers

    entry = "test_cli.py::test_csv_and_report_outputs"
    assert entry in tiers.SLOW
    folder = tmp_path / "tests"
    folder.mkdir()
    others = "".join(  # the file's other tests listed in SLOW, under their names
        f"def {k.split('::')[1]}():\n    pass\n"
        for k in tiers.SLOW
        if k.startswith("test_cli.py::") and "[" not in k and k != entry
    )
    # the listed file, without the listed test (as after a rename)
    (folder / "test_cli.py").write_text("def test_renamed():\n    pass\n" + others)

    def run(*args):
        return _suite_run(tmp_path, folder, "-q", *args)

    p = run("--full")
    assert p.returncode == 4, p.stdout[-2000:] + p.stderr[-2000:]
    assert f"SLOW or STAND_INS names no collected test: {entry}\n" in p.stderr
    assert "test_outputs_" not in p.stderr  # only files collected are looked at
    # with the test under its listed name, the run goes on
    (folder / "test_cli.py").write_text(f"def {entry.split('::')[1]}():\n    pass\n" + others)
    p = run("--full")
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]


def test_a_stand_in_runs_in_the_fast_tier_only_and_names_a_test_of_the_full_tier(tmp_path):
    """A test of tests/tiers.py's STAND_INS (the fast tier's part of a full
    tier's test, which runs all of it again with the same checks) runs in
    the fast tier and not in the full one, where the test it stands in for
    runs; each names that test, a test of SLOW in its own file."""
    import tiers

    assert tiers.STAND_INS
    for entry, why in tiers.STAND_INS.items():
        held = why.split(": ", 1)[0]
        assert held in tiers.SLOW, (entry, held)
        assert held.split("::")[0] == entry.split("::")[0]
        assert entry not in tiers.SLOW
    entry = next(iter(tiers.STAND_INS))
    file_name, function = entry.split("::")
    held = tiers.STAND_INS[entry].split(": ", 1)[0].split("::")[1]
    folder = tmp_path / "tests"
    folder.mkdir()
    others = "".join(  # the file's tests listed in SLOW, under their names
        f"def {k.split('::')[1]}():\n    pass\n"
        for k in tiers.SLOW
        if k.startswith(file_name + "::") and "[" not in k and k.split("::")[1] != held
    )
    (folder / file_name).write_text(
        f"def {function}():\n    pass\n\ndef {held}():\n    pass\n" + others
    )

    def ran(*args) -> set[str]:
        p = _suite_run(tmp_path, folder, "-v", *args)
        assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
        return {
            line.split("::")[1].split()[0] for line in p.stdout.splitlines() if " PASSED" in line
        }

    fast = ran("-k", "test_")  # (-k: no check that every subject keeps tests)
    assert function in fast and held not in fast
    full = ran("--full")
    assert held in full and function not in full


def _suite_run(root, folder, *args) -> subprocess.CompletedProcess:
    """pytest with this suite's conftest (as a plugin) on ``folder``, a
    suite of its own, in one process."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "tests"), *sys.path]))
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "conftest", "-p", "no:cacheprovider"]
        + ["-n", "0", "--rootdir", str(root), *args, str(folder)],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _drawers_server() -> tuple[int, bool]:
    """The server a drawing process is forked from (its parent), and whether
    it still runs once those drawers are closed."""
    from hostile import alive
    from shrec_eval.outputs.figure_jobs import FigureDrawers

    with FigureDrawers(workers=1, from_server=True) as d:
        assert d._pool is not None
        server = d._pool.submit(os.getppid).result(timeout=120)
    return server, alive(server)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forkserver, /proc: Linux")
def test_the_session_keeps_one_figure_server_for_its_reports():
    """conftest's _one_figure_server: drawers started one after the other in
    a test's process are forked from one server, which outlives them (each
    report started its own and ended it: its import of matplotlib, a second
    of processor time)."""
    first, first_alive = _drawers_server()
    second, second_alive = _drawers_server()
    assert first == second != os.getpid()
    assert first_alive and second_alive


@pytest.mark.figure_server
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forkserver, /proc: Linux")
def test_a_test_of_the_figure_servers_own_life_runs_without_the_sessions():
    """Marked ``figure_server``: drawers in the test's process start a
    server of their own and end it with them, as a process that keeps none."""
    import time

    from hostile import alive
    from shrec_eval.outputs import figure_start

    assert figure_start._SERVER_USERS == [0]
    first, _ = _drawers_server()
    second, _ = _drawers_server()
    # drawers closed while their start's thread still runs leave the server
    # to that thread, which lets go of it (and so ends it) a moment later
    deadline = time.monotonic() + 30
    while (alive(first) or alive(second)) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert first != second and not alive(first) and not alive(second)
