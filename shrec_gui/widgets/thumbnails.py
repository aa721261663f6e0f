"""The shapes' thumbnails on screen: the Ranked list tab's strips (each run's
row: the query, then its first K results framed in their grade's colour;
rank, id, class and grade on hover; double-click for a 3D view,
shape_viewer.py), the picked query's picture (Per query) and a class's
example shapes (Per class).  File > Shapes… is shapes_dialog.py.

Everything drawn comes from :class:`~shrec_gui.workers.shapes.ShapesService`;
these widgets only ask for pictures and paint them."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt, Signal
from PySide6.QtGui import QColor, QPainter, QPen, QPixmap
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)
from shrec_eval.outputs.gallery import grade_colour, grade_words

from ..workers.shapes import ITEM, QUERY, THUMB_PX
from .shape_viewer import ShapeViewer

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
