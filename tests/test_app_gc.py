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


def test_a_library_turning_collection_back_on_never_makes_it_run_by_itself(qapp):
    """dask's ``disable_gc`` (around its array slicing), made while collection
    was on (at dask.array's import), turns it back on when left, in whichever
    thread left it: even then no collection runs outside the GUI thread's
    timer (pyqtgraph's collector only turned it off)."""
    dask_utils = pytest.importorskip("dask.utils")
    parent = QObject()
    scoring = ScoringThread(parent)
    collections: list[int] = []

    def seen(phase, info):
        if phase == "start":
            collections.append(info["generation"])

    gc.enable()
    turned_on = dask_utils.disable_gc()  # as dask.array's import makes it
    gc.disable()
    gc.callbacks.append(seen)
    try:
        with turned_on:
            pass
        assert gc.isenabled()  # dask turned it on
        for _ in range(50_000):  # cyclic garbage: Python would collect it by now
            loop: list = []
            loop.append(loop)
        assert collections == []
    finally:
        gc.callbacks.remove(seen)
        gc.disable()
        scoring.shutdown()
