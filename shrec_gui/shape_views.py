"""The shapes on screen: the Ranked list tab's thumbnail strips (each run's
row: the query, then its first K results framed in their grade's colour;
rank, id, class and grade on hover; double-click for a 3D view), the 3D view
(pyqtgraph's OpenGL view where OpenGL works, else the CPU renderer's
turntable, drawn by the shapes worker), and File > Shapes….

Everything drawn comes from :class:`~shrec_gui.shapes_service.ShapesService`;
these widgets only ask for pictures and paint them."""

from __future__ import annotations

import os

import numpy as np
from PySide6.QtCore import QPointF, QRectF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)
from shrec_eval.outputs.gallery import grade_colour, grade_words
from shrec_eval.shapes.index import LAYOUTS, ShapesSource
from shrec_eval.shapes.index import check_layout as _check_layout
from shrec_eval.shapes.render import DEFAULT_VIEW, view_matrix

from .shapes_service import ITEM, QUERY, THUMB_PX

DEFAULT_K = 10
FRAME = 4  # px of grade colour around a thumbnail
QUERY_COLOUR = (42, 93, 176)
GRADE_GREY = (200, 200, 200)


class ThumbTile(QWidget):
    """One thumbnail in its grade's frame; double-click asks for the 3D view."""

    opened = Signal(str, str)  # role, id

    def __init__(self, role: str, item_id: str, rank: int | None, colour, tip: str, parent=None):
        super().__init__(parent)
        self.role, self.item_id, self.rank = role, item_id, rank
        self.colour = QColor(*colour)
        self.pixmap: QPixmap | None = None
        self.setToolTip(tip)
        self.setFixedSize(THUMB_PX + 2 * FRAME, THUMB_PX + 2 * FRAME)

    def configure(self, role: str, item_id: str, rank, colour, tip: str) -> None:
        """Show another item (the picture is cleared until it is set)."""
        if (role, item_id) != (self.role, self.item_id):
            self.pixmap = None
        self.role, self.item_id, self.rank = role, item_id, rank
        self.colour = QColor(*colour)
        self.setToolTip(tip)
        self.update()

    def set_image(self, image) -> None:
        self.pixmap = QPixmap.fromImage(image)
        self.update()

    def paintEvent(self, event) -> None:
        p = QPainter(self)
        p.fillRect(self.rect(), self.colour)
        inner = QRectF(FRAME, FRAME, THUMB_PX, THUMB_PX)
        p.fillRect(inner, QColor(255, 255, 255))
        if self.pixmap is not None:
            p.drawPixmap(inner, self.pixmap, QRectF(self.pixmap.rect()))
        else:  # not drawn yet
            p.setPen(QPen(QColor(150, 150, 150)))
            p.drawText(inner, Qt.AlignmentFlag.AlignCenter, "…")
        if self.rank is not None:
            p.setPen(QPen(QColor(60, 60, 60)))
            p.drawText(QRectF(FRAME + 2, FRAME, THUMB_PX, 14), str(self.rank))
        p.end()

    def mouseDoubleClickEvent(self, event) -> None:
        self.opened.emit(self.role, self.item_id)


def frame_key(items, tail: str = "") -> QLabel:
    """A label saying what the frames' colours mean: a square of each
    colour and its words."""
    text = " &nbsp; ".join(
        f'<span style="color:#{r:02x}{g:02x}{b:02x}">&#9632;</span> {words}'
        for (r, g, b), words in items
    )
    label = QLabel(f"Frames: {text}{tail}")
    label.setToolTip("The colour of a thumbnail's frame")
    return label


