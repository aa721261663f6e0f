"""Python's cyclic garbage collector must not free Qt objects in the worker
thread (a deadlock of Qt's object lock against the GIL, seen in the GUI
tests): once the scoring thread exists, collection runs on a GUI-thread timer."""

import gc

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from PySide6.QtCore import QObject  # noqa: E402

from shrec_gui.workers.scoring import ScoringThread  # noqa: E402


def test_garbage_is_collected_on_the_gui_thread(qapp):
    parent = QObject()
    scoring = ScoringThread(parent)
    try:
        assert not gc.isenabled()
        assert qapp._gui_thread_gc.timer.isActive()
        assert qapp._gui_thread_gc.timer.thread() is qapp.thread()
    finally:
        scoring.shutdown()
