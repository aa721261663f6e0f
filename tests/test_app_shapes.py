"""Shapes in the app: the demo session's shapes folder, the Ranked list tab's
thumbnail strips (the query, then each run's first K results in rank order,
framed by grade, drawn off the GUI thread from the shared disk cache), K
adjustable, the 3D view's CPU turntable, File > Shapes… saved in sessions."""

import json
import shutil

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import retire, scored_demo_window, settled, wait_idle  # noqa: E402
from shrec_eval.contest import Contest  # noqa: E402
from shrec_eval.outputs.gallery import GRADE_COLOURS  # noqa: E402
from shrec_eval.resources import demo_manifest, resource_path  # noqa: E402
from shrec_eval.shapes.index import ShapesSource  # noqa: E402
from shrec_eval.shapes.thumbnails import thumbnail  # noqa: E402

from shrec_gui.widgets.shape_viewer import ShapeViewer, Turntable  # noqa: E402
from shrec_gui.workers.shapes import ITEM, THUMB_PX  # noqa: E402

DEMO = resource_path("demo")


@pytest.fixture(scope="module")
def demo(qapp):
    w = scored_demo_window(qapp)
    w.resize(1500, 950)
    yield w
    retire(w)


def _drawn(strips) -> bool:
    return all(t.pixmap is not None for _, tiles in strips.rows for t in tiles)


def _show_query(demo, qtbot, query: str):
    tab = demo.ranked
    demo.tabs.setCurrentWidget(tab)
    tab.select_query(query)
    qtbot.waitUntil(lambda: tab.lists is not None and tab.lists.query_id == query, timeout=10000)
    qtbot.waitUntil(lambda: bool(tab.thumbs.rows) and _drawn(tab.thumbs), timeout=60000)
    return tab


def test_strips_show_the_right_ids_in_rank_order(demo, qtbot):
    tab = _show_query(demo, qtbot, "q07")
    strips = tab.thumbs
    assert strips.isVisible() and strips.k.value() == 10
    rows = strips.shown_ids()
    assert [name for name, _ in rows] == [r.name for r in tab.lists.runs]
    for (name, ids), run in zip(rows, tab.lists.runs):
        assert ids[0] == "q07"  # the query first
        assert ids[1:] == list(run.items[:10])  # then the run's first 10, in rank order
        tiles = dict(strips.rows)[name]
        for rank, t in enumerate(tiles[1:], start=1):
            assert t.rank == rank
            g = int(run.gains[rank - 1])
            want = GRADE_COLOURS[0 if g == 0 else 2 if g >= 2 else 1]
            assert t.colour.getRgb()[:3] == want
            assert f"rank {rank}: {run.items[rank - 1]}, class " in t.toolTip()
    # the pictures are the thumbnails of those shapes (drawn by the worker, same renderer)
    index = ShapesSource(DEMO / "shapes").index()
    t = dict(strips.rows)[rows[0][0]][1]
    img = t.pixmap.toImage().convertToFormat(t.pixmap.toImage().Format.Format_RGBA8888)
    got = np.frombuffer(img.constBits(), np.uint8).reshape(img.height(), img.width(), 4)
    assert (got == thumbnail(index.files(t.item_id), THUMB_PX).rgba).all()


def test_k_is_adjustable_and_one_run_shows_one_strip(demo, qtbot):
    tab = _show_query(demo, qtbot, "q03")
    tab.thumbs.k.setValue(4)
    qtbot.waitUntil(lambda: _drawn(tab.thumbs), timeout=30000)
    assert all(len(ids) == 5 for _, ids in tab.thumbs.shown_ids())
    tab.run.setCurrentIndex(2)
    qtbot.waitUntil(lambda: len(tab.thumbs.rows) == 1, timeout=5000)
    name, ids = tab.thumbs.shown_ids()[0]
    assert name == tab.run.currentText() and ids[1:] == list(tab.shown_runs()[0].items[:4])
    tab.run.setCurrentIndex(0)
    tab.thumbs.k.setValue(10)