class ThumbStrips(QWidget):
    """The thumbnail rows of the runs shown in the Ranked list tab."""

    def __init__(self, service, parent=None) -> None:
        super().__init__(parent)
        self.service = service
        self.k = QSpinBox()
        self.k.setRange(1, 50)
        self.k.setValue(DEFAULT_K)
        self.k.setPrefix("first ")
        self.k.setSuffix(" results")
        self.k.setToolTip("How many results of each run are shown as thumbnails")
        self.state = QLabel(" ")
        self.cancel = QPushButton("Cancel")
        self.cancel.setVisible(False)
        self.cancel.clicked.connect(service.cancel)
        head = QHBoxLayout()
        head.addWidget(QLabel("<b>Shapes</b>"))
        head.addWidget(self.k)
        head.addWidget(self.state, 1)
        head.addWidget(self.cancel)
        head.addWidget(frame_key([(QUERY_COLOUR, "the query")], "; the results framed by grade"))
        self.grid_host = QWidget()
        self.grid = QGridLayout(self.grid_host)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setHorizontalSpacing(4)
        self.grid.setVerticalSpacing(4)
        self.scroll = QScrollArea()
        self.scroll.setWidget(self.grid_host)
        self.scroll.setWidgetResizable(True)
        self.scroll.setMinimumHeight(THUMB_PX + 2 * FRAME + 24)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        lay.addLayout(head)
        lay.addWidget(self.scroll)
        self._indexed = " "  # what the shapes folders hold (ShapesIndex.describe)
        self.tiles: dict[tuple[str, str], list[ThumbTile]] = {}
        self.rows: list[tuple[str, list[ThumbTile]]] = []  # run name, its tiles (query first)
        self._cells: dict[tuple[int, int], ThumbTile] = {}  # grid place -> its tile
        self._names: dict[int, QLabel] = {}
        self._errors: dict[int, QLabel] = {}
        self._shown = None
        self.k.valueChanged.connect(lambda _: self._rebuild())
        service.thumbnailReady.connect(self._on_ready)
        service.progress.connect(self._on_progress)
        service.sourcesChanged.connect(self._on_sources)
        service.indexed.connect(self._on_indexed)
        self._on_sources()

    def _on_sources(self) -> None:
        self.setVisible(self.service.active)
        self._rebuild()

    def _on_indexed(self, text: str) -> None:
        self._indexed = text
        self.state.setText(text)
        self._rebuild()  # ask again: the index is there now

    def _on_progress(self, done: int, total: int) -> None:
        """Drawing: how far; done: the shapes of this contest that could not
        be shown, else how many were drawn, else what the folder holds (every
        picture was there already: a word left from another contest would stay)."""
        busy = 0 < total and done < total
        self.cancel.setVisible(busy)
        if busy:
            self.state.setText(f"drawing thumbnails: {done} of {total}")
            return
        w = self.service.warning()
        if w is not None:
            self.state.setText(f"{w}")
        else:
            self.state.setText(f"{total} thumbnails drawn" if total else self._indexed)

    def show_runs(self, runs, query_id: str | None, top_grade: int) -> None:
        """The strips of ``runs`` (RunLists of the Ranked list tab) for the query."""
        self._shown = (list(runs), query_id, top_grade)
        self._rebuild()

    def _cell(self, row: int, col: int, role, item_id, rank, colour, tip) -> ThumbTile:
        """The tile at (row, col), made once and reused (another query or K
        only changes what the tiles show: no widgets made or deleted)."""
        t = self._cells.get((row, col))
        if t is None:
            t = self._cells[(row, col)] = ThumbTile(role, item_id, rank, colour, tip)
            t.opened.connect(self.open_view)
            self.grid.addWidget(t, row, col)
        else:
            t.configure(role, item_id, rank, colour, tip)
        self.tiles.setdefault((role, item_id), []).append(t)
        image = self.service.image(role, item_id)
        if image is not None:
            t.set_image(image)
        t.show()
        return t

    def _label(self, store: dict, row: int, text: str, col: int, span: int = 1) -> None:
        lab = store.get(row)
        if lab is None:
            lab = store[row] = QLabel()
            self.grid.addWidget(lab, row, col, 1, span)
        lab.setText(text)
        lab.show()

    def _rebuild(self) -> None:
        self.tiles = {}
        self.rows = []
        used: set = set()
        names: set = set()
        errors: set = set()
        shown = self._shown if self.service.active else None
        runs, q, top = shown if shown is not None else ((), None, 0)
        k = self.k.value()
        wanted = [(QUERY, q)] if q is not None else []
        for row, run in enumerate(runs if q is not None else ()):
            self._label(self._names, row, run.name, 0)
            names.add(row)
            tiles = [self._cell(row, 1, QUERY, q, None, QUERY_COLOUR, f"query {q}")]
            used.add((row, 1))
            if run.error is not None:
                self._label(self._errors, row, run.error, 2, 50)
                errors.add(row)
            for r in range(min(k, len(run)) if run.error is None else 0):
                item, grade = run.items[r], int(run.gains[r])
                cls = f", class {run.classes[r]}" if run.classes is not None else ""
                tip = f"{run.name}, rank {r + 1}: {item}{cls} ({grade_words(grade, top)})"
                colour = grade_colour(grade, top)
                tiles.append(self._cell(row, r + 2, ITEM, item, r + 1, colour, tip))
                used.add((row, r + 2))
                wanted.append((ITEM, item))
            self.rows.append((run.name, tiles))
        for key, t in self._cells.items():
            if key not in used:
                t.hide()
        for store, keep in ((self._names, names), (self._errors, errors)):
            for row, lab in store.items():
                if row not in keep:
                    lab.hide()
        self.grid.setColumnStretch(60, 1)
        # a row and a half at least (the rest scrolls): many runs never make
        # the tab taller than a 720 px screen
        rows = max(len(self.rows), 1)
        self.scroll.setMinimumHeight(int(min(rows, 1.5) * (THUMB_PX + 2 * FRAME + 4)) + 8)
        if wanted:
            self.service.request(wanted)

    def _on_ready(self, role: str, item_id: str, image) -> None:
        for t in self.tiles.get((role, item_id), ()):
            t.set_image(image)

    def showEvent(self, event) -> None:
        """Shown again (another tab asked for other pictures meanwhile, or
        Cancel): the pictures still missing are asked for again."""
        super().showEvent(event)
        missing = [key for key, tiles in self.tiles.items() if tiles[0].pixmap is None]
        if missing:
            self.service.request(missing, replace=False)

    def open_view(self, role: str, item_id: str) -> None:
        ShapeViewer(self.service, role, item_id, self).show()

    def shown_ids(self) -> list[tuple[str, list[str]]]:
        """(run name, [query id, then the results' ids in rank order]) of each row."""
        return [(name, [t.item_id for t in tiles]) for name, tiles in self.rows]


