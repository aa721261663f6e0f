"""Autosave of the contest open, and its recovery after a crash (as Spyder
keeps unsaved editors: a copy in the user's data folder while there are
unsaved changes, offered back at the next start when the app did not close).

Each running app has a folder ``<data>/autosave/<id>/`` holding

* ``lock``: a :class:`~PySide6.QtCore.QLockFile` held while the app runs (a
  lock whose process is gone is stale: Qt compares the process id, host and
  application name);
* ``session.json``: the contest as File > Save session writes it (the runs,
  names, colours, options, shapes folders, the window's view), written a
  moment after each change while the contest differs from its session
  (nothing unsaved: no file);
* ``about.json``: the session file it belongs to (if any), its name, what
  changed and when.

Closing the app (the unsaved-changes question answered) removes the folder.
A crash, SIGKILL, a second Ctrl-C or a SIGTERM while the question is open
leaves it: at the next start the folders whose lock is free are offered back
(Recover, Discard, or Decide later).  A recovered contest opens as the
session it was, with its changes unsaved (Ctrl+S writes that session); the
copy is opened where it is and goes only once its contest has opened (then
this app's own copy holds the work, until it is saved or discarded).  A copy
that cannot be opened (damaged, its assessment moved) is kept and offered
again at the next start.

``<data>`` is Qt's AppDataLocation (``~/.local/share/shrec-eval/shrec-gui``
on Linux), or ``$SHREC_GUI_DATA_DIR`` (tests).  The file is written off the
GUI thread (it is fsynced); its folder is made on the GUI thread (the
user's data folder is local).
"""

from __future__ import annotations

import json
import os
import shutil
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QLockFile, QObject, QStandardPaths, QTimer, Signal
from PySide6.QtWidgets import QMessageBox, QWidget
from shrec_eval.errors import ShrecEvalError
from shrec_eval.outputs.atomic import write_text

from ..workers.file_tasks import FileTasks
from . import view_state

DATA_ENV = "SHREC_GUI_DATA_DIR"
SESSION, ABOUT, LOCK = "session.json", "about.json", "lock"
#: after a change, the copy is written this much later (changes in a row: once)
DELAY_MS = 1500
#: and the view (tab, columns, sorting) is looked at this often
VIEW_CHECK_MS = 30000


def data_folder() -> Path:
    """The app's folder in the user's data (``$SHREC_GUI_DATA_DIR`` first)."""
    env = os.environ.get(DATA_ENV)
    if env:
        return Path(env)
    loc = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(loc or Path.home() / ".shrec-gui")


def autosave_root() -> Path:
    return data_folder() / "autosave"


def _lock(folder: Path) -> QLockFile:
    lock = QLockFile(str(folder / LOCK))
    lock.setStaleLockTime(0)  # never stale by age: only when its process is gone
    return lock


