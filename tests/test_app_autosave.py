"""Autosave of the session and its recovery after a crash (issue 31): an
unsaved change is written to the app's data folder, saving or undoing it
removes the copy, a normal close removes the folder, and after a crash
(an app process killed with SIGKILL) the next start offers the copy back:
recovered, it opens as the session it was, with its changes unsaved."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import answer_questions, wait_idle  # noqa: E402
from PySide6.QtWidgets import QMessageBox  # noqa: E402
from shrec_eval.contest import Contest  # noqa: E402
from shrec_eval.resources import demo_manifest  # noqa: E402

from shrec_gui.state.autosave import ABOUT, SESSION, Autosave, AutosaveHost, recoverable  # noqa: E402


def _written(qtbot, autosave, exists=True):
    """Write the copy now and wait for the writing thread."""
    autosave.save()
    autosave.wait()
    qtbot.waitUntil(lambda: (autosave.folder / SESSION).exists() == exists, timeout=5000)


@pytest.fixture
def saved_win(win, qtbot, tmp_path):
    win.quiet = True
    autosave = Autosave(AutosaveHost.of(win), root=tmp_path / "autosave")
    win.open_demo()
    wait_idle(qtbot, win, 7, timeout=60000)
    yield win, autosave
    autosave.finish()


def test_an_unsaved_change_is_autosaved_and_goes_when_undone(saved_win, qtbot):
    win, autosave = saved_win
    c = win.controller
    assert autosave.lock.isLocked()
    _written(qtbot, autosave, exists=False)  # the demo as opened: nothing to keep
    removed = next(iter(c.entries.values())).name
    c.remove([next(iter(c.entries))])
    # written a moment after the change, by itself
    qtbot.waitUntil(lambda: (autosave.folder / SESSION).exists(), timeout=10000)
    autosave.wait()
    copy = Contest.read(autosave.folder / SESSION)
    assert [r.name for r in copy.runs] == [e.name for e in c.entries.values()]
    assert removed not in [r.name for r in copy.runs]
    assert copy.description == Contest.read(demo_manifest()).description
    about = json.loads((autosave.folder / ABOUT).read_text(encoding="utf-8"))
    assert about["session"] == c.session_path and about["changes"] == ["1 run removed"]
    assert copy.view["tab"] == "Summary"
    # undone: nothing unsaved, no copy
    win.menus.undo_action.trigger()
    _written(qtbot, autosave, exists=False)
    assert not (autosave.folder / ABOUT).exists()


def test_a_normal_close_removes_the_folder_a_forced_one_keeps_it(win, qtbot, tmp_path):
    win.quiet = True
    root = tmp_path / "autosave"
    a = Autosave(AutosaveHost.of(win), root=root)
    win.open_demo()
    wait_idle(qtbot, win, 7, timeout=60000)
    win.controller.remove([next(iter(win.controller.entries))])
    a.finish(keep=True)  # a second Ctrl-C: closed without the user's answer
    assert (a.folder / SESSION).is_file() and not a.lock.isLocked()
    found = recoverable(root)
    assert [r.folder for r in found] == [a.folder]
    found[0].later()
    b = Autosave(AutosaveHost.of(win), root=root)
    b.finish()  # closed with the user's answer: its folder goes
    assert not b.folder.exists() and a.folder.exists()


def test_an_app_running_is_never_offered(win, qtbot, tmp_path):
    win.quiet = True
    root = tmp_path / "autosave"
    running = Autosave(AutosaveHost.of(win), root=root)
    win.open_demo()
    wait_idle(qtbot, win, 7, timeout=60000)
    win.controller.remove([next(iter(win.controller.entries))])
    _written(qtbot, running)
    assert recoverable(root) == []  # its lock is held by a live process
    running.finish()


CRASHING_APP = textwrap.dedent(
    """
    import os, sys, time
    from shrec_gui.app import make_app, open_window, parse_args
    app = make_app()
    win, closer, autosave = open_window(parse_args(["--demo"]))
    c = win.controller
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (
        len(c.entries) == 7 and c.idle() and all(e.result is not None for e in c.entries.values())
    ):
        app.processEvents()
        time.sleep(0.01)
    keys = list(c.entries)
    c.remove(keys[1:3])  # two runs removed, then renamed one: unsaved work
    c.rename_run(keys[0], "Renamed")
    while not (autosave.folder / "session.json").exists():
        app.processEvents()
        time.sleep(0.01)
    autosave.wait()
    print("ready", flush=True)
    while True:  # until killed
        app.processEvents()
        time.sleep(0.01)
    """
)


@pytest.mark.skipif(os.name != "posix", reason="SIGKILL")
def test_after_a_crash_the_next_start_offers_the_work_back(win, qtbot, tmp_path, monkeypatch):
    data = tmp_path / "data"
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        SHREC_GUI_DATA_DIR=str(data),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
    )
    p = subprocess.Popen(
        [sys.executable, "-c", CRASHING_APP],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        line = p.stdout.readline().decode()
        assert line.strip() == "ready", p.stderr.read().decode()[-3000:]
    finally:
        p.send_signal(signal.SIGKILL)  # the crash
        p.wait(30)
    folders = list((data / "autosave").iterdir())
    assert len(folders) == 1 and (folders[0] / SESSION).is_file()

    # the next start: the question, answered Recover
    asked = []
    monkeypatch.setenv("SHREC_GUI_DATA_DIR", str(data))
    win.quiet = True

    def exec_(box):
        asked.append((box.windowTitle(), box.text()))
        (recover,) = [b for b in box.buttons() if b.text() == "&Recover"]
        recover.click()
        return 0

    monkeypatch.setattr(QMessageBox, "exec", exec_)
    autosave = Autosave(AutosaveHost.of(win))
    try:
        assert autosave.offer_recovery()
        assert asked and asked[0][0] == "Recover unsaved work"
        assert "did not close normally" in asked[0][1] and "the session contest.json" in asked[0][1]
        assert "2 runs removed" in asked[0][1]
        c = win.controller
        wait_idle(qtbot, win, 5, timeout=60000)
        names = [e.name for e in c.entries.values()]
        assert names[0] == "Renamed" and len(names) == 5
        assert c.unsaved() and c.unsaved_changes() == ["the work recovered from the autosave"]
        assert c.session_path == str(demo_manifest())
        assert win.contest_name == Contest.read(demo_manifest()).name
        assert win.shown_title() == f"SHREC evaluation — {win.contest_name}*"  # unsaved: recovered
        assert not c.history.stack.canUndo()  # a new history
        # the copy is this app's own now: the crashed app's folder is gone
        assert not folders[0].exists()
        _written(qtbot, autosave)
        assert [x for x in (data / "autosave").iterdir()] == [autosave.folder]
        # unsaved: the close question names what is at stake
        asked_close: list[str] = []
        answer_questions(monkeypatch, [QMessageBox.StandardButton.Cancel], asked_close)
        assert not win.dialogs.confirm_discard() and asked_close == ["Unsaved changes"]
    finally:
        autosave.finish()
    assert not (data / "autosave" / autosave.folder.name).exists()


def test_discard_and_later(win, qtbot, tmp_path):
    win.quiet = True
    root = tmp_path / "autosave"
    crashed = Autosave(AutosaveHost.of(win), root=root)
    win.open_demo()
    wait_idle(qtbot, win, 7, timeout=60000)
    win.controller.remove([next(iter(win.controller.entries))])
    crashed.finish(keep=True)
    now = Autosave(AutosaveHost.of(win), root=root)
    seen = []
    assert not now.offer_recovery(ask=lambda r: seen.append(r.describe()) or "later")
    assert crashed.folder.exists() and len(seen) == 1  # asked again next time
    assert not now.offer_recovery(ask=lambda r: "discard")
    assert not crashed.folder.exists()
    assert not now.offer_recovery(ask=lambda r: pytest.fail("nothing left to offer"))
    now.finish()


def test_no_data_folder_no_autosave_and_no_crash(win, qtbot, tmp_path):
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder")
    a = Autosave(AutosaveHost.of(win), root=blocked / "autosave")
    assert not a.enabled and "No autosave" in win.status_label.text()
    win.quiet = True
    win.open_demo()
    wait_idle(qtbot, win, 7, timeout=60000)
    win.controller.remove([next(iter(win.controller.entries))])
    a.save()
    assert not a.offer_recovery(ask=lambda r: pytest.fail("nothing to offer"))
    a.finish(keep=True)


# -- a copy that cannot be opened (f02) -------------------------------------------------------
CLA = "PSB 1\n2 4\n\na 0 2\n0\n1\n\nc 0 2\n2\n3\n"
MATRIX = "0 1 2 3\n1 0 2 3\n2 3 0 1\n3 2 1 0\n"


def _crashed_app(tmp_path, root):
    """What an app that crashed leaves: its folder (no live lock) with a copy
    naming a contest of its own (a run added and renamed: unsaved work)."""
    contest = tmp_path / "contest"
    contest.mkdir()
    (contest / "a.cla").write_text(CLA)
    (contest / "m.txt").write_text(MATRIX)
    (contest / "second.txt").write_text(MATRIX)
    folder = root / "4242-deadbeef"
    folder.mkdir(parents=True)
    session = {
        "version": 3,
        "name": "my contest",
        "assessment": {"path": str(contest / "a.cla")},
        "runs": [
            {"path": str(contest / "m.txt"), "name": "Mine (renamed)"},
            {"path": str(contest / "second.txt")},
        ],
    }
    (folder / SESSION).write_text(json.dumps(session))
    about = {"session": None, "name": "my contest", "changes": ["2 runs added", "1 run renamed"]}
    (folder / ABOUT).write_text(json.dumps(about))
    return contest, folder


@pytest.mark.parametrize("how", ["assessment moved", "copy damaged"])
def test_a_copy_that_cannot_be_opened_is_kept_and_offered_again(win, qtbot, tmp_path, how):
    root = tmp_path / "autosave"
    contest, crashed = _crashed_app(tmp_path, root)
    copy = (crashed / SESSION).read_text()
    if how == "assessment moved":
        contest.rename(tmp_path / "moved")
    else:
        (crashed / SESSION).write_text(copy[: len(copy) // 2])  # cut short
    win.quiet = True
    now = Autosave(AutosaveHost.of(win), root=root)
    assert now.offer_recovery(ask=lambda r: "recover")
    qtbot.waitUntil(lambda: bool(win.errors), timeout=10000)
    assert "The autosave copy is kept: the next start offers it again" in win.errors[0]
    # the file that could not be read, named
    bad = contest / "a.cla" if how == "assessment moved" else crashed / SESSION
    assert win.errors[0].startswith(f"{bad}")
    c = win.controller
    assert c.assessment is None and not c.unsaved()
    now.finish()  # a normal close: nothing unsaved, nothing asked
    assert not now.folder.exists()
    assert (crashed / SESSION).is_file() and (crashed / ABOUT).is_file()
    # the next start offers it again
    (offered,) = recoverable(root)
    assert offered.folder == crashed and "1 run renamed" in offered.describe()
    offered.later()
    # the files put back (the copy mended): it opens
    if how == "assessment moved":
        (tmp_path / "moved").rename(contest)
    else:
        (crashed / SESSION).write_text(copy)
    win.errors.clear()
    again = Autosave(AutosaveHost.of(win), root=root)
    try:
        assert again.offer_recovery(ask=lambda r: "recover")
        wait_idle(qtbot, win, 2, timeout=30000)
        assert not win.errors
        assert [e.name for e in c.entries.values()] == ["Mine (renamed)", "second"]
        assert c.unsaved() and win.contest_name == "my contest"
        # opened: this app's copy holds the work now, the crashed app's folder is gone
        qtbot.waitUntil(lambda: not crashed.exists(), timeout=5000)
        assert (again.folder / SESSION).is_file()
        assert [r.name for r in Contest.read(again.folder / SESSION).runs][0] == "Mine (renamed)"
    finally:
        again.finish()


def test_a_recovery_still_opening_at_a_normal_close_is_kept(win, qtbot, tmp_path):
    root = tmp_path / "autosave"
    _, crashed = _crashed_app(tmp_path, root)
    now = Autosave(AutosaveHost.of(win), root=root)
    assert now.offer_recovery(ask=lambda r: "recover")
    now.finish()  # closed before the copy was read
    assert (crashed / SESSION).is_file()
    (offered,) = recoverable(root)
    offered.later()


def test_the_question_names_every_unsaved_change_renames_too(saved_win, qtbot):
    win, autosave = saved_win
    c = win.controller
    keys = list(c.entries)
    c.rename_run(keys[0], "Renamed")
    assert c.unsaved_changes() == ["1 run renamed"]
    c.remove(keys[1:3])
    c.rename_run(keys[3], "Renamed too")
    assert c.unsaved_changes() == ["2 runs removed", "2 runs renamed"]
    _written(qtbot, autosave)
    about = json.loads((autosave.folder / ABOUT).read_text(encoding="utf-8"))
    assert about["changes"] == ["2 runs removed", "2 runs renamed"]
    autosave.finish(keep=True)
    (offered,) = recoverable(autosave.root)
    try:
        assert "(unsaved: 2 runs removed; 2 runs renamed)" in offered.describe()
    finally:
        offered.later()