# -- the 3D view ---------------------------------------------------------------------------


def opengl_available() -> bool:
    """pyqtgraph's OpenGL view can be used: a real screen and PyOpenGL."""
    if os.environ.get("QT_QPA_PLATFORM", "") in ("offscreen", "minimal"):
        return False
    try:
        import pyqtgraph.opengl  # noqa: F401  (needs PyOpenGL)
    except Exception:
        return False
    return True


class Turntable(QLabel):
    """The CPU renderer's view: drag to turn, wheel to zoom; frames are
    drawn by the shapes worker (the newest asked for)."""

    def __init__(self, service, size: int = 360, parent=None) -> None:
        super().__init__(parent)
        self.service = service
        self.px = size
        self.elevation, self.azimuth = DEFAULT_VIEW
        self.zoom = 1.0
        self.mesh = None
        self._request = 0
        self._drag: QPointF | None = None
        self.setFixedSize(QSize(size, size))
        self.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.setStyleSheet("background: white")
        service.viewReady.connect(self._on_frame)

    def set_mesh(self, vertices, faces) -> None:
        self.mesh = (np.asarray(vertices), np.asarray(faces))
        self.redraw()

    def redraw(self) -> None:
        if self.mesh is None:
            return
        self._request += 1
        R = view_matrix(self.elevation, self.azimuth)
        self.service.request_view(self._request, *self.mesh, R, self.zoom, self.px)

    def _on_frame(self, request: int, image) -> None:
        if request == self._request:
            self.setPixmap(QPixmap.fromImage(image))

    def mousePressEvent(self, event) -> None:
        self._drag = event.position()

    def mouseMoveEvent(self, event) -> None:
        if self._drag is None:
            return
        d = event.position() - self._drag
        self._drag = event.position()
        self.turn(d.x() * 0.5, d.y() * 0.5)

    def mouseReleaseEvent(self, event) -> None:
        self._drag = None

    def turn(self, d_azimuth: float, d_elevation: float) -> None:
        self.azimuth = (self.azimuth - d_azimuth) % 360
        self.elevation = float(np.clip(self.elevation + d_elevation, -89, 89))
        self.redraw()

    def wheelEvent(self, event) -> None:
        self.zoom = float(np.clip(self.zoom * 1.1 ** (event.angleDelta().y() / 120), 0.3, 8))
        self.redraw()


