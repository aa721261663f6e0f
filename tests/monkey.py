"""A seeded monkey for the app (issue 31), run in a child process by
tests/test_app_monkey.py (a crash ends the child, not the test run):

    python tests/monkey.py SEED ACTIONS REPORT.json

The demo contest is opened and scored in a real (offscreen) window, as
``shrec-gui --demo`` opens it (signals, autosave), then ACTIONS random
actions, drawn from SEED:

* every action of every menu once in the menus' order, then at random
  (Quit last of all);
* a shortcut typed on the focused widget (Ctrl+Z, F5, Ctrl+A then Del...);
* a tab shown;
* text typed into a line edit of the window, its suggestions popup opened
  when it has one, and Enter (on the popup, a suggestion chosen or not);
* a column header clicked (a sort), rows selected and Del;
* a button clicked, a combo box choice;
* the window resized to 1280 x 720 and back;
* time for the event loop (scoring, thumbnails);
* the scoring options changed as OK in Scoring > Options changes them (a
  profile the demo reads, the average, the ranks), and a run of the demo
  added as File > Add runs adds it; the app is then left to settle and every
  run (after an options change), or the run added, must end scored with the
  options in force, without F5 (a miss is reported as an error).

Every modal dialog (and menu) that opens is answered as a user pressing
Escape would: Cancel.  The report (JSON) lists the Python exceptions
(sys.excepthook, threading.excepthook, and Qt's own exception reporting goes
through sys.excepthook), the threads and processes left once the window has
closed, the actions done and the dialogs seen."""

from __future__ import annotations

import faulthandler
import json
import os
import random
import sys
import threading
import time
import traceback
from collections import Counter
from dataclasses import replace
from pathlib import Path

faulthandler.enable()  # a crash prints where it happened (the test shows it)
os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

#: the profiles the demo can be scored under (sipiran21 reads matrices by
#: id, the demo's ids are names; shapenet17 reads its own contests)
DEMO_PROFILES = ("shrec", "trec_eval", "psbtable", "boli")
#: the demo's runs the monkey adds
DEMO_RUNS = ("spectralnet.txt", "viewharmonics.trec", "voxelmoments.matrix", "lightfield-200")

#: words typed into line edits: measure names, other tools' names, junk
WORDS = [
    "map", "MAP", "P@10", "p@1", "nn", "NN", "ndcg", "nDCG@5", "ft", "st", "e_measure",
    "dcg", "Recall@100", "recall_100", "Rprec", "adr", "first tier", "q01", "xyz", "",
    "mapp", "@", "%", "1e9", "-1", "é", "   ", "P@", "Average Dynamic Recall",
]  # fmt: skip


