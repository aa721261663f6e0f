"""The recent files: only what opened (a file that could not be read is
not one), each contest once (a path through a link, the bundled demo of
another installation of the app)."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import wait_idle  # noqa: E402
from PySide6.QtCore import QSettings  # noqa: E402
from shrec_eval.resources import demo_manifest  # noqa: E402
from test_app_file_roles import BAD_CLA, CLA, INT4  # noqa: E402
from test_app_session import drop  # noqa: E402

from shrec_gui.window.settings import Preferences  # noqa: E402


@pytest.fixture
def prefs(tmp_path):
    return Preferences(QSettings(str(tmp_path / "settings.ini"), QSettings.Format.IniFormat))


def test_the_demo_is_one_entry_whatever_installation_opened_it(prefs, tmp_path):
    demo = str(demo_manifest().resolve())
    session = tmp_path / "mine" / "review.json"
    session.parent.mkdir()
    session.write_text("{}")
    link = tmp_path / "link"
    link.symlink_to(session.parent)
    # what a source checkout, a wheel and a bundle of the app remembered
    others = [
        "/home/me/src/shrec-eval/resources/demo/contest.json",
        "/usr/lib/python3/site-packages/shrec_eval/_resources/demo/contest.json",
        "/opt/shrec-gui/_internal/resources/demo/contest.json",
    ]
    prefs.qsettings.setValue("files/recent", [others[0], str(session), *others[1:]])
    assert prefs.recent() == [demo, str(session)]
    prefs.remember_recent(str(demo_manifest()))
    prefs.remember_recent(str(link / "review.json"))  # the same file through a link
    assert prefs.recent() == [str(session), demo]
    # a contest.json of the user's own in a folder named demo is no demo of the app's
    own = tmp_path / "demo" / "contest.json"
    own.parent.mkdir()
    own.write_text("{}")
    prefs.remember_recent(str(own))
    assert prefs.recent() == [str(own), str(session), demo]
    prefs.forget_recent(demo)
    assert prefs.recent() == [str(own), str(session)]


def test_a_file_that_cannot_be_opened_is_not_a_recent_file(win, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QFileDialog

    win.quiet = True
    (tmp_path / "bad.cla").write_text(BAD_CLA)
    (tmp_path / "bad.json").write_text('{"version": 3, "assessment": ')
    (tmp_path / "a.cla").write_text(CLA)
    (tmp_path / "m.txt").write_text(INT4)
    before = win.prefs.recent()
    drop(win, tmp_path / "bad.cla")
    qtbot.waitUntil(lambda: len(win.errors) == 1, timeout=10000)
    drop(win, tmp_path / "bad.json")
    qtbot.waitUntil(lambda: len(win.errors) == 2, timeout=10000)
    monkeypatch.setattr(
        QFileDialog, "getOpenFileName", lambda *a, **k: (str(tmp_path / "bad.cla"), "")
    )
    win.dialogs.open_assessment_dialog()
    qtbot.waitUntil(lambda: len(win.errors) == 3, timeout=10000)
    wait_idle(qtbot, win)
    assert win.prefs.recent() == before
    assert all(str(tmp_path) not in json.dumps(x) for x in win.prefs.recent())
    # one that opens is
    win.open_files([str(tmp_path / "a.cla"), str(tmp_path / "m.txt")], ordered=True)
    wait_idle(qtbot, win, 1)
    assert win.prefs.recent()[0] == str((tmp_path / "a.cla").resolve())