class ShapeViewer(QDialog):
    """One shape in 3D: rotate (drag), zoom (wheel) and, in the OpenGL view, pan."""

    def __init__(self, service, role: str, item_id: str, parent=None) -> None:
        super().__init__(parent)
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.service, self.role, self.item_id = service, role, item_id
        self.setWindowTitle(f"{'Query' if role == QUERY else 'Shape'} {item_id}")
        self.info = QLabel("Reading the mesh…")
        self.view: QWidget | None = None
        self.lay = QVBoxLayout(self)
        self.lay.addWidget(self.info)
        service.meshReady.connect(self._on_mesh)
        service.request_mesh(role, item_id)

    def _on_mesh(self, role: str, item_id: str, mesh) -> None:
        if (role, item_id) != (self.role, self.item_id) or self.view is not None:
            return
        if isinstance(mesh, str):
            self.info.setText(f"Cannot show {item_id} in 3D: {mesh}")
            return
        v, f = mesh
        self.info.setText(
            f"{len(v):,} vertices, {len(f):,} faces. Drag to turn, wheel to zoom"
            + (", Ctrl+drag to pan." if opengl_available() else ".")
        )
        self.view = _gl_view(v, f) if opengl_available() else None
        if self.view is None:
            self.view = Turntable(self.service)
            self.view.set_mesh(v, f)
        self.lay.addWidget(self.view, 1)


def _gl_view(v, f):
    """pyqtgraph's OpenGL view of the mesh, or None when it cannot be made."""
    try:
        import pyqtgraph.opengl as gl

        w = gl.GLViewWidget()
        centre = (v.min(axis=0) + v.max(axis=0)) / 2
        radius = float(np.linalg.norm(v - centre, axis=1).max()) or 1.0
        data = gl.MeshData(vertexes=(v - centre) / radius, faces=f)
        w.addItem(gl.GLMeshItem(meshdata=data, shader="shaded", color=(0.7, 0.75, 0.83, 1)))
        w.setCameraPosition(distance=3.5, elevation=DEFAULT_VIEW[0], azimuth=DEFAULT_VIEW[1])
        w.setMinimumSize(420, 420)
        return w
    except Exception:
        return None


# -- File > Shapes… -------------------------------------------------------------------------

DETECTED = "detected"


class ShapesDialog(QDialog):
    """The shapes folder of the collection and, for image or sketch
    queries, of the queries; each with its layout (detected, a known one,
    or a pattern such as models/{id}/mesh.ply)."""

    def __init__(self, shapes: ShapesSource | None, query_shapes: ShapesSource | None, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Shapes")
        form = QFormLayout(self)
        self.fields = {}
        for key, label, source in (
            ("shapes", "Shapes folder:", shapes),
            ("query_shapes", "Query shapes folder (optional):", query_shapes),
        ):
            path = QLineEdit(str(source.path) if source is not None else "")
            browse = QPushButton("Browse…")
            browse.clicked.connect(lambda _=False, e=path: self._browse(e))
            layout = QComboBox()
            layout.setEditable(True)
            layout.addItems([DETECTED, *LAYOUTS, "{id}.obj", "models/{id}/mesh.ply"])
            layout.setCurrentText(source.layout if source and source.layout else DETECTED)
            row = QHBoxLayout()
            row.addWidget(path, 1)
            row.addWidget(browse)
            form.addRow(label, row)
            form.addRow("  layout:", layout)
            self.fields[key] = (path, layout)
        self.error = QLabel("")
        self.error.setStyleSheet("color: #b00020")
        form.addRow(self.error)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self._accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)

    def _browse(self, edit: QLineEdit) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Shapes folder", edit.text())
        if folder:
            edit.setText(folder)

    def source(self, key: str) -> ShapesSource | None:
        """The folder and layout given (None when the folder is left empty);
        ValueError with the reason when they cannot be used."""
        path, layout = self.fields[key]
        folder = path.text().strip()
        if not folder:
            return None
        if not os.path.isdir(folder):
            raise ValueError(f"{folder} is not a folder")
        text = layout.currentText().strip()
        text = None if text in ("", DETECTED) else text
        try:
            _check_layout(text)
        except Exception as exc:
            raise ValueError(str(exc)) from None
        return ShapesSource(folder, text)

    def _accept(self) -> None:
        try:
            self.result_sources = (self.source("shapes"), self.source("query_shapes"))
        except ValueError as exc:
            self.error.setText(str(exc))
            return
        self.accept()