class Monkey:
    def __init__(self, seed: int, app, win) -> None:
        self.rng = random.Random(seed)
        self.app = app
        self.win = win
        self.log: list[str] = []
        self.kinds: Counter = Counter()
        self.dialogs: Counter = Counter()
        self.escaping = True
        self._seen_modal: dict = {}
        from PySide6.QtCore import QTimer

        self.escaper = QTimer()
        self.escaper.setInterval(30)
        self.escaper.timeout.connect(self._escape)
        self.escaper.start()
        self.size = win.size()
        self.trail = None  # a file: each action before it is done (a crash's last one)
        self.misses: list[str] = []  # runs not scored with the options in force
        self.added = 0

    # -- the user who presses Escape on every dialog ------------------------------------------
    def _escape(self) -> None:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QApplication, QDialog, QMenu

        if not self.escaping:
            return
        w = QApplication.activeModalWidget()
        if w is None:
            popup = QApplication.activePopupWidget()
            w = popup if isinstance(popup, QMenu) else None
        if w is None:
            return
        key = id(w)
        tries = self._seen_modal.get(key, 0)
        if tries == 0:
            self.dialogs[f"{type(w).__name__}: {w.windowTitle()}"] += 1
        self._seen_modal[key] = tries + 1
        if tries < 2:
            QTest.keyClick(w, Qt.Key.Key_Escape)
        elif isinstance(w, QDialog):
            w.reject()
        else:
            w.close()

    # -- helpers --------------------------------------------------------------------------------
    def spin(self, ms: int = 0) -> None:
        deadline = time.monotonic() + ms / 1000
        while True:
            self.app.processEvents()
            if time.monotonic() >= deadline:
                break
            time.sleep(0.005)

    def visible(self, cls) -> list:
        return [w for w in self.win.findChildren(cls) if w.isVisible() and w.isEnabled()]

    def menu_actions(self) -> list:
        """(path, action) of every entry of every menu (submenus opened), Quit apart."""
        out = []

        def walk(menu, path):
            for a in menu.actions():
                if a.isSeparator():
                    continue
                if a.menu() is not None:
                    walk(a.menu(), f"{path} > {a.text()}")
                else:
                    out.append((f"{path} > {a.text()}", a))

        for top in self.win.menuBar().actions():
            if top.menu() is not None:
                walk(top.menu(), top.text())
        quit_action = self.win_quit_action()  # once (a search of the window's actions)
        return [(p, a) for p, a in out if a is not quit_action]

    def win_quit_action(self):
        for a in self.win.findChildren(type(self.win.menus.undo_action)):
            if a.text() == "&Quit":
                return a
        return None

    # -- actions --------------------------------------------------------------------------------
    def menu(self) -> str:
        path, a = self.rng.choice(self.menu_actions())
        if a.isEnabled():
            a.trigger()
        return f"menu {path}" + ("" if a.isEnabled() else " (disabled)")

    def shortcut(self) -> str:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        C, S = Qt.KeyboardModifier.ControlModifier, Qt.KeyboardModifier.ShiftModifier
        keys = [
            ("Ctrl+Z", Qt.Key.Key_Z, C),
            ("Ctrl+Shift+Z", Qt.Key.Key_Z, C | S),
            ("Ctrl+Y", Qt.Key.Key_Y, C),
            ("F5", Qt.Key.Key_F5, Qt.KeyboardModifier.NoModifier),
            ("Esc", Qt.Key.Key_Escape, Qt.KeyboardModifier.NoModifier),
            ("Ctrl+A", Qt.Key.Key_A, C),
            ("Del", Qt.Key.Key_Delete, Qt.KeyboardModifier.NoModifier),
            ("F2", Qt.Key.Key_F2, Qt.KeyboardModifier.NoModifier),
            ("Ctrl+C", Qt.Key.Key_C, C),
            ("Ctrl+Tab", Qt.Key.Key_Tab, C),
        ]
        name, key, mods = self.rng.choice(keys)
        target = self.app.focusWidget() or self.win
        QTest.keyClick(target, key, mods)
        return f"key {name} on {type(target).__name__}"

    def tab(self) -> str:
        if self.win.showing_welcome():
            return "tab (welcome page)"
        i = self.rng.randrange(self.win.tabs.count())
        self.win.tabs.setCurrentIndex(i)
        return f"tab {self.win.tabs.tabText(i)}"

    def type_text(self) -> str:
        from PySide6.QtWidgets import QLineEdit

        edits = self.visible(QLineEdit)
        if not edits:
            return "type (no line edit)"
        return self.type_into(self.rng.choice(edits), self.rng.choice(WORDS))

    def type_into(self, edit, word: str) -> str:
        """``word`` typed into ``edit``; Enter in its suggestions popup when
        one opens (after a few Down keys), else in the line edit."""
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        self.escaping = False  # the suggestions popup stays open
        try:
            self.win.activateWindow()
            edit.setFocus()
            edit.selectAll()
            _type(edit, word)
            completer = edit.completer()
            popup = completer.popup() if completer is not None else None
            shown = False
            if popup is not None:
                # up to 2 s for it (a busy machine shows it late), none when the
                # completer has the text and no suggestion for it: no popup comes
                deadline = time.monotonic() + 2.0
                while (
                    time.monotonic() < deadline
                    and not popup.isVisible()
                    and not _nothing_to_suggest(completer, edit)
                ):
                    self.spin(10)
                shown = popup.isVisible()
            if shown:
                self.kinds["enter in a suggestions popup"] += 1
                for _ in range(self.rng.randrange(3)):
                    QTest.keyClick(popup, Qt.Key.Key_Down)
                QTest.keyClick(popup, Qt.Key.Key_Return)
            elif edit.isVisible():
                QTest.keyClick(edit, Qt.Key.Key_Return)
            self.spin(20)
        finally:
            self.escaping = True
        return f"type {word!r} in {edit.objectName() or edit.placeholderText()[:30]!r}" + (
            " (popup)" if shown else ""
        )

    def tables(self) -> list:
        from PySide6.QtWidgets import QTableView

        return self.visible(QTableView)

    def sort(self) -> str:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        tables = self.tables()
        if not tables:
            return "sort (no table)"
        view = self.rng.choice(tables)
        header = view.horizontalHeader()
        n = header.count()
        if not n or not header.isVisible():
            return "sort (no header)"
        col = self.rng.randrange(n)
        x = header.sectionViewportPosition(col) + 3
        QTest.mouseClick(header.viewport(), Qt.MouseButton.LeftButton, pos=_point(x, 5))
        return f"sort column {col} of {type(view).__name__}"

    def select_and_delete(self) -> str:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest

        tables = self.tables()
        if not tables:
            return "select (no table)"
        view = self.rng.choice(tables)
        rows = view.model().rowCount() if view.model() is not None else 0
        if not rows:
            return "select (empty table)"
        view.setFocus()
        if self.rng.random() < 0.3:
            QTest.keyClick(view, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
            what = "all rows"
        else:
            view.clearSelection()
            picked = self.rng.sample(range(rows), k=min(rows, self.rng.randint(1, 3)))
            for r in picked:
                view.selectionModel().select(
                    view.model().index(r, 0),
                    view.selectionModel().SelectionFlag.Select
                    | view.selectionModel().SelectionFlag.Rows,
                )
            what = f"rows {sorted(picked)}"
        QTest.keyClick(view, Qt.Key.Key_Delete)
        return f"select {what} of {type(view).__name__} and Del"

    def click_button(self) -> str:
        from PySide6.QtCore import Qt
        from PySide6.QtTest import QTest
        from PySide6.QtWidgets import QAbstractButton

        buttons = [b for b in self.visible(QAbstractButton) if b.width() > 0]
        if not buttons:
            return "click (no button)"
        b = self.rng.choice(buttons)
        text = b.text() or b.toolTip()[:30] or type(b).__name__
        QTest.mouseClick(b, Qt.MouseButton.LeftButton)
        return f"click {text!r}"

    def combo(self) -> str:
        from PySide6.QtWidgets import QComboBox

        combos = [c for c in self.visible(QComboBox) if c.count()]
        if not combos:
            return "combo (none)"
        c = self.rng.choice(combos)
        i = self.rng.randrange(c.count())
        c.setCurrentIndex(i)
        return f"combo {c.objectName() or type(c).__name__} -> {c.itemText(i)!r}"

    def resize(self) -> str:
        if self.win.size() == self.size:
            self.win.resize(1280, 720)
            return "resize 1280x720"
        self.win.resize(self.size)
        return f"resize back {self.size.width()}x{self.size.height()}"

    def options(self) -> str:
        """Other scoring options, as OK in Scoring > Options sets them
        (undoable, every run scored at once): then every run must end
        scored with them."""
        c = self.win.controller
        if c.assessment is None:
            return "options (nothing open)"
        new = replace(
            c.options,
            profile=self.rng.choice(DEMO_PROFILES),
            average=self.rng.choice(("micro", "macro")),
            ranks=self.rng.choice(((5, 10, 25, 50, 100), (1, 10), (7,))),
        )
        c.change_options(new)
        what = f"options {new.profile} {new.average} {new.ranks}"
        if self.rng.random() < 0.5:  # a run added at once (the assessment may be read again)
            what += ", " + self._add()
        return what + self.settle(None)

    def add_run(self) -> str:
        """A run of the demo added, as File > Add runs adds it: then it must
        end scored with the options in force."""
        if self.win.controller.assessment is None:
            return "add run (nothing open)"
        what = self._add()
        return what + self.settle(f"monkey {self.added}")

    def _add(self) -> str:
        from shrec_eval.contest import RunSource
        from shrec_eval.resources import demo_manifest

        self.added += 1
        name = f"monkey {self.added}"
        path = Path(demo_manifest()).parent / self.rng.choice(DEMO_RUNS)
        self.win.controller.add_runs([RunSource(str(path), name=name)])
        return f"add run {path.name} as {name!r}"

    def settle(self, name: str | None) -> str:
        """Time for the app to read and score (no F5); then the runs (every
        one, or the one named) must be scored with the options in force."""
        c = self.win.controller
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline and not (c.idle() and not c.opening()):
            self.spin(20)
        runs = [e for e in c.entries.values() if name is None or e.source.name == name]
        missed = [
            f"{e.name} ({'error: ' + e.error if e.error else 'not scored'})"
            if e.result is None
            else f"{e.name} (scored under {e.result.options.profile}, stale)"
            for e in runs
            if not c.is_current(e.result)
        ]
        if missed:
            self.misses.append(
                f"after {self.log[-1] if self.log else 'the start'} then "
                f"{'options' if name is None else 'add ' + name}, under "
                f"{c.current_options().profile}: not scored with the options in force: "
                + "; ".join(missed)
            )
        return f" ({len(runs)} scored)" if not missed else " (MISSED)"

    def wait(self) -> str:
        ms = self.rng.choice([0, 10, 50, 200, 500])
        self.spin(ms)
        return f"wait {ms} ms"

    ACTIONS = [
        ("menu", 6),
        ("shortcut", 3),
        ("tab", 3),
        ("type_text", 3),
        ("sort", 2),
        ("select_and_delete", 2),
        ("click_button", 2),
        ("combo", 2),
        ("resize", 1),
        ("wait", 2),
        ("options", 1),
        ("add_run", 1),
    ]

    def step(self, i: int) -> None:
        names = [n for n, _ in self.ACTIONS]
        weights = [w for _, w in self.ACTIONS]
        kind = self.rng.choices(names, weights)[0]
        self.kinds[kind] += 1
        if self.trail is not None:  # what is being done, should it crash
            self.trail.write(f"{i}: {kind}\n")
            self.trail.flush()
        self.log.append(f"{i}: {getattr(self, kind)()}")
        if self.trail is not None:
            self.trail.write(f"    {self.log[-1]}\n")
        self.spin(self.rng.choice([0, 5, 20]))


def _type(widget, text: str) -> None:
    """Key presses of ``text`` (QTest types ASCII only: the rest as key events with text)."""
    from PySide6.QtCore import QEvent, Qt
    from PySide6.QtGui import QKeyEvent
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    for ch in text:
        if ch.isascii():
            QTest.keyClicks(widget, ch)
            continue
        for kind in (QEvent.Type.KeyPress, QEvent.Type.KeyRelease):
            QApplication.sendEvent(
                widget, QKeyEvent(kind, Qt.Key.Key_unknown, Qt.KeyboardModifier.NoModifier, ch)
            )


def _nothing_to_suggest(completer, edit) -> bool:
    """Whether the completer has seen the line edit's text and holds no
    suggestion for it: then its popup stays hidden (Qt shows it, or hides
    it, while it handles the key that changed the text)."""
    return completer.completionPrefix() == edit.text() and completer.completionCount() == 0


def _point(x: int, y: int):
    from PySide6.QtCore import QPoint

    return QPoint(x, y)


def descendants(pid: int) -> list[int]:
    """Every process under ``pid`` (Linux /proc; elsewhere: none known)."""
    if not os.path.isdir("/proc"):
        return []
    children: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    st = fh.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if st[0] != "Z":
                children.setdefault(int(st[1]), []).append(int(d))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as fh:
            return fh.read().replace(b"\0", b" ").decode(errors="replace")[:120]
    except OSError:
        return ""


#: threads of the process that outlive a window by design: the row sort's
#: pool of the engine, started once per process
PROCESS_POOLS = ("rank_rows",)


def run(seed: int, n_actions: int, report: Path) -> int:
    errors: list[str] = []

    def hook(kind, value, tb) -> None:
        errors.append("".join(traceback.format_exception(kind, value, tb)))

    sys.excepthook = hook
    threading.excepthook = lambda a: errors.append(
        f"in thread {a.thread.name if a.thread else '?'}: "
        + "".join(traceback.format_exception(a.exc_type, a.exc_value, a.exc_traceback))
    )
    import shiboken6
    from PySide6.QtGui import QDesktopServices

    from shrec_gui.app import make_app, open_window, parse_args

    opened_urls: list[str] = []
    QDesktopServices.openUrl = lambda url: opened_urls.append(url.toString()) or True

    app = make_app()
    win, closer, autosave = open_window(parse_args(["--demo"]))
    monkey = Monkey(seed, app, win)
    monkey.trail = open(report.with_suffix(".log"), "w", encoding="utf-8")  # noqa: SIM115
    c = win.controller
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (
        len(c.entries) == 7 and c.idle() and all(e.result is not None for e in c.entries.values())
    ):
        monkey.spin(10)
    scored = len(c.entries) == 7
    helpers_seen: set[int] = set(descendants(os.getpid()))
    t0 = time.monotonic()
    # every menu action once, in the menus' order (then at random among the rest)
    for path, action in monkey.menu_actions():
        if not shiboken6.isValid(action):  # a menu rebuilt meanwhile (Recent)
            continue
        monkey.kinds["menu sweep"] += 1
        monkey.log.append(f"sweep: {path}" + ("" if action.isEnabled() else " (disabled)"))
        if monkey.trail is not None:
            monkey.trail.write(monkey.log[-1] + "\n")
            monkey.trail.flush()
        if action.isEnabled():
            action.trigger()
        monkey.spin(20)
    if win.showing_welcome():  # the sweep closed the contest: the demo again
        win.open_demo()
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and not (
        c.entries and c.idle() and all(e.result or e.error for e in c.entries.values())
    ):
        monkey.spin(10)
    # issue 31's H1 once for every seed, whatever the draws bring: "map" typed
    # into the Summary's column search, Enter in its suggestions popup
    if not win.showing_welcome():
        win.tabs.setCurrentWidget(win.summary)
        monkey.spin(20)
        monkey.log.append("H1: " + monkey.type_into(win.summary.find_column, "map"))
    for i in range(n_actions):
        try:
            monkey.step(i)
        except Exception:  # the monkey's own defect: said, and the app closed cleanly
            errors.append("in the monkey: " + traceback.format_exc())
            break
        if i % 20 == 0:
            helpers_seen |= set(descendants(os.getpid()))
    actions_s = time.monotonic() - t0
    errors.extend(monkey.misses)
    # settle, then close as Quit does (the question answered by the monkey: Cancel),
    # and at last without asking
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (c.idle() and not c.busy):
        monkey.spin(20)
    monkey.log.append("quit")
    quit_action = monkey.win_quit_action()
    quit_action.trigger()
    monkey.spin(100)
    monkey.escaping = False
    if win.isVisible():
        win.close()
    monkey.spin(100)
    closer.uninstall()
    autosave.finish()
    monkey.escaper.stop()
    helpers_seen |= set(descendants(os.getpid()))
    # what is left once the window has closed
    deadline = time.monotonic() + 15
    mine = {"thumbnails", "shrec-files", "shrec-autosave", "shrec-scoring"}

    def threads_left() -> list[str]:
        return [
            t.name
            for t in threading.enumerate()
            if t is not threading.main_thread()
            and not t.name.startswith(PROCESS_POOLS)
            and (not t.daemon or t.name in mine or not isinstance(t, threading._DummyThread))
        ]

    def helpers_left() -> list[str]:
        return [
            f"{p} {_command(p)}"
            for p in descendants(os.getpid())
            if "resource_tracker" not in _command(p)  # it ends with this process
        ]

    while time.monotonic() < deadline and (threads_left() or helpers_left()):
        monkey.spin(50)
    qthreads_running = [t.objectName() for t in [c.thread] if t is not None and not t.isFinished()]
    out = {
        "seed": seed,
        "scored": scored,
        "actions": n_actions,
        "actions_s": round(actions_s, 1),
        "kinds": dict(monkey.kinds),
        "dialogs": dict(monkey.dialogs),
        "errors": errors,
        "threads_left": threads_left() + qthreads_running,
        "helpers_left": helpers_left(),
        "helpers_seen": sorted(helpers_seen),
        "urls": opened_urls,
        "log": monkey.log[-60:],
    }
    report.write_text(json.dumps(out, indent=1), encoding="utf-8")
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(run(int(sys.argv[1]), int(sys.argv[2]), Path(sys.argv[3])))
