"""The input gate of shape files: what a thumbnail, the gallery or the
app's 3D view reads of a shapes folder, under bounds that do not depend on
the files' honesty.

* A file is opened only when it is a regular file inside its shapes folder
  (symbolic links are followed while they stay in it; one that leads out
  is refused, never opened), without ever blocking (a FIFO is refused, not
  waited on), and read up to a size limit: :data:`MAX_SHAPE_BYTES` for a
  mesh, :data:`MAX_IMAGE_BYTES` for an image.
* The files a mesh names itself (an OBJ's ``mtllib``, a GLTF's buffers and
  images, a PLY's texture) go through the same gate (:func:`resolver`):
  inside the mesh's folder, regular files, :data:`MAX_SIDE_BYTES` for all
  of one mesh's together.
* An image is decoded only when its header gives at most
  :data:`MAX_IMAGE_PIXELS` pixels (a JPEG counted at the reduced scale it
  is decoded at, :meth:`PIL.Image.Image.draft`).
* A reason never quotes a file's content (:func:`reason_of`): parsers'
  messages quote what they could not read, and reasons are printed, put in
  ``gallery.html`` and drawn into placeholders.
* SIGINT and SIGTERM are honoured around the mesh parser
  (:class:`signals_kept`), which swallows ``BaseException`` in places.

No Qt here: the command line, the report gallery and the app's thumbnail
workers all read shapes through this module.
"""

from __future__ import annotations

import io
import os
import re
import signal
import stat
import threading
from pathlib import Path
from typing import Literal

__all__ = [
    "MAX_SHAPE_BYTES",
    "MAX_SIDE_BYTES",
    "MAX_IMAGE_BYTES",
    "MAX_IMAGE_PIXELS",
    "ShapeFileError",
    "read_shape_file",
    "open_image",
    "reason_of",
    "resolver",
    "signals_kept",
]

#: bytes of a mesh file read at most (a mesh parser holds about twice its
#: file in memory while it reads it)
MAX_SHAPE_BYTES = 256 << 20
#: bytes of the files one mesh names (materials, buffers, textures) together
MAX_SIDE_BYTES = 256 << 20
#: bytes of an image file (a query image or sketch, a provided thumbnail)
MAX_IMAGE_BYTES = 64 << 20
#: pixels of an image decoded at most: 8192 x 8192 (256 MiB as RGBA)
MAX_IMAGE_PIXELS = 1 << 26

_WHAT = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFSOCK: "a socket",
}
_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_BINARY", 0)
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO opens at once (then is refused)
    | getattr(os, "O_NOFOLLOW", 0)  # the real path is opened: no link may appear there
)


class ShapeFileError(Exception):
    """A shape file that could not be drawn; the text is the reason."""


