"""The app takes feature vectors: a .npy and an .npz dropped beside their
assessment are told apart by content, scored in the worker as the command
line scores them, and shown in the Summary."""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from contest_files import write_cla  # noqa: E402
from guitools import wait_idle  # noqa: E402
from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QDropEvent  # noqa: E402
from shrec_eval import evaluate  # noqa: E402
from shrec_eval.reading.readers import load_assessment, load_run  # noqa: E402


def _drop(win, paths) -> None:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    win.dropEvent(
        QDropEvent(
            QPointF(10, 10),
            Qt.DropAction.CopyAction,
            mime,
            Qt.MouseButton.LeftButton,
            Qt.KeyboardModifier.NoModifier,
        )
    )


def test_dropped_features_are_scored(win, qtbot, tmp_path):
    rng = np.random.default_rng(4)
    n, classes = 120, 6
    labels = np.repeat(np.arange(classes), n // classes)
    cla = write_cla(
        tmp_path / "shapes.cla",
        [(f"c{c}", "0", [str(m) for m in np.flatnonzero(labels == c)]) for c in range(classes)],
    )
    f = (rng.standard_normal((classes, 16))[labels] + rng.standard_normal((n, 16))).astype("f4")
    np.save(tmp_path / "net_a.npy", f)
    perm = rng.permutation(n)
    np.savez(tmp_path / "net_b.npz", features=f[perm] * 2, ids=perm)
    _drop(win, [tmp_path / "net_a.npy", cla, tmp_path / "net_b.npz"])
    qtbot.waitUntil(lambda: win.controller.assessment is not None, timeout=10000)
    wait_idle(qtbot, win, 2)
    assert not win.errors
    a = load_assessment(cla)
    want = evaluate(a, load_run(tmp_path / "net_a.npy", a))
    for entry in win.controller.entries.values():
        # the same features (scaled: the same cosine ranking), the same numbers
        assert np.array_equal(entry.result.column("ap_trec_r"), want.column("ap_trec_r"))
        assert entry.result.run_format.startswith("embeddings (")
    names = sorted(e.name for e in win.controller.entries.values())
    assert names == ["net_a", "net_b"]
    win.grab().save(str(tmp_path / "embeddings_gui.png"))


def test_add_runs_asks_the_distance_and_top_k(win, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QDialog, QFileDialog
    from shrec_eval.contest import AssessmentSource

    from shrec_gui.window.dialogs import ReaderDialog

    labels = np.repeat(np.arange(4), 10)
    cla = write_cla(
        tmp_path / "s.cla",
        [(f"c{c}", "0", [str(m) for m in np.flatnonzero(labels == c)]) for c in range(4)],
    )
    f = np.random.default_rng(0).standard_normal((40, 8)).astype("f4")
    np.save(tmp_path / "net.npy", f)
    win.controller.open_assessment(AssessmentSource(cla))
    qtbot.waitUntil(lambda: win.controller.assessment is not None, timeout=10000)
    monkeypatch.setattr(
        QFileDialog, "getOpenFileNames", lambda *a, **k: ([str(tmp_path / "net.npy")], "")
    )

    def fill(self):
        assert self.kind == "embeddings"
        assert self.values() == {"metric": "cosine", "top_k": None}
        self.distance.setCurrentIndex(self.distance.findData("dot"))
        self.top_k.setValue(5)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(ReaderDialog, "exec", fill)
    win.dialogs.add_runs_dialog()
    wait_idle(qtbot, win, 1)
    (entry,) = win.controller.entries.values()
    assert (entry.source.metric, entry.source.top_k) == ("dot", 5)
    assert entry.result.run_format.endswith("dot distance), first 5")
    a = load_assessment(cla)
    want = evaluate(a, load_run(tmp_path / "net.npy", a, metric="dot", top_k=5))
    assert np.array_equal(entry.result.values, want.values, equal_nan=True)


def test_features_truncated_while_scored_are_an_error_and_the_app_keeps_running(
    win, qtbot, tmp_path, monkeypatch
):
    """A feature file truncated between its reading and its scoring (f03):
    the run's error names the file (the app scores in its own process: a
    mapping's SIGBUS would end it), the other run's results stay."""
    from shrec_eval.kernels import distances

    labels = np.repeat(np.arange(4), 10)
    cla = write_cla(
        tmp_path / "s.cla",
        [(f"c{c}", "0", [str(m) for m in np.flatnonzero(labels == c)]) for c in range(4)],
    )
    rng = np.random.default_rng(2)
    np.save(tmp_path / "kept.npy", rng.standard_normal((40, 256)).astype("f4"))
    np.save(tmp_path / "cut.npy", rng.standard_normal((40, 256)).astype("f4"))
    _drop(win, [cla, tmp_path / "kept.npy"])
    qtbot.waitUntil(lambda: win.controller.assessment is not None, timeout=10000)
    wait_idle(qtbot, win, 1)
    kept = next(iter(win.controller.entries.values()))
    before = kept.result.column("nn")
    real = distances.Distances.__init__

    def init(self, *args, **kwargs):  # read and checked; then cut short
        real(self, *args, **kwargs)
        if self.path.endswith("cut.npy"):
            os.truncate(self.path, 5000)

    monkeypatch.setattr(distances.Distances, "__init__", init)
    _drop(win, [tmp_path / "cut.npy"])
    qtbot.waitUntil(lambda: bool(win.errors), timeout=10000)
    wait_idle(qtbot, win)
    assert "cut.npy: the file ended after 5,000 bytes while it was read" in win.errors[-1]
    assert "truncated or rewritten while it was scored" in win.errors[-1]
    failed = [e.name for e in win.controller.entries.values() if e.error is not None]
    assert failed == ["cut"]  # named as the command line names it (no extension)
    assert np.array_equal(kept.result.column("nn"), before)
    assert win.isVisible()
