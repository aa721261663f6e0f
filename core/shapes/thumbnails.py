"""Thumbnails of shapes: a mesh read through trimesh (OFF, OBJ, PLY, STL,
GLB/GLTF) and drawn by :mod:`shrec_eval.shapes.render`, or an image (PNG, JPEG:
a query image or sketch, or a thumbnail the collection provides, which wins
over rendering the mesh) fitted into the square; a placeholder naming the
reason when a file is missing or cannot be read (never an exception).

Thumbnails are cached on disk (:class:`ThumbnailCache`, in the per-user
cache folder) under a key of the file's path, size and modification time, so
a changed file is drawn again.  Images are RGBA numpy arrays; PNG files are
written and read by Pillow.  No Qt here: the command line, the report gallery
and the app's thumbnail worker share this module.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import struct
import sys
import tempfile
import textwrap
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..model.assessment import DataWarning, make_warning
from .index import IMAGE_SUFFIXES, ShapeFiles
from .render import DEFAULT_VIEW, render_mesh
from .shape_input import (
    MAX_IMAGE_BYTES,
    MAX_SHAPE_BYTES,
    ShapeFileError,
    open_image,
    read_shape_file,
    reason_of,
    resolver,
    signals_kept,
)

__all__ = [
    "Thumbnail",
    "ThumbnailCache",
    "ShapeFileError",
    "default_cache_dir",
    "load_mesh",
    "image_rgba",
    "placeholder",
    "thumbnail",
    "thumbnail_png",
    "encode_png",
    "decode_png",
    "shape_warning",
]

#: bump when the drawing changes, so that cached thumbnails are drawn again
#: (2: shape files read through their input gate; links out of the shapes
#: folder and images over the pixel budget no longer drawn)
RENDER_VERSION = 2
#: the environment variable that moves the cache (tests, shared machines)
CACHE_ENV = "SHREC_EVAL_CACHE_DIR"


@dataclass(frozen=True)
class Thumbnail:
    """One item's picture: ``rgba`` (size x size x 4, uint8), the file it
    came from, and ``problem`` (the reason) when it is a placeholder."""

    rgba: np.ndarray
    path: Path | None = None
    problem: str | None = None
    cached: bool = False

    @property
    def ok(self) -> bool:
        return self.problem is None


# -- reading -------------------------------------------------------------------------------


def load_mesh(path, root=None) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, triangular faces) of a mesh file through trimesh (a scene,
    GLB/GLTF, is flattened into one mesh); ShapeFileError with the reason.
    The file and those it names are read through the input gate of shape
    files (:mod:`shrec_eval.shapes.shape_input`: in ``root`` when given, regular
    files, size limits), and a signal that arrives while trimesh reads is
    never lost."""
    path = Path(path)
    data = read_shape_file(path, root, MAX_SHAPE_BYTES)
    import trimesh  # a second or so to import: only when a mesh is drawn

    if not data:
        raise ShapeFileError("the file is empty")
    kind = path.suffix.lower().lstrip(".")
    extra = {"skip_materials": True} if kind == "obj" else {}  # drawn without them
    with signals_kept():
        try:
            # from its bytes, not by name: trimesh would name a scene's nodes
            # after the file's name in UTF-8, which a name that is not UTF-8 is not
            mesh = trimesh.load(
                io.BytesIO(data),
                file_type=kind,
                resolver=resolver(path, root),
                force="mesh",
                process=False,
                **extra,
            )
        except ShapeFileError:
            raise
        except Exception as exc:  # any parser failure is the file's problem
            raise ShapeFileError(f"cannot be read as a mesh ({reason_of(exc, data)})") from None
    del data
    v = np.asarray(getattr(mesh, "vertices", np.zeros((0, 3))), dtype=np.float64)
    f = np.asarray(getattr(mesh, "faces", np.zeros((0, 3))), dtype=np.int64)
    if f.ndim != 2 or f.shape[1] != 3 or len(f) == 0:
        raise ShapeFileError("the file holds no faces")
    return v, f


