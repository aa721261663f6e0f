"""The suite's tiers as conftest applies them (tests/tiers.py, docs/development.md):
a run of the whole folder spreads over the cores by itself, a run of named
files stays in one process."""

from __future__ import annotations

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
    import test_project_bundle

    marks = {m.name: m for m in test_project_bundle.pytestmark}
    assert marks["xdist_group"].args == ("bundle",)