def test_screenshots_light_and_dark(demo, qtbot, tmp_path):
    tab = _show_query(demo, qtbot, "q07")
    for dark in (False, True):
        demo.set_dark(dark)
        qtbot.wait(50)
        path = tmp_path / f"ranked-{'dark' if dark else 'light'}.png"
        assert demo.grab().save(str(path)) and path.stat().st_size > 10000
    demo.set_dark(False)
    assert tab.thumbs.rows


def test_double_click_opens_the_turntable(demo, qtbot):
    tab = _show_query(demo, qtbot, "q07")
    tile = tab.thumbs.rows[0][1][1]
    viewer = ShapeViewer(demo.controller.shapes, ITEM, tile.item_id, demo)
    qtbot.addWidget(viewer)
    viewer.show()
    qtbot.waitUntil(lambda: isinstance(viewer.view, Turntable), timeout=10000)
    table = viewer.view
    qtbot.waitUntil(lambda: not table.pixmap().isNull(), timeout=10000)
    first = table.pixmap().toImage()
    table.turn(90, 0)  # a quarter turn: another silhouette
    qtbot.waitUntil(lambda: table.pixmap().toImage() != first, timeout=10000)
    assert "faces" in viewer.info.text()
    viewer.close()


def test_shapes_are_saved_in_sessions(win, qtbot, tmp_path):
    win.open_demo()
    wait_idle(qtbot, win, 7, timeout=60000)
    shapes = win.controller.shapes
    assert shapes.source == Contest.read(demo_manifest()).shapes
    assert not win.controller.unsaved()
    other = tmp_path / "other"
    other.mkdir()
    (other / "1.off").write_text("OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n")
    shapes.set_sources(shapes.source, ShapesSource(other, "{id}.off"))
    assert win.controller.unsaved()  # a change worth saving
    path = tmp_path / "s.json"
    assert win.controller.save_session(str(path))
    doc = json.loads(path.read_text())
    assert doc["query_shapes"] == {"path": "other", "layout": "{id}.off", "normalize_ids": True}
    c = Contest.read(path)
    assert c.shapes.path.resolve() == (DEMO / "shapes").resolve()
    win.controller.close()
    assert shapes.source is None and not win.ranked.thumbs.isVisible()
    win.controller.open_session(str(path))
    wait_idle(qtbot, win, 7, timeout=60000)
    assert shapes.query_source == ShapesSource(other, "{id}.off")


def test_per_query_shows_the_picked_querys_shape(demo, qtbot):
    pq = demo.per_query
    demo.tabs.setCurrentWidget(pq)
    qtbot.waitUntil(lambda: pq.proxy.rowCount() > 0, timeout=10000)
    panel = pq.shape
    for row in (0, 5):
        pq.view.setCurrentIndex(pq.proxy.index(row, 0))
        want = pq.model.query_ids[pq.proxy.mapToSource(pq.proxy.index(row, 0)).row()]
        assert panel.isVisible() and panel.query == want and panel.tile.item_id == want
        qtbot.waitUntil(lambda: panel.tile.pixmap is not None, timeout=30000)
        assert panel.caption.text() == f"Query {want}"


def test_per_class_shows_the_classs_examples(demo, qtbot):
    from shrec_eval.scoring.confusion import item_classes

    pc = demo.per_class
    demo.tabs.setCurrentWidget(pc)
    pc.select_class("tent")
    row = pc.class_shapes
    assert row.isVisible()
    a = demo.controller.assessment
    members = [i for i, c in zip(a.item_ids, item_classes(a)) if c == "tent"]
    # the class's query first (q07 is the demo's tent query), then its first members
    assert [(t.role, t.item_id) for t in row.tiles] == [("query", "q07")] + [
        ("item", i) for i in members[:7]
    ]
    qtbot.waitUntil(lambda: all(t.pixmap is not None for t in row.tiles), timeout=30000)


