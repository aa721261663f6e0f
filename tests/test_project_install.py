"""Install hints that work from where the user is: no package index serves
shrec-eval, so a missing extra (the app's Qt, Dask) is said with the command
of the installation's own source, read from its ``direct_url.json`` (PEP 610):
the clone of an editable install, the folder or the wheel file, a VCS URL;
``shrec-eval[app]`` only for an install from an index.  .ci/run installs a
wheel without Qt, runs ``shrec-gui`` and then the command it prints."""

import json
import shlex
import sys
from pathlib import Path

import pytest
from shrec_eval import installed

from shrec_gui import launch

ROOT = Path(__file__).resolve().parents[1]
PY = shlex.quote(sys.executable)


def fake_install(tmp_path, monkeypatch, direct_url, installer="pip"):
    """A shrec-eval installation's metadata found first on sys.path."""
    info = tmp_path / "site" / "shrec_eval-9.9.9.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: shrec-eval\nVersion: 9.9.9\n")
    if installer:
        (info / "INSTALLER").write_text(installer + "\n")
    if direct_url is not None:
        (info / "direct_url.json").write_text(json.dumps(direct_url))
    monkeypatch.syspath_prepend(str(tmp_path / "site"))


@pytest.mark.parametrize(
    "direct_url,hint",
    [
        (
            {"url": "file:///home/ann/shrec-eval", "dir_info": {"editable": True}},
            f"{PY} -m pip install -e '/home/ann/shrec-eval[app]'",
        ),
        (
            {"url": "file:///home/ann/my%20clone", "dir_info": {}},
            f"{PY} -m pip install '/home/ann/my clone[app]'",
        ),
        (
            {
                "url": "file:///tmp/dl/shrec_eval-0.3.0-py3-none-any.whl",
                "archive_info": {"hashes": {"sha256": "00"}},
            },
            f"{PY} -m pip install '/tmp/dl/shrec_eval-0.3.0-py3-none-any.whl[app]'",
        ),
        (
            {"url": "file:///tmp/dl/shrec_eval-0.3.0.tar.gz", "archive_info": {}},
            f"{PY} -m pip install '/tmp/dl/shrec_eval-0.3.0.tar.gz[app]'",
        ),
        (
            {
                "url": "https://github.com/x/shrec-eval.git",
                "vcs_info": {"vcs": "git", "commit_id": "abc123"},
            },
            f"{PY} -m pip install "
            "'shrec-eval[app] @ git+https://github.com/x/shrec-eval.git@abc123'",
        ),
        (
            {"url": "https://example.org/shrec_eval-0.3.0-py3-none-any.whl", "archive_info": {}},
            f"{PY} -m pip install "
            "'shrec-eval[app] @ https://example.org/shrec_eval-0.3.0-py3-none-any.whl'",
        ),
        (None, f"{PY} -m pip install 'shrec-eval[app]'"),  # from an index
    ],
    ids=["clone-editable", "folder", "wheel", "sdist", "vcs", "url", "index"],
)
def test_the_hint_is_the_command_of_the_installs_source(tmp_path, monkeypatch, direct_url, hint):
    fake_install(tmp_path, monkeypatch, direct_url)
    assert installed.pip_install("app") == hint


def test_a_checkout_run_without_an_install_is_told_to_install_the_checkout(monkeypatch):
    from importlib import metadata  # (installed.py imports it when it writes a hint)

    monkeypatch.setattr(metadata, "distributions", lambda **kw: [])
    assert installed.pip_install("dask") == f"{PY} -m pip install -e '{ROOT}[dask]'"


def test_a_checkouts_own_egg_info_does_not_hide_the_installs_source(tmp_path, monkeypatch):
    """Python run in the clone finds its shrec_eval.egg-info first (no
    direct_url.json, no INSTALLER): the installed one still says where from."""
    fake_install(tmp_path, monkeypatch, {"url": "file:///c", "dir_info": {"editable": True}})
    egg = tmp_path / "checkout" / "shrec_eval.egg-info"
    egg.mkdir(parents=True)
    (egg / "PKG-INFO").write_text("Metadata-Version: 2.1\nName: shrec-eval\nVersion: 9.9.9\n")
    monkeypatch.syspath_prepend(str(tmp_path / "checkout"))
    assert installed.pip_install("app") == f"{PY} -m pip install -e '/c[app]'"


def test_shrec_gui_without_qt_says_the_command_of_this_install(monkeypatch, capsys, tmp_path):
    wheel = "/srv/wheels/shrec_eval-0.3.0-py3-none-any.whl"
    fake_install(tmp_path, monkeypatch, {"url": f"file://{wheel}", "archive_info": {}})
    monkeypatch.setitem(sys.modules, "PySide6", None)  # not installed
    assert launch.main([]) == 1
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "shrec-gui: the desktop app needs Qt (PySide6) and pyqtgraph, which are not "
        "installed; add them with:",
        f"  {PY} -m pip install '{wheel}[app]'",
    ]
    assert "shrec-eval[app]" not in err  # no index serves it


def test_this_test_runs_installed_from_its_clone():
    """The suite runs in the editable install of README's command: its hint
    names this clone."""
    assert installed.pip_install("app") == f"{PY} -m pip install -e '{ROOT}[app]'"


def test_the_frozen_app_says_where_the_extra_comes_from(monkeypatch):
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    hint = installed.pip_install("dask")
    assert "the frozen app cannot add it" in hint and "[dask]" in hint and " -m pip" not in hint