def image_rgba(path, size: int, root=None) -> np.ndarray:
    """An image file fitted (aspect kept) into a transparent size x size
    square; read through the input gate of shape files and decoded only
    when its header gives at most ``MAX_IMAGE_PIXELS`` pixels."""
    from PIL import Image

    data = read_shape_file(path, root, MAX_IMAGE_BYTES)
    try:
        with open_image(data, size) as im:
            if im.mode not in ("RGB", "RGBA", "L", "LA"):
                im = im.convert({"1": "L", "P": "RGBA", "PA": "RGBA"}.get(im.mode, "RGBA"))
            im.thumbnail((size, size), Image.Resampling.LANCZOS)
            im = im.convert("RGBA")
            if im.width < size and im.height < size:  # small images grow to fit too
                k = size / max(im.width, im.height)
                im = im.resize(
                    (max(1, round(im.width * k)), max(1, round(im.height * k))),
                    Image.Resampling.LANCZOS,
                )
            canvas = Image.new("RGBA", (size, size), (0, 0, 0, 0))
            canvas.paste(im, ((size - im.width) // 2, (size - im.height) // 2))
            return np.asarray(canvas, dtype=np.uint8).copy()
    except (OSError, ValueError, SyntaxError, EOFError) as exc:
        raise ShapeFileError(f"cannot be read as an image ({reason_of(exc, data)})") from None


def placeholder(size: int, reason: str) -> np.ndarray:
    """A light grey square with a border, a cross and the reason in dark red
    lines (of size/12 pixels, at least 8; wrapped at the width of as many "n"
    as the square holds; as many lines as fit), for an item that cannot be
    shown.  The text is drawn by matplotlib's FreeType binding in its DejaVu
    Sans (the print figures' face): Pillow's own text drawing is left out of
    the bundle (packaging/shrec-gui.spec)."""
    rgba = np.empty((size, size, 4), dtype=np.uint8)
    rgba[...] = (236, 236, 236, 255)
    rgba[[0, -1], :] = rgba[:, [0, -1]] = (170, 170, 170, 255)  # the border
    diagonal = np.arange(size)
    rgba[diagonal, diagonal] = rgba[diagonal, size - 1 - diagonal] = (210, 210, 210, 255)
    px = max(8, size // 12)
    font, flags = _placeholder_font(px, threading.get_ident())
    n_width = font.load_char(ord("n"), flags).horiAdvance / 64  # as laid out, in pixels
    chars = max(8, int(size / max(1.0, n_width)) - 1)
    step = px + 3
    ascent = round(font.ascender * px / font.units_per_EM)
    fit = max(1, (size - 2 - 4 - px) // step + 1)  # the lines whose letters end inside
    for i, line in enumerate(textwrap.wrap(reason, chars)[:fit]):
        _draw_text(rgba, font, flags, line, 4, 4 + i * step + ascent)
    return rgba


@functools.lru_cache(maxsize=8)
def _placeholder_font(px: int, thread: int):
    """matplotlib's DejaVu Sans at ``px`` pixels (one for each thread that
    draws: a font is never shared between threads; kept, as its first glyph
    costs a millisecond) and its glyphs' load flags: FreeType's light
    hinting (vertical only: evenly spaced letters at 8 pixels, where
    matplotlib's default, forced autohinting, spaced them unevenly)."""
    # (matplotlib's first import costs 0.3 s: only once a placeholder is drawn)
    from matplotlib import ft2font, get_data_path

    font = ft2font.FT2Font(os.path.join(get_data_path(), "fonts", "ttf", "DejaVuSans.ttf"))
    font.set_size(px, 72)  # points at 72 dpi: pixels
    try:
        flags = ft2font.LoadFlags.TARGET_LIGHT
    except AttributeError:  # matplotlib before 3.10: an integer, since gone
        flags = getattr(ft2font, "LOAD_TARGET_LIGHT")  # noqa: B009
    return font, flags


def _draw_text(rgba: np.ndarray, font, flags, text: str, x: int, baseline: int) -> None:
    """``text`` in dark red from ``x`` on ``baseline``, blended by its glyphs'
    coverage into ``rgba``'s inside (never over the border).  A character
    the font lacks (a surrogate escape of a file name's byte that is not
    UTF-8, a control character, CJK) is drawn as U+FFFD, as messages show
    such bytes."""
    text = "".join(c if font.get_char_index(ord(c)) else "\ufffd" for c in text)
    font.set_text(text, flags=flags)
    font.draw_glyphs_to_bitmap(antialiased=True)
    cover = np.asarray(font.get_image())
    h, w = cover.shape
    # the bitmap has a pixel of margin; its baseline is above the text's descent
    top = baseline - (h - 1 - round(font.get_descent() / 64))
    size = len(rgba)
    y0, y1 = max(top, 1), min(top + h, size - 1)
    x0, x1 = max(x, 1), min(x + w, size - 1)
    if y0 >= y1 or x0 >= x1:
        return
    alpha = cover[y0 - top : y1 - top, x0 - x : x1 - x, None] / 255.0
    inside = rgba[y0:y1, x0:x1, :3]
    ink = np.array(_TEXT_RGB, dtype=np.float64)
    inside[...] = np.rint(inside * (1.0 - alpha) + ink * alpha).astype(np.uint8)


#: the placeholder's text colour (dark red)
_TEXT_RGB = (90, 30, 30)


def encode_png(rgba: np.ndarray) -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgba, dtype=np.uint8), "RGBA").save(buf, "PNG")
    return buf.getvalue()


def decode_png(data: bytes) -> np.ndarray:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        return np.asarray(im.convert("RGBA"), dtype=np.uint8).copy()


# -- the cache -----------------------------------------------------------------------------


def default_cache_dir() -> Path:
    """The per-user cache folder of shrec-eval's thumbnails (``$SHREC_EVAL_CACHE_DIR``
    when set).  Hand-written: the three platforms' rules are a few lines, not
    worth a dependency."""
    env = os.environ.get(CACHE_ENV)
    if env:
        return Path(env)
    if sys.platform == "win32":
        base = Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local")
        return base / "shrec-eval" / "Cache" / "thumbnails"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "shrec-eval" / "thumbnails"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "shrec-eval" / "thumbnails"


class ThumbnailCache:
    """Thumbnails as PNG files under ``folder`` (default: the per-user cache
    folder), keyed by the source file's absolute path, size and modification
    time (with a provided thumbnail, its mesh's too), the thumbnail size and
    the drawing's version."""

    def __init__(self, folder=None) -> None:
        self.folder = Path(folder) if folder is not None else default_cache_dir()

    def key(self, path: Path, size: int, *others: Path | None) -> str | None:
        """The entry of ``path`` (and ``others``: an item's other files,
        whose change changes the picture too) at ``size``; None when
        ``path`` cannot be seen."""
        parts = [f"{RENDER_VERSION}|{size}|{DEFAULT_VIEW}"]
        for i, p in enumerate((path, *others)):
            if p is None:
                continue
            try:
                st = os.stat(p)
            except OSError:
                if i == 0:
                    return None
                parts.append(f"{os.path.abspath(p)}|missing")
                continue
            parts.append(f"{os.path.abspath(p)}|{st.st_size}|{st.st_mtime_ns}")
        text = "|".join(parts)
        return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()

    def _file(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.png"

    def get(self, key: str) -> np.ndarray | None:
        """The thumbnail of an entry, decoded; None when absent or torn."""
        try:
            return decode_png(self._file(key).read_bytes())
        except Exception:  # absent, or torn by a crash: drawn again
            return None

    def get_png(self, key: str, size: int) -> bytes | None:
        """The PNG file of an entry as it is stored (not decoded): None when
        absent, torn (no end chunk) or not a size x size 8-bit RGBA picture
        (its header, read here: 16 bytes do not need Pillow's parser)."""
        try:
            data = self._file(key).read_bytes()
        except OSError:  # absent: drawn
            return None
        if data[:16] != _PNG_HEAD or not data.endswith(_PNG_END) or len(data) < 33:
            return None  # torn by a crash, or not ours: drawn again
        w, h, depth, colour = struct.unpack(">IIBB", data[16:26])
        return data if (w, h, depth, colour) == (size, size, 8, 6) else None

    def put(self, key: str, rgba: np.ndarray) -> None:
        """Store a thumbnail (see :meth:`put_png`)."""
        self.put_png(key, encode_png(rgba))

    def put_png(self, key: str, data: bytes) -> None:
        """Store a thumbnail's PNG file; a cache that cannot be written is
        passed over.  Written to a temporary file and renamed, without a
        flush to disk: an entry lost in a crash is drawn again."""
        target = self._file(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=target.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(data)
                os.replace(tmp, target)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            pass


#: the signature and header chunk's start, and the last chunk (IEND and its
#: CRC), of every PNG file
_PNG_HEAD = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
_PNG_END = b"IEND\xaeB`\x82"


# -- one item ------------------------------------------------------------------------------


def draw(files: ShapeFiles, size: int) -> tuple[np.ndarray, Path]:
    """The picture of an item's files (the provided image wins); ShapeFileError."""
    path = files.image or files.mesh
    if path is None:
        raise ShapeFileError("no file")
    if not os.path.lexists(path):
        raise ShapeFileError(f"{path.name}: file not found")
    try:
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return image_rgba(path, size, files.root), path
        v, f = load_mesh(path, files.root)
        try:
            return render_mesh(v, f, size), path
        except ValueError as exc:
            raise ShapeFileError(str(exc)) from exc
    except ShapeFileError as exc:
        if files.image is not None and files.mesh is not None and path == files.image:
            # a broken thumbnail: the mesh
            return draw(ShapeFiles(mesh=files.mesh, root=files.root), size)
        raise ShapeFileError(f"{path.name}: {exc}") from None


def _cache_key(files: ShapeFiles, size: int, cache) -> str | None:
    path = files.image or files.mesh
    other = files.mesh if path is files.image else None  # a thumbnail's mesh, if it fails
    return cache.key(path, size, other) if cache is not None and path is not None else None


def _drawn(files: ShapeFiles, size: int, cache, key: str | None) -> tuple[Thumbnail, bytes | None]:
    """The item drawn (a placeholder on any problem), and its PNG when it
    was stored in the cache (encoded once)."""
    path = files.image or files.mesh
    try:
        rgba, used = draw(files, size)
    except ShapeFileError as exc:
        reason = str(exc)
        return Thumbnail(placeholder(size, reason), path, reason), None
    except MemoryError:
        assert path is not None  # drawn from one of its files
        reason = f"{path.name}: too large to draw"
        return Thumbnail(placeholder(size, reason), path, reason), None
    png = None
    if key is not None:
        png = encode_png(rgba)
        cache.put_png(key, png)
    return Thumbnail(rgba, used), png


def thumbnail(files: ShapeFiles | None, size: int = 128, cache=None) -> Thumbnail:
    """An item's thumbnail (``files`` None: the shapes folder has none for
    it), from ``cache`` (a ThumbnailCache) when it holds it, else drawn
    and stored there; a placeholder with the reason on any problem."""
    if files is None:
        return Thumbnail(placeholder(size, "no shape file for this id"), None, "no shape file")
    key = _cache_key(files, size, cache)
    if key is not None:
        rgba = cache.get(key)
        if rgba is not None and rgba.shape == (size, size, 4):
            return Thumbnail(rgba, files.image or files.mesh, None, cached=True)
    return _drawn(files, size, cache, key)[0]


def thumbnail_png(
    files: ShapeFiles | None, size: int = 128, cache=None
) -> tuple[bytes, str | None]:
    """(PNG file, problem) of an item's :func:`thumbnail`, for files written
    (``thumbnails OUT``, the report's gallery): a cached thumbnail is its
    cache entry's bytes as they are, never decoded and encoded again."""
    if files is not None:
        key = _cache_key(files, size, cache)
        if key is not None:
            data = cache.get_png(key, size)
            if data is not None:
                return data, None
        t, png = _drawn(files, size, cache, key)
    else:
        t, png = thumbnail(None, size), None
    return (png if png is not None else encode_png(t.rgba)), t.problem


def thumbnail_rgba(files: ShapeFiles | None, size: int) -> tuple[np.ndarray, str | None]:
    """(rgba, problem) of :func:`thumbnail` with the per-user cache: what a
    drawing process returns (the app draws in one, so that reading and
    drawing never hold the GUI process's interpreter lock)."""
    t = thumbnail(files, size, ThumbnailCache())
    return t.rgba, t.problem


def shape_warning(problems: dict[str, str]) -> DataWarning | None:
    """The data check of the items whose shapes could not be shown
    (id -> reason), or None when there are none."""
    if not problems:
        return None
    return make_warning(
        "shape_files",
        "shapes that could not be shown",
        [f"{i} ({why})" for i, why in problems.items()],
    )