class QueryShapePanel(QWidget):
    """The picked query's picture beside a table (Per query); hidden while
    the contest has no shapes; double-click for the 3D view."""

    def __init__(self, service, parent=None) -> None:
        super().__init__(parent)
        self.service = service
        self.query: str | None = None
        self.tile: ThumbTile | None = None
        self.caption = QLabel("")
        self.caption.setAlignment(Qt.AlignmentFlag.AlignHCenter)
        self.lay = QVBoxLayout(self)
        self.lay.setContentsMargins(4, 0, 0, 0)
        self.lay.addWidget(self.caption)
        self.lay.addStretch(1)
        service.thumbnailReady.connect(self._on_ready)
        service.sourcesChanged.connect(self._on_sources)
        service.indexed.connect(lambda _: self.show_query(self.query, force=True))
        self._on_sources()

    def _on_sources(self) -> None:
        self.setVisible(self.service.active)
        self.show_query(self.query, force=True)

    def show_query(self, query_id: str | None, *, force: bool = False) -> None:
        if query_id == self.query and not force:
            return
        self.query = query_id
        if self.tile is not None:
            self.tile.deleteLater()
            self.tile = None
        if query_id is None or not self.service.active:
            self.caption.setText("")
            return
        self.caption.setText(f"Query {query_id}")
        self.tile = ThumbTile(QUERY, query_id, None, QUERY_COLOUR, f"query {query_id}")
        self.tile.opened.connect(lambda role, i: ShapeViewer(self.service, role, i, self).show())
        image = self.service.image(QUERY, query_id)
        if image is not None:
            self.tile.set_image(image)
        else:
            self.service.request([(QUERY, query_id)], replace=False)
        self.lay.insertWidget(1, self.tile)

    def _on_ready(self, role: str, item_id: str, image) -> None:
        if self.tile is not None and (role, item_id) == (QUERY, self.query):
            self.tile.set_image(image)


class ClassShapesRow(QWidget):
    """A class's examples (Per class): its queries (blue frames), then the
    first collection items of the class; hidden while there are no shapes."""

    EXAMPLES = 8

    def __init__(self, service, parent=None) -> None:
        super().__init__(parent)
        self.service = service
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.row = QHBoxLayout()
        lay.addLayout(self.row)
        # what the frames' colours mean
        self.key = frame_key(
            [(QUERY_COLOUR, "the class's queries"), (GRADE_GREY, "items of the class")]
        )
        lay.addWidget(self.key)
        self.tiles: list[ThumbTile] = []
        self._shown: tuple = ((), ())
        service.thumbnailReady.connect(self._on_ready)
        service.sourcesChanged.connect(self._on_sources)
        service.indexed.connect(lambda _: self.show_examples(*self._shown))
        self._on_sources()

    def _on_sources(self) -> None:
        self.setVisible(self.service.active)
        self.show_examples(*self._shown)

    def show_examples(self, queries, items) -> None:
        """``queries`` and ``items``: ids of the class's queries and collection items."""
        self._shown = (tuple(queries), tuple(items))
        while self.row.count():
            w = self.row.takeAt(0).widget()
            if w is not None:
                w.deleteLater()
        self.tiles = []
        if not self.service.active:
            return
        picked = [(QUERY, q) for q in queries[:3]]
        picked += [(ITEM, i) for i in items[: self.EXAMPLES - len(picked)]]
        for role, i in picked:
            colour = QUERY_COLOUR if role == QUERY else GRADE_GREY
            t = ThumbTile(role, i, None, colour, f"{'query' if role == QUERY else 'item'} {i}")
            t.opened.connect(lambda r, x: ShapeViewer(self.service, r, x, self).show())
            image = self.service.image(role, i)
            if image is not None:
                t.set_image(image)
            self.tiles.append(t)
            self.row.addWidget(t)
        self.row.addStretch(1)
        self.service.request(picked, replace=False)

    def _on_ready(self, role: str, item_id: str, image) -> None:
        for t in self.tiles:
            if (t.role, t.item_id) == (role, item_id):
                t.set_image(image)
