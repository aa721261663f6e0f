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
    qapp._gui_thread_gc = None  # as an app that has not scored yet
    gc.enable()
    parent = QObject()
    scoring = ScoringThread(parent)
    try:
        assert not gc.isenabled()
        assert qapp._gui_thread_gc.timer.isActive()
        assert qapp._gui_thread_gc.timer.thread() is qapp.thread()
    finally:
        scoring.shutdown()


def test_collection_turned_back_on_by_a_library_is_turned_off_again(qapp, qtbot):
    """dask's ``disable_gc`` (around its array slicing) turns automatic
    collection back on when it leaves, if it was on when dask was imported:
    the GUI-thread collector turns it off again at its next tick."""
    parent = QObject()
    scoring = ScoringThread(parent)
    try:
        gc.enable()
        qtbot.waitUntil(lambda: not gc.isenabled(), timeout=3000)
    finally:
        scoring.shutdown()


def test_dasks_array_slicing_leaves_collection_off_in_the_app(qapp, qtbot):
    dask_array = pytest.importorskip("dask.array")
    import numpy as np

    parent = QObject()
    scoring = ScoringThread(parent)
    try:
        assert not gc.isenabled()
        dask_array.from_array(np.arange(10), chunks=5)[2:7].compute()
        qtbot.waitUntil(lambda: not gc.isenabled(), timeout=3000)
    finally:
        scoring.shutdown()
