"""The warning banner over the tabs: a data check whose numbers depend on how
the files are read (the matrix order) gives the run's figure as read and in
the other reading, with a button that scores the runs in that reading
(undoable: Edit > Undo reads them back).  Its text speaks of the app's
controls, not of command-line options."""

from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton

from ..state.controller import MATRIX_ORDER_WORDS

#: runs named in the banner; the others counted
SHOWN_RUNS = 3

#: the banner's background, text and edge colours
BANNER_LIGHT = ("#fff3c4", "#3d2f00", "#e0b400")
BANNER_DARK = ("#4a3b00", "#fff3c4", "#8a6d00")

#: what each check is about, and the words of the other reading's button
TOPICS = {"matrix_order": "Matrix order"}


def other_readings(controller) -> list[tuple[str, object, list[tuple[str, object]]]]:
    """The checks of the runs scored that offer another reading: (code,
    the other reading, [(run name, its OtherReading)]), one per code."""
    found: dict = {}
    for e in controller.scored_entries():
        for w in e.result.warnings:
            if w.other is not None:
                found.setdefault(w.code, []).append((e.name, w.other))
    return [(code, runs[0][1], runs) for code, runs in found.items()]


def _figure(value) -> str:
    return "undefined" if value is None else f"{value:.4f}"


def _reading_words(setting: str, value) -> str:
    if setting == "matrix_order":
        return f"read {MATRIX_ORDER_WORDS[value]}"
    return f"with {setting.replace('_', ' ')} {value}"


class ReadingBanner(QFrame):
    """Hidden unless a scored run has a check with another reading."""

    def __init__(self, controller, parent=None) -> None:
        super().__init__(parent)
        self.controller = controller
        self.setObjectName("readingBanner")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.text = QLabel()
        self.text.setWordWrap(True)
        self.text.setTextFormat(Qt.TextFormat.RichText)
        self.apply_button = QPushButton()
        self.apply_button.clicked.connect(self.apply)
        lay = QHBoxLayout(self)
        lay.setContentsMargins(10, 6, 10, 6)
        lay.addWidget(self.text, 1)
        lay.addWidget(self.apply_button, 0, Qt.AlignmentFlag.AlignVCenter)
        self._other = None
        self.set_dark(False)
        self.setVisible(False)
        controller.changed.connect(self.refresh)

    def set_dark(self, dark: bool) -> None:
        bg, fg, edge = BANNER_DARK if dark else BANNER_LIGHT
        self.setStyleSheet(
            f"#readingBanner {{ background: {bg}; border: 1px solid {edge}; border-radius: 4px; }}"
            f"#readingBanner QLabel {{ color: {fg}; }}"
        )

    def refresh(self) -> None:
        found = other_readings(self.controller)
        if not found:
            self._other = None
            self.setVisible(False)
            return
        code, other, runs = found[0]  # one reading at a time (the matrix order today)
        self._other = other
        here = "as read"
        if other.setting == "matrix_order":
            here = _reading_words("matrix_order", "listing" if other.value == "id" else "id")
        there = _reading_words(other.setting, other.value)
        measure = other.measure.upper()
        figures = [(name, (o.here, o.there)) for name, o in runs]
        if all(o.nearest_other is not None for _, o in runs):
            # the query kept in its own list finds itself first either way
            measure += " of each query's nearest other item (it finds itself first either way)"
            figures = [(name, o.nearest_other) for name, o in runs]
        shown = "; ".join(
            f"<b>{escape(name)}</b> {_figure(a)} {here}, {_figure(b)} {there}"
            for name, (a, b) in figures[:SHOWN_RUNS]
        )
        if len(runs) > SHOWN_RUNS:
            shown += f"; and {len(runs) - SHOWN_RUNS} more runs (Data checks)"
        topic = TOPICS.get(code, code.replace("_", " ").capitalize())
        text = (
            f"⚠ <b>{topic}:</b> the ids are 0..N-1 listed out of order, so a matrix may be laid "
            f"out in listing order or by id, and the two readings give other numbers. "
            f"{measure}: {shown}."
            if code == "matrix_order"
            else f"⚠ <b>{topic}:</b> {measure}: {shown}."
        )
        if other.fixed_by is not None:
            text += (
                f" The {escape(other.fixed_by)} profile reads so: another profile "
                "(Scoring &gt; Options) reads otherwise."
            )
            self.apply_button.setVisible(False)
        else:
            text += " Scoring &gt; Options changes it too; Edit &gt; Undo reads them back."
            self.apply_button.setText(f"Score the runs {there}")
            self.apply_button.setToolTip(
                f"Read the files {there.removeprefix('read ')} and score every run again"
            )
            self.apply_button.setVisible(True)
        self.text.setText(text)
        self.setVisible(True)

    def apply(self) -> None:
        """The other reading, for every run (undoable)."""
        if self._other is not None:
            self.controller.apply_reading(self._other)