class Recoverable:
    """The autosave of an app that did not close (its lock held by us while asked)."""

    def __init__(self, folder: Path, lock: QLockFile) -> None:
        self.folder = folder
        self.lock = lock
        try:
            self.about = json.loads((folder / ABOUT).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            self.about = {}
        if not isinstance(self.about, dict):
            self.about = {}
        self.time = (folder / SESSION).stat().st_mtime

    @property
    def session(self) -> str | None:
        s = self.about.get("session")
        return s if isinstance(s, str) and s else None

    @property
    def name(self) -> str:
        n = self.about.get("name")
        return n if isinstance(n, str) and n else "recovered session"

    def describe(self) -> str:
        when = time.strftime("%d %B %Y at %H:%M", time.localtime(self.time))
        what = (
            f"the session {Path(self.session).name}" if self.session else f"the contest {self.name}"
        )
        changes = [c for c in self.about.get("changes", []) if isinstance(c, str)]
        told = f" (unsaved: {'; '.join(changes)})" if changes else ""
        return f"SHREC evaluation did not close normally. On {when} it kept a copy of {what}{told}."

    def discard(self) -> None:
        self.lock.unlock()
        shutil.rmtree(self.folder, ignore_errors=True)

    def later(self) -> None:
        self.lock.unlock()


def recoverable(root: Path | None = None, *, mine: Path | None = None) -> list[Recoverable]:
    """The autosaves of apps that are not running, newest first (their
    locks now held here); folders of such apps with nothing to recover are
    removed."""
    root = autosave_root() if root is None else root
    found = []
    try:
        folders = [p for p in root.iterdir() if p.is_dir() and p != mine]
    except OSError:
        return []
    for folder in folders:
        lock = _lock(folder)
        if not lock.tryLock(0):  # its app is running
            continue
        if (folder / SESSION).is_file():
            found.append(Recoverable(folder, lock))
        else:
            lock.unlock()
            shutil.rmtree(folder, ignore_errors=True)
    return sorted(found, key=lambda r: r.time, reverse=True)


if TYPE_CHECKING:  # the type only: the controller holds no autosave
    from .controller import ContestController


@dataclass(frozen=True)
class AutosaveHost:
    """What the autosave needs of its window, and nothing more: the parent
    of its question, the contest, a line in the status bar, the view state a
    session keeps, and the contest's name (read, and set when a copy is
    recovered)."""

    parent: QWidget
    controller: ContestController
    say: Callable[[str], None]
    view: Callable[[], dict]
    contest_name: Callable[[], str | None]
    named: Callable[[str], None]

    @classmethod
    def of(cls, window) -> AutosaveHost:
        """The host a main window gives: its status line, view state and name."""
        return cls(
            parent=window,
            controller=window.controller,
            say=lambda text: window.status_label.setText(text),
            view=lambda: view_state.capture(window),
            contest_name=lambda: window.contest_name,
            named=lambda name: setattr(window, "contest_name", name),
        )


class Autosave(QObject):
    """The autosave of one main window, through its :class:`AutosaveHost`
    (see the module's doc)."""

    written = Signal(str)  # "" or why the copy could not be written

    def __init__(self, host: AutosaveHost, root: Path | None = None) -> None:
        super().__init__(host.parent)
        self.host = host
        self.root = autosave_root() if root is None else root
        self.folder = self.root / f"{os.getpid()}-{uuid.uuid4().hex[:8]}"
        self.error = ""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:  # no data folder (read-only home...): no autosave, said
            self.error = f"cannot make {self.folder}: {exc.strerror or exc}"
            host.say(f"No autosave: {self.error}")
        self.lock = _lock(self.folder)
        self.enabled = not self.error and self.lock.tryLock(0)
        self._last: str | None = None  # the text last written (None: no file)
        self._recovering: Recoverable | None = None  # a copy being opened (its lock held)
        #: the copy is written by a file task (the app's file thread), one at a time
        self.tasks = FileTasks(self)
        self.tasks.done.connect(self._task_done)
        self._again = False
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(DELAY_MS)
        self._timer.timeout.connect(self.save)
        self._view_timer = QTimer(self)
        self._view_timer.setInterval(VIEW_CHECK_MS)
        self._view_timer.timeout.connect(self.save)
        self._view_timer.start()
        c = host.controller
        for signal in (
            c.changed,
            c.optionsChanged,
            c.sessionOpened,
            c.closed,
            c.fileUsed,
            c.shapes.sourcesChanged,
            c.history.stack.indexChanged,
        ):
            signal.connect(self.soon)
        self.written.connect(self._on_written)

    # -- writing ----------------------------------------------------------------------------
    def soon(self, *_) -> None:
        """A change: the copy in a moment (one write for changes in a row)."""
        self._timer.start()

    def _texts(self) -> tuple[str, str] | None:
        """(session, about) as they would be written; None: nothing unsaved."""
        c, name = self.host.controller, self.host.contest_name()
        if not c.unsaved():
            return None
        contest = c.contest(name or "", view=self.host.view())
        base = self.folder.resolve()
        session = json.dumps(contest.to_dict(base), indent=2, ensure_ascii=False) + "\n"
        about = {
            "session": c.session_path,
            "name": name or (Path(c.session_path).stem if c.session_path else contest.name),
            "changes": c.unsaved_changes(),
            "pid": os.getpid(),
        }
        return session, json.dumps(about, indent=2, ensure_ascii=False) + "\n"

    def save(self) -> None:
        """Write the copy now (off this thread) if it changed; remove it when
        nothing is unsaved."""
        self._timer.stop()
        if not self.enabled:
            return
        if self.tasks.busy():
            self._again = True  # once this write is done
            return
        texts = self._texts()
        key = None if texts is None else texts[0]
        if key == self._last:
            return
        self._last = key
        self.tasks.start(self._write, texts)

    def _write(self, texts) -> str:
        """Write (or remove) the copy; "" or why it could not be written."""
        try:
            if texts is None:
                for name in (SESSION, ABOUT):
                    try:
                        os.unlink(self.folder / name)
                    except FileNotFoundError:
                        pass
            else:
                self.folder.mkdir(parents=True, exist_ok=True)
                write_text(self.folder / ABOUT, texts[1])
                write_text(self.folder / SESSION, texts[0])
            error = ""
        except (OSError, ShrecEvalError) as exc:
            error = str(exc)
        return error

    def _task_done(self, _request: int, error: str) -> None:
        self.written.emit(error)

    def _on_written(self, error: str) -> None:
        if error and error != self.error:
            self.host.say(f"The autosave could not be written: {error}")
        self.error = error
        if self._again:
            self._again = False
            self.save()

    def wait(self, timeout: float = 10.0) -> None:
        """Until the copy being written is written."""
        self.tasks.wait(timeout)

    def flush(self) -> None:
        """Write the copy now and wait for it (a forced close: kept for the next start)."""
        self.wait()
        self._again = False
        self.save()
        self.wait()

    def finish(self, *, keep: bool = False) -> None:
        """The app ends: the copy goes (the user answered the unsaved-changes
        question), or (``keep``: closed without asking) is brought up to date
        and kept, to be offered at the next start."""
        self._timer.stop()
        self._view_timer.stop()
        if self._recovering is not None:  # not opened yet: kept for the next start
            self._recovering.later()
            self._recovering = None
        if not self.enabled:
            return
        if keep:
            self.flush()
            self.lock.unlock()
            if not (self.folder / SESSION).exists():
                shutil.rmtree(self.folder, ignore_errors=True)
            return
        self.wait()
        self.lock.unlock()
        shutil.rmtree(self.folder, ignore_errors=True)

    # -- recovery ---------------------------------------------------------------------------
    def offer_recovery(self, ask=None) -> bool:
        """Offer the autosaves of apps that did not close, newest first; one
        recovered opens in the window.  ``ask(Recoverable)`` answers
        "recover", "discard" or "later" (default: a question box).  Whether
        one was recovered."""
        ask = ask or self._ask
        if not self.enabled:
            return False
        for r in recoverable(self.root, mine=self.folder):
            answer = ask(r)
            if answer == "recover":
                self._recover(r)
                # the others wait for the next start: one contest per window
                for other in recoverable(self.root, mine=self.folder):
                    other.later()
                return True
            if answer == "discard":
                r.discard()
            else:
                r.later()
        return False

    def _recover(self, r: Recoverable) -> None:
        """Open the copy where it is, its folder locked by this app meanwhile;
        once its contest has opened, it is this app's unsaved work (this
        app's own copy written, then the old one goes: kept while unsaved,
        gone once saved or discarded with the unsaved-changes question).  A
        copy that cannot be opened (damaged, its files moved) stays, for the
        next start."""
        self._recovering = r
        c = self.host.controller
        c.recoveryEnded.connect(self._recovery_ended)
        c.recover(str(r.folder / SESSION), r.session, r.name)

    def _recovery_ended(self, why: str) -> None:
        r, self._recovering = self._recovering, None
        self.host.controller.recoveryEnded.disconnect(self._recovery_ended)
        if r is None:
            return
        if why:  # not opened: kept, offered again at the next start
            r.later()
            return
        self.host.named(r.name)
        self.flush()  # this app's copy of the work recovered, before the old one goes
        if (self.folder / SESSION).is_file() and not self.error:
            r.discard()
        else:
            r.later()

    def _ask(self, r: Recoverable) -> str:
        box = QMessageBox(self.host.parent)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle("Recover unsaved work")
        box.setText(r.describe() + " Recover it?")
        box.setInformativeText(
            "Recover opens it with its changes unsaved (Ctrl+S saves them; a copy that cannot "
            "be opened is kept for the next start); Discard deletes the copy; Decide later asks "
            "again at the next start."
        )
        recover = box.addButton("&Recover", QMessageBox.ButtonRole.AcceptRole)
        discard = box.addButton("&Discard", QMessageBox.ButtonRole.DestructiveRole)
        later = box.addButton("Decide &later", QMessageBox.ButtonRole.RejectRole)
        box.setDefaultButton(recover)
        box.setEscapeButton(later)
        box.exec()
        clicked = box.clickedButton()
        return "recover" if clicked is recover else "discard" if clicked is discard else "later"
