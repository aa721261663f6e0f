"""The app's file tasks (shrec_gui/workers/file_tasks.py): a task runs off
the GUI thread and answers on it; ``run`` gives the task's value, or raises
its exception, where it was called; ``wait`` and ``busy`` follow the tasks."""

import threading
import time

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from shrec_gui.workers.file_tasks import FileTasks  # noqa: E402


def on_gui_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def test_run_gives_the_value_of_a_task_run_on_another_thread(qapp):
    tasks = FileTasks()
    assert tasks.run(on_gui_thread) is False
    assert tasks.run(lambda a, b: a + b, 2, 3) == 5
    assert tasks.run(lambda: None) is None
    tasks.threaded = False  # the headless export: in the caller's thread
    assert tasks.run(on_gui_thread) is True


def test_run_raises_the_tasks_own_exception_where_it_was_called(qapp, tmp_path):
    tasks = FileTasks()
    with pytest.raises(FileNotFoundError) as caught:
        tasks.run(open, tmp_path / "missing" / "x.csv", "w")
    assert caught.value.filename == str(tmp_path / "missing" / "x.csv")
    with pytest.raises(ValueError, match="bad value 7"):
        tasks.run(lambda v: (_ for _ in ()).throw(ValueError(f"bad value {v}")), 7)
    assert tasks.run(lambda: "after a failure") == "after a failure"


def test_busy_and_wait_follow_the_tasks_started(qapp):
    tasks = FileTasks()
    answers = []
    tasks.done.connect(lambda request, value: answers.append((request, value)))
    started = tasks.start(lambda: time.sleep(0.3) or "slept")
    assert tasks.busy()
    tasks.wait(5)
    assert not tasks.busy()
    deadline = time.monotonic() + 5
    while not answers and time.monotonic() < deadline:
        qapp.processEvents()
    assert answers == [(started, "slept")]
