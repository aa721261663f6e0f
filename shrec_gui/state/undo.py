"""Undo and redo of what changes a contest: runs added and removed, a run
renamed or read with another format, the scoring options (the profile among
them), the shapes folders.

Qt's :class:`~PySide6.QtGui.QUndoStack` keeps the history (limit, clean
state, the Edit menu's texts); each command holds the contest's state before
and after the edit (:class:`ContestState`: the runs' sources with their names
and colours, the options, the shapes folders), not run keys: keys change when
the assessment is read again (the trec_eval profile reads ids as written),
states do not.  Undo and redo bring the contest to a state: runs that stay
keep their results; runs taken out are kept aside with their results and
come back as they were (nothing read or scored again); runs never scored are
read; new options score every run again (read from memory); another matrix
order reads the assessment again.

Opening or closing a contest starts a new history.  Edits are recorded by
the controller's own methods (``with history.edit("Remove 2 runs"): ...``),
so every path that edits (menus, keyboard, drag and drop, tests) is undoable.
"""

from __future__ import annotations

import functools
from contextlib import contextmanager
from dataclasses import dataclass, replace

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QUndoCommand, QUndoStack

from .run_entry import RunEntry

#: the edits kept
UNDO_LIMIT = 100


@dataclass(frozen=True)
class ContestState:
    """What an edit changes (another assessment never: a new one is a new
    history; how it is read, its matrix order, may be)."""

    runs: tuple  # RunSource with the colour shown and the name given (None: its own)
    options: object  # EvalOptions
    shapes: tuple  # (ShapesSource | None, query ShapesSource | None)
    assessment: object = None  # AssessmentSource: its matrix order


def identity(source):
    """What makes a run the same run: where it is and how it is read (not
    the name and colour it is shown with)."""
    return replace(source, name=None, colour=None)


class _Edit(QUndoCommand):
    def __init__(self, history: UndoHistory, text: str, before, after) -> None:
        super().__init__(text)
        self.history = history
        self.before, self.after = before, after
        self._done = True  # pushed after the edit was made

    def redo(self) -> None:
        if self._done:
            self._done = False
            return
        self.history.apply(self.after)

    def undo(self) -> None:
        self.history.apply(self.before)


class UndoHistory(QObject):
    """The undo history of one :class:`~shrec_gui.state.controller.ContestController`."""

    applied = Signal(str)  # what was undone or redone, for the status bar

    def __init__(self, controller) -> None:
        super().__init__(controller)
        self.c = controller
        self.stack = QUndoStack(self)
        self.stack.setUndoLimit(UNDO_LIMIT)
        self._applying = False
        self._depth = 0
        self._aside: dict = {}  # identity -> runs taken out (RunEntry), with their results

    # -- recording ----------------------------------------------------------------------
    def state(self) -> ContestState:
        c = self.c
        return ContestState(
            tuple(c.run_sources()),
            c.options,
            (c.shapes.source, c.shapes.query_source),
            c.assessment_source,
        )

    @contextmanager
    def edit(self, text: str):
        """Record what the body changes as one undoable edit named ``text``
        (nothing open, nothing changed, or undo itself at work: nothing
        recorded; nested edits are one)."""
        if self._applying or self._depth or self.c.assessment_source is None:
            yield
            return
        before = self.state()
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
        after = self.state()
        if after != before:
            self.stack.push(_Edit(self, text, before, after))

    def clear(self) -> None:
        """A new contest: a new history (the runs kept aside go)."""
        self.stack.clear()
        self._aside.clear()

    def put_aside(self, entries) -> None:
        """Runs taken out (RunEntry, with their results), for an undo."""
        for e in entries:
            self._aside.setdefault(identity(e.source), []).append(e)

    def forget_runs_aside(self) -> None:
        """The assessment was read again: runs kept aside were read for the
        old reading; coming back they are read again."""
        self._aside.clear()

    # -- undo and redo -------------------------------------------------------------------
    def blocked(self) -> str | None:
        """Why undo and redo must wait (an assessment being read), or None."""
        if self.c.opening():
            return "The assessment is being read: undo and redo once it has opened."
        return None

    def undo(self) -> None:
        self._step(self.stack.undo, self.stack.undoText(), "Undid")

    def redo(self) -> None:
        self._step(self.stack.redo, self.stack.redoText(), "Redid")

    def _step(self, move, text: str, verb: str) -> None:
        why = self.blocked()
        if why is not None:
            self.c.status.emit(why)
            return
        if not text:
            return
        move()
        self.applied.emit(f"{verb}: {text}.")

    def apply(self, target: ContestState) -> None:
        """Bring the contest to ``target`` (see the module's doc)."""
        c = self.c
        self._applying = True
        try:
            rescore = target.options != c.options
            if rescore:
                c.set_options(target.options)
            if target.assessment is not None and target.assessment != c.assessment_source:
                c.assessment_source = target.assessment  # read again by score()
                rescore = True
            if target.shapes != (c.shapes.source, c.shapes.query_source):
                c.shapes.set_sources(*target.shapes)
            to_score = self._apply_runs(target.runs)
            if rescore:
                c.score()
            elif to_score:
                c.score_entries(to_score)
            c.changed.emit()
        finally:
            self._applying = False

    def _apply_runs(self, runs) -> list:
        """The runs of ``runs`` in their order: those open kept, those kept
        aside back, others new; those open and not wanted go aside.  Returns
        the entries to read or score again."""

        c = self.c
        open_now: dict = {}
        for e in c.entries.values():
            open_now.setdefault(identity(e.source), []).append(e)
        entries, to_score = {}, []
        for s in runs:
            key = identity(s)
            if open_now.get(key):
                e = open_now[key].pop(0)
            elif self._aside.get(key):
                e = self._aside[key].pop()
                if e.run is not None:
                    c.scoring.requestRemember.emit(e.key, e.run)
                if e.result is None and e.error is None or not c.is_current(e.result):
                    to_score.append(e)
            else:
                e = RunEntry(c.new_key(), s, s.colour)
                to_score.append(e)
            e.source = replace(e.source, name=s.name)
            e.colour = s.colour
            entries[e.key] = e
        for left in open_now.values():
            self.put_aside(left)
            for e in left:
                c.scoring.requestForget.emit(e.key)
        c.entries = entries
        c.names_changed()
        return to_score


def undoable(text):
    """A method of the controller whose changes are one undoable edit named
    ``text`` (a string, or a function of the method's arguments)."""

    def wrap(method):
        @functools.wraps(method)
        def edited(self, *args, **kwargs):
            name = text(self, *args, **kwargs) if callable(text) else text
            with self.history.edit(name):
                return method(self, *args, **kwargs)

        return edited

    return wrap