def test_a_shapes_folder_dropped_becomes_the_shapes_folder(win, qtbot):
    """Dropped with an assessment and a rank-list folder: the shapes folder
    is told apart (meshes), the others open as before."""
    from PySide6.QtCore import QMimeData, QPointF, Qt, QUrl
    from PySide6.QtGui import QDropEvent

    mime = QMimeData()
    mime.setUrls(
        [QUrl.fromLocalFile(str(DEMO / p)) for p in ("shapes", "target.cla", "lightfield-200")]
    )
    ev = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    win.dropEvent(ev)
    qtbot.waitUntil(lambda: win.controller.assessment is not None, timeout=10000)
    wait_idle(qtbot, win)
    assert win.controller.shapes.source == ShapesSource(str(DEMO / "shapes"))
    assert [e.name for e in win.controller.entries.values()] == ["lightfield-200"]


def test_a_mesh_asked_for_before_the_folder_is_indexed_still_comes(qtbot):
    from shrec_gui.workers.shapes import ShapesService

    service = ShapesService()
    try:
        with qtbot.waitSignal(service.meshReady, timeout=30000) as got:
            service.set_sources(ShapesSource(DEMO / "shapes"))
            service.request_mesh(ITEM, "300")  # before the worker has scanned the folder
        role, item, mesh = got.args
        assert (role, item) == (ITEM, "300") and not isinstance(mesh, str)
        v, f = mesh
        assert v.shape[1] == 3 and f.shape[1] == 3 and len(f) > 10
    finally:
        service.shutdown()


SCREEN = (1280, 720)


def _contest(folder, name, runs, shapes):
    d = {
        "version": 3,
        "name": name,
        "assessment": {
            "path": str(DEMO / "target.cla"),
            "queries": str(DEMO / "queries.cla"),
            "graded": True,
        },
        "runs": runs,
        "shapes": {"path": str(shapes), "layout": "flat"},
    }
    path = folder / f"{name}.json"
    path.write_text(json.dumps(d))
    return str(path)


def test_shapes_not_shown_are_not_carried_to_the_next_contest(win, qtbot, tmp_path):
    """M3: a contest whose lists reach items without a shape file says so;
    the next contest (on the same shapes folder, every one of its shapes
    there) does not repeat it."""
    shapes = tmp_path / "shapes"
    shapes.mkdir()
    for f in (DEMO / "shapes").iterdir():  # the queries, and the items 0-499
        if f.name.startswith("q") or int(f.stem[1:]) < 500:
            shutil.copyfile(f, shapes / f.name)  # copies: links out of the folder are refused
    every_item = _contest(
        tmp_path,
        "all-items",
        [{"name": "VoxelMoments", "format": "binary-matrix",
          "path": str(DEMO / "voxelmoments.matrix")}],
        shapes,
    )  # fmt: skip
    lines = []
    for q in range(1, 31):
        lines += [f"q{q:02d} Q0 {i} {r + 1} {-r} shown" for r, i in enumerate(range(0, 500, 7))]
    (tmp_path / "shown.trec").write_text("\n".join(lines) + "\n")
    shown_only = _contest(
        tmp_path,
        "shown-only",
        [{"name": "Shown", "format": "trec", "path": str(tmp_path / "shown.trec")}],
        shapes,
    )
    win.resize(*SCREEN)
    win.quiet = True
    strips = win.ranked.thumbs

    def drawn():
        return bool(strips.rows) and all(t.pixmap is not None for _, ts in strips.rows for t in ts)

    win.controller.open_session(every_item)
    qtbot.waitUntil(lambda: settled(win, 1), timeout=30000)
    win.tabs.setCurrentWidget(win.ranked)
    win.ranked.select_query("q05")
    qtbot.waitUntil(lambda: "could not be shown" in strips.state.text(), timeout=60000)
    win.controller.open_session(shown_only)
    qtbot.waitUntil(lambda: settled(win, 1) and win.ranked.lists is not None, timeout=30000)
    qtbot.waitUntil(lambda: win.ranked.lists.runs[0].name == "Shown" and drawn(), timeout=60000)
    qtbot.wait(200)
    assert strips.service.warning() is None
    assert "could not be shown" not in strips.state.text()