def _size_text(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            v = n / (1 << shift)
            return f"{v:.0f} {unit}" if v == int(v) else f"{v:.1f} {unit}"
    return f"{n} bytes"


def inside(path, root) -> Path:
    """The real path of ``path`` (its links followed), which must lie in
    the folder ``root`` (its real path too) when ``root`` is given;
    ShapeFileError otherwise."""
    real = Path(os.path.realpath(path))
    if root is not None:
        top = Path(os.path.realpath(root))
        if not real.is_relative_to(top):
            raise ShapeFileError(
                "a link out of the shapes folder (not followed: the shapes folder's files "
                "are read, nothing else)"
            )
    return real


def read_shape_file(path, root=None, limit: int = MAX_SHAPE_BYTES) -> bytes:
    """The bytes of a shape file: a regular file in ``root`` (when given),
    at most ``limit`` bytes; ShapeFileError with the reason otherwise.
    Opening never blocks (a FIFO is refused), and no more than ``limit``
    bytes are ever held, whatever the file says of its size."""
    real = inside(path, root)
    try:
        fd = os.open(real, _FLAGS)
    except FileNotFoundError:
        raise ShapeFileError("file not found") from None
    except OSError as exc:
        raise ShapeFileError(f"cannot be opened ({exc.strerror or type(exc).__name__})") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            what = _WHAT.get(stat.S_IFMT(st.st_mode), "not a regular file")
            raise ShapeFileError(f"this is {what}, not a file (never read)")
        if st.st_size > limit:
            raise ShapeFileError(
                f"file too large: {_size_text(st.st_size)} (at most {_size_text(limit)} are read)"
            )
        parts, total = [], 0
        while total <= limit:
            try:
                chunk = os.read(fd, min(1 << 20, limit + 1 - total))
            except OSError as exc:
                raise ShapeFileError(
                    f"cannot be read ({exc.strerror or type(exc).__name__})"
                ) from None
            if not chunk:
                break
            parts.append(chunk)
            total += len(chunk)
        if total > limit:  # it grew while read
            raise ShapeFileError(f"file too large: more than {_size_text(limit)}")
        return b"".join(parts)
    finally:
        os.close(fd)


# -- images ----------------------------------------------------------------------------


def open_image(data: bytes, size: int | None = None):
    """A PIL image of the bytes of a PNG or JPEG file, not yet decoded:
    its header read, its size checked against :data:`MAX_IMAGE_PIXELS`
    (a JPEG at the scale it is decoded at to give ``size`` pixels, when
    ``size`` is given).  ShapeFileError when it is too large or not one.

    The plugins' classes are used rather than ``Image.open``, which
    applies Pillow's process-wide decompression-bomb limit (a warning on
    standard error, then an error that does not give the size): the limit
    here is this program's, decided from the header before any decoding."""
    from PIL import JpegImagePlugin, PngImagePlugin

    kinds = (
        (b"\x89PNG\r\n\x1a\n", PngImagePlugin.PngImageFile),
        (b"\xff\xd8\xff", JpegImagePlugin.JpegImageFile),
    )
    cls = next((c for magic, c in kinds if data.startswith(magic)), None)
    if cls is None:
        raise ShapeFileError("cannot be read as an image (not a PNG or JPEG file)")
    try:
        im = cls(io.BytesIO(data))
    except (OSError, ValueError, SyntaxError, EOFError, IndexError) as exc:
        raise ShapeFileError(f"cannot be read as an image ({reason_of(exc, data)})") from None
    w, h = im.size
    if size is not None and im.format == "JPEG":
        im.draft("RGB", (size, size))  # decoded at 1/2, 1/4 or 1/8 when that is enough
    if im.size[0] * im.size[1] > MAX_IMAGE_PIXELS:
        im.close()
        raise ShapeFileError(
            f"image too large: {w} x {h} pixels (at most {MAX_IMAGE_PIXELS:,} are decoded)"
        )
    return im


# -- reasons ---------------------------------------------------------------------------

_QUOTED = re.compile(r"'[^']*'|\"[^\"]*\"|b'[^']*'")
_WORD = re.compile(r"[A-Za-z0-9_\-\.]{3,}")


def reason_of(exc: BaseException, data: bytes = b"") -> str:
    """A parser's error as a reason that quotes nothing of the file: what
    follows its first colon and anything in quotes dropped, and the whole
    text replaced by the error's kind when a word of it still appears in
    ``data`` (the file's bytes)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    text = text.split(": ", 1)[0]
    text = _QUOTED.sub("...", text).strip()
    text = "".join(c if c.isprintable() and c.isascii() else "?" for c in text)[:100]
    if not any(c.isalpha() for c in text):
        text = ""
    elif data and any(w.encode() in data for w in _WORD.findall(text)):
        text = ""
    return text or type(exc).__name__


# -- the files a mesh names ------------------------------------------------------------


def resolver(mesh_path, root=None):
    """A trimesh resolver for the files the mesh ``mesh_path`` names (an
    OBJ's materials, a GLTF's buffers and images): inside the mesh's folder
    and ``root``, regular files only, never blocking, at most
    :data:`MAX_SIDE_BYTES` for all of them together."""
    from trimesh.resolvers import FilePathResolver

    class GatedResolver(FilePathResolver):
        def __init__(self, source, budget: list[int]) -> None:
            super().__init__(source)
            self.budget = budget

        def keys(self):  # never a walk of a large shapes folder
            return iter(())

        def namespaced(self, namespace: str):
            return GatedResolver(os.path.join(self.parent, namespace, ""), self.budget)

        def get(self, name: str) -> bytes:
            for candidate in (name.strip(), name.strip().lstrip("/"), os.path.split(name)[-1]):
                # by name, links not yet followed (read_shape_file refuses one
                # that leads out of the shapes folder, naming why)
                path = os.path.normpath(os.path.join(self.parent, candidate))
                if not Path(path).is_relative_to(os.path.normpath(self.parent)):
                    continue
                if not os.path.lexists(path):
                    continue
                try:
                    data = read_shape_file(path, root or self.parent, self.budget[0])
                except ShapeFileError as exc:
                    raise ShapeFileError(f"{Path(candidate).name}, which it names: {exc}") from None
                self.budget[0] -= len(data)
                return data
            # (the name is the file's content: not quoted)
            raise FileNotFoundError("a file it names is not in its folder")

        def write(self, name: str, data) -> None:
            raise ShapeFileError("a shape file is never written")

    return GatedResolver(os.fspath(mesh_path), [MAX_SIDE_BYTES])


# -- signals -----------------------------------------------------------------------------


class signals_kept:
    """SIGINT and SIGTERM honoured around code that swallows them
    (trimesh's OBJ reader wraps its material read in ``except
    BaseException``): the signal's own handler runs when it arrives, as
    usual, and if the code inside carries on, the signal is raised again
    when it returns (a KeyboardInterrupt, the command line's Terminated,
    or the default action).  Handlers can only be set in the main thread:
    elsewhere this does nothing."""

    SIGNALS = tuple(s for s in (signal.SIGINT, getattr(signal, "SIGTERM", None)) if s)

    def __enter__(self) -> signals_kept:
        self.caught: list[int] = []
        self.saved: dict = {}
        if threading.current_thread() is not threading.main_thread():
            return self
        for s in self.SIGNALS:
            old = signal.getsignal(s)
            if old is None or old == signal.SIG_IGN:
                continue
            self.saved[s] = old
            signal.signal(s, self._handler)
        return self

    def _handler(self, signum, frame) -> None:
        self.caught.append(signum)
        old = self.saved.get(signum)
        if callable(old):
            old(signum, frame)  # raises (KeyboardInterrupt...) where the code is
        else:  # the default action (a library's process): as if we were not here
            signal.signal(signum, signal.SIG_DFL)
            signal.raise_signal(signum)

    def __exit__(self, kind, exc, tb) -> Literal[False]:
        for s, old in self.saved.items():
            signal.signal(s, old)
        if self.caught and (exc is None or isinstance(exc, Exception)):
            signal.raise_signal(self.caught[0])  # the swallowed signal, with its handler
        return False
