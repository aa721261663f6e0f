"""One shape in 3D (double-click on a thumbnail): pyqtgraph's OpenGL view
where OpenGL works, else the CPU renderer's turntable, drawn by the shapes
worker (:class:`~shrec_gui.workers.shapes.ShapesService`)."""

from __future__ import annotations

import os

import numpy as np
from PySide6.QtCore import QPointF, QSize, Qt
from PySide6.QtGui import QPixmap
from PySide6.QtWidgets import QDialog, QLabel, QVBoxLayout, QWidget
from shrec_eval.shapes.render import DEFAULT_VIEW, view_matrix

from ..workers.shapes import QUERY


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
