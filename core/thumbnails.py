"""Thumbnails of shapes: a mesh read through trimesh (OFF, OBJ, PLY, STL,
GLB/GLTF) and drawn by :mod:`shrec_eval.render`, or an image (PNG, JPEG:
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

import hashlib
import io
import os
import sys
import tempfile
import textwrap
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .model import DataWarning, make_warning
from .render import DEFAULT_VIEW, render_mesh
from .shapes import IMAGE_SUFFIXES, ShapeFiles

__all__ = [
    "Thumbnail",
    "ThumbnailCache",
    "ShapeFileError",
    "default_cache_dir",
    "load_mesh",
    "image_rgba",
    "placeholder",
    "thumbnail",
    "encode_png",
    "decode_png",
    "shape_warning",
]

#: bump when the drawing changes, so that cached thumbnails are drawn again
RENDER_VERSION = 1
#: the environment variable that moves the cache (tests, shared machines)
CACHE_ENV = "SHREC_EVAL_CACHE_DIR"


class ShapeFileError(Exception):
    """A shape file that could not be drawn; the text is the reason."""


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


def load_mesh(path) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, triangular faces) of a mesh file through trimesh (a scene,
    GLB/GLTF, is flattened into one mesh); ShapeFileError with the reason."""
    import trimesh  # a second or so to import: only when a mesh is drawn

    path = Path(path)
    try:
        # opened here, not by name: trimesh names a scene's nodes after the
        # file's name in UTF-8, which a name that is not UTF-8 is not
        with open(path, "rb") as fh:
            if os.fstat(fh.fileno()).st_size == 0:
                raise ShapeFileError("the file is empty")
            mesh = trimesh.load(
                fh,
                file_type=path.suffix.lower().lstrip("."),
                force="mesh",
                process=False,
                resolver=trimesh.resolvers.FilePathResolver(str(path.parent)),
            )
    except ShapeFileError:
        raise
    except Exception as exc:  # any parser failure is the file's problem
        reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ShapeFileError(f"cannot be read as a mesh ({reason[:120]})") from exc
    v = np.asarray(getattr(mesh, "vertices", np.zeros((0, 3))), dtype=np.float64)
    f = np.asarray(getattr(mesh, "faces", np.zeros((0, 3))), dtype=np.int64)
    if f.ndim != 2 or f.shape[1] != 3 or len(f) == 0:
        raise ShapeFileError("the file holds no faces")
    return v, f


def image_rgba(path, size: int) -> np.ndarray:
    """An image file fitted (aspect kept) into a transparent size x size square."""
    from PIL import Image, UnidentifiedImageError

    try:
        with Image.open(path) as im:
            im = im.convert("RGBA")
            im.thumbnail((size, size), Image.Resampling.LANCZOS)
            if im.width < size and im.height < size:  # small images grow to fit too
                k = size / max(im.width, im.height)
                im = im.resize(
                    (max(1, round(im.width * k)), max(1, round(im.height * k))),
                    Image.Resampling.LANCZOS,
                )
            canvas = Image.new("RGBA", (size, size), (0, 0, 0, 0))
            canvas.paste(im, ((size - im.width) // 2, (size - im.height) // 2))
            return np.asarray(canvas, dtype=np.uint8).copy()
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError) as exc:
        raise ShapeFileError(f"cannot be read as an image ({str(exc)[:120]})") from exc


def placeholder(size: int, reason: str) -> np.ndarray:
    """A light grey square with a cross and the reason, for an item that
    cannot be shown."""
    from PIL import Image, ImageDraw, ImageFont

    im = Image.new("RGBA", (size, size), (236, 236, 236, 255))
    d = ImageDraw.Draw(im)
    d.rectangle([0, 0, size - 1, size - 1], outline=(170, 170, 170, 255))
    d.line([(0, 0), (size - 1, size - 1)], fill=(210, 210, 210, 255))
    d.line([(0, size - 1), (size - 1, 0)], fill=(210, 210, 210, 255))
    font = ImageFont.load_default(size=max(8, size // 12))
    chars = max(8, int(size / max(1, font.getlength("n"))) - 1)
    lines = textwrap.wrap(reason, chars)[: max(1, size // (size // 12 + 4) - 1)]
    y = 4
    for line in lines:
        d.text((4, y), line, fill=(90, 30, 30, 255), font=font)
        y += size // 12 + 3
    return np.asarray(im, dtype=np.uint8).copy()


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
        try:
            return decode_png(self._file(key).read_bytes())
        except Exception:  # absent, or torn by a crash: drawn again
            return None

    def put(self, key: str, rgba: np.ndarray) -> None:
        """Store a thumbnail; a cache that cannot be written is passed over.
        Written to a temporary file and renamed, without a flush to disk:
        an entry lost in a crash is drawn again."""
        target = self._file(key)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=".", suffix=".tmp", dir=target.parent)
            try:
                with os.fdopen(fd, "wb") as fh:
                    fh.write(encode_png(rgba))
                os.replace(tmp, target)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            pass


# -- one item ------------------------------------------------------------------------------


def draw(files: ShapeFiles, size: int) -> tuple[np.ndarray, Path]:
    """The picture of an item's files (the provided image wins); ShapeFileError."""
    path = files.image or files.mesh
    if path is None:
        raise ShapeFileError("no file")
    if not path.is_file():
        raise ShapeFileError(f"{path.name}: file not found")
    try:
        if path.suffix.lower() in IMAGE_SUFFIXES:
            return image_rgba(path, size), path
        v, f = load_mesh(path)
        try:
            return render_mesh(v, f, size), path
        except ValueError as exc:
            raise ShapeFileError(str(exc)) from exc
    except ShapeFileError as exc:
        if files.image is not None and files.mesh is not None and path == files.image:
            return draw(ShapeFiles(mesh=files.mesh), size)  # a broken thumbnail: the mesh
        raise ShapeFileError(f"{path.name}: {exc}") from None


def thumbnail(files: ShapeFiles | None, size: int = 128, cache=None) -> Thumbnail:
    """An item's thumbnail (``files`` None: the shapes folder has none for
    it), from ``cache`` (a ThumbnailCache) when it holds it, else drawn
    and stored there; a placeholder with the reason on any problem."""
    if files is None:
        return Thumbnail(placeholder(size, "no shape file for this id"), None, "no shape file")
    path = files.image or files.mesh
    other = files.mesh if path is files.image else None  # a thumbnail's mesh, if it fails
    key = cache.key(path, size, other) if cache is not None and path is not None else None
    if key is not None:
        rgba = cache.get(key)
        if rgba is not None and rgba.shape == (size, size, 4):
            return Thumbnail(rgba, path, None, cached=True)
    try:
        rgba, used = draw(files, size)
    except ShapeFileError as exc:
        reason = str(exc)
        return Thumbnail(placeholder(size, reason), path, reason)
    except MemoryError:
        reason = f"{path.name}: too large to draw"
        return Thumbnail(placeholder(size, reason), path, reason)
    if key is not None:
        cache.put(key, rgba)
    return Thumbnail(rgba, used)


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
