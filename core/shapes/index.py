"""Where a contest's shapes are: a folder and how an item id maps to its
file(s).  The layouts of the usual collections are detected:

* ``psb``: the Princeton Shape Benchmark's ``db/<id // 100>/m<id>/m<id>.off``,
  with its thumbnail ``m<id>_thumb.jpg`` beside the model;
* ``shapenet``: ``<synset>/<id>/models/model_normalized.obj``;
* ``flat``: one folder of ``<id>.<ext>`` or ``m<id>.<ext>`` (meshes, or
  images for image and sketch queries; ``<id>_thumb.png`` / ``.jpg`` beside
  a mesh is its thumbnail);

or given as a pattern with ``{id}`` in it, relative to the folder
(``{id}.obj``, ``models/{id}/mesh.ply``).  Ids are normalised as the
readers normalise them (``m665`` -> ``665``) unless ``normalize_ids`` is off.

No Qt here: the command line, the report gallery and the app's thumbnail
worker all find files through :class:`ShapeIndex`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import FormatError, UsageError
from ..reading.formats.ids import normalize_id

__all__ = [
    "LAYOUTS",
    "MESH_SUFFIXES",
    "IMAGE_SUFFIXES",
    "ShapeFiles",
    "ShapesSource",
    "ShapeIndex",
    "shapes_folders",
]

LAYOUTS = ("psb", "shapenet", "flat")
#: mesh files read through trimesh
MESH_SUFFIXES = (".off", ".obj", ".ply", ".stl", ".glb", ".gltf")
#: images shown as they are (a query image or sketch, a provided thumbnail)
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg")
_THUMB = "_thumb"
_SHAPENET_MODEL = Path("models") / "model_normalized.obj"


@dataclass(frozen=True)
class ShapeFiles:
    """The files of one item: its mesh and/or an image (a provided
    thumbnail, or the item itself when it is an image or a sketch), and the
    shapes folder they were found in (``root``: what they are read from,
    links leading out of it refused; None: anywhere)."""

    mesh: Path | None = None
    image: Path | None = None
    root: Path | None = field(default=None, compare=False)

    @property
    def main(self) -> Path | None:
        """The file the item is: its mesh, else its image."""
        return self.mesh or self.image


def _is_pattern(layout: str | None) -> bool:
    return layout is not None and "{id}" in layout


@dataclass(frozen=True)
class ShapesSource:
    """A shapes folder and its layout (None: detected when indexed; one of
    :data:`LAYOUTS`; or a pattern holding ``{id}``)."""

    path: Path
    layout: str | None = None
    normalize_ids: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.path, Path):
            object.__setattr__(self, "path", Path(self.path))
        check_layout(self.layout)

    def index(self) -> ShapeIndex:
        """Scan the folder (a ShrecEvalError naming it when it holds no shapes)."""
        return ShapeIndex(self)


def check_layout(layout: str | None, source=None) -> None:
    """A layout is None, a known name or a pattern with ``{id}`` in a
    relative path; else an error (a FormatError naming ``source`` when
    given, else a UsageError)."""
    if layout is None or layout in LAYOUTS:
        return
    problem = None
    if not _is_pattern(layout):
        problem = f"one of {', '.join(LAYOUTS)} or a pattern with {{id}} in it"
    elif Path(layout).is_absolute() or ".." in Path(layout).parts:
        problem = "a pattern relative to the shapes folder (no absolute path, no ..)"
    elif layout.count("{id}") != 1:
        problem = "a pattern with {id} once (one part of a path is the id)"
    elif any("**" in part and part != "**" for part in _glob_of(layout).split("/")):
        problem = "a pattern whose ** is a whole folder name (**/{id}.off: at any depth)"
    else:
        try:
            layout.format(id="1")
        except (KeyError, IndexError, ValueError):
            problem = "a pattern whose only field is {id}"
    if problem is not None:
        msg = f"unknown shapes layout {layout!r}; expected {problem}"
        if source is not None:
            raise FormatError(source, msg)
        raise UsageError(msg)


def _glob_of(pattern: str) -> str:
    """The glob of the files a pattern may match (``{id}`` as ``*``)."""
    return pattern.replace("{id}", "*")


_PIECES = re.compile(r"(\{id\}|\*\*/|\*|\?)")


def _regex_of(pattern: str) -> re.Pattern:
    """The regular expression of a pattern's paths (relative, with ``/``):
    ``{id}`` one or more characters within a folder name (the id), ``**/``
    any folders, ``*`` and ``?`` as in a glob within a name."""
    pieces = {
        "{id}": r"(?P<id>[^/]+?)",
        "**/": r"(?:[^/]+/)*",
        "*": r"[^/]*",
        "?": r"[^/]",
    }
    return re.compile("".join(pieces.get(t, re.escape(t)) for t in _PIECES.split(pattern)) + r"\Z")


def _suffix(name: str) -> str:
    return os.path.splitext(name)[1].lower()


class ShapeIndex:
    """The files of every item a shapes folder holds, found once.

    ``layout`` is the layout used (detected or given); :meth:`files` gives an
    item's files (None when the folder has none for it); :meth:`ids` every
    item found, in a stable order."""

    def __init__(self, source: ShapesSource) -> None:
        self.source = source
        root = source.path
        if not root.is_dir():
            raise UsageError(f"{root}: the shapes folder does not exist (or is not a folder)")
        self._files: dict[str, ShapeFiles] = {}
        self._root = Path(os.path.realpath(root))
        layout = source.layout
        if layout is None:
            layout = _detect(root)
            if layout is None:
                raise UsageError(
                    f"{root}: no shapes found (expected a PSB db/ folder, ShapeNet synset "
                    "folders, or files <id>.off/.obj/.ply/.stl/.glb/.png/.jpg; give the "
                    "layout as a pattern such as {id}.obj)"
                )
        self.layout = layout
        if layout == "psb":
            self._scan_psb(root / "db" if (root / "db").is_dir() else root)
        elif layout == "shapenet":
            self._scan_shapenet(root)
        elif layout == "flat":
            self._scan_flat(root)
        else:
            self._scan_pattern(root, layout)
        if not self._files:
            raise UsageError(
                f"{root}: no shapes found with the layout {layout!r}"
                + (" (no file matches the pattern)" if _is_pattern(layout) else "")
            )

    # -- looking up ------------------------------------------------------------------------
    def key(self, item_id: str) -> str:
        return normalize_id(item_id) if self.source.normalize_ids else item_id

    def files(self, item_id: str) -> ShapeFiles | None:
        return self._files.get(self.key(item_id))

    def ids(self) -> list[str]:
        """Every item found, numbers in numeric order."""
        return sorted(self._files, key=_natural_id)

    def __len__(self) -> int:
        return len(self._files)

    def describe(self) -> str:
        return f"{self.source.path} ({self.layout} layout, {len(self)} shapes)"

    # -- scanning ---------------------------------------------------------------------------
    def _add(self, raw_id: str, mesh: Path | None = None, image: Path | None = None) -> None:
        k = self.key(raw_id)
        old = self._files.get(k, ShapeFiles())
        self._files[k] = ShapeFiles(
            mesh or old.mesh, old.image if image is None else image, self._root
        )

    def _scan_psb(self, db: Path) -> None:
        for group in sorted(_subdirs(db), key=_natural):
            for model in sorted(_subdirs(group), key=_natural):
                name = model.name
                mesh = model / f"{name}.off"
                thumb = next(
                    (
                        model / f"{name}{_THUMB}{s}"
                        for s in IMAGE_SUFFIXES
                        if (model / f"{name}{_THUMB}{s}").is_file()
                    ),
                    None,
                )
                if mesh.is_file() or thumb is not None:
                    self._add(name, mesh if mesh.is_file() else None, thumb)

    def _scan_shapenet(self, root: Path) -> None:
        for synset in sorted(_subdirs(root), key=_natural):
            for model in sorted(_subdirs(synset), key=_natural):
                mesh = model / _SHAPENET_MODEL
                if mesh.is_file():
                    image = model / "models" / "model_normalized.png"
                    self._add(model.name, mesh, image if image.is_file() else None)

    def _scan_flat(self, root: Path) -> None:
        entries = sorted(
            (e for e in os.scandir(root) if e.is_file()), key=lambda e: _natural(Path(e.name))
        )
        for e in entries:
            stem, suffix = os.path.splitext(e.name)
            suffix = suffix.lower()
            if suffix in MESH_SUFFIXES:
                self._add(stem, mesh=Path(e.path))
            elif suffix in IMAGE_SUFFIXES:
                self._add(stem.removesuffix(_THUMB), image=Path(e.path))

    def _scan_pattern(self, root: Path, pattern: str) -> None:
        regex = _regex_of(pattern)
        for p in sorted(root.glob(_glob_of(pattern)), key=_natural):
            m = regex.match(p.relative_to(root).as_posix())
            if m is None or not p.is_file():
                continue
            if _suffix(p.name) in IMAGE_SUFFIXES:
                self._add(m.group("id"), image=p)
            else:
                self._add(m.group("id"), mesh=p)


def _subdirs(folder: Path) -> list[Path]:
    try:
        return [Path(e.path) for e in os.scandir(folder) if e.is_dir()]
    except OSError:
        return []


def _natural(p: Path):
    """Numbers in names in numeric order (m2 before m10)."""
    return _natural_id(p.name)


def _natural_id(item_id: str):
    return [(0, int(t), "") if t.isdigit() else (1, 0, t) for t in re.split(r"(\d+)", item_id)]


def _detect(root: Path) -> str | None:
    """The layout of a folder, from a look at its first levels."""
    db = root / "db" if (root / "db").is_dir() else root
    for group in _subdirs(db)[:50]:
        for model in _subdirs(group)[:50]:
            if (model / f"{model.name}.off").is_file():
                return "psb"
    for synset in _subdirs(root)[:200]:
        for model in _subdirs(synset)[:20]:
            if (model / _SHAPENET_MODEL).is_file():
                return "shapenet"
    try:
        with os.scandir(root) as it:
            for e in it:
                if e.is_file() and _suffix(e.name) in MESH_SUFFIXES + IMAGE_SUFFIXES:
                    return "flat"
    except OSError:
        return None
    return None


def shapes_folders(paths) -> list[str]:
    """The paths among ``paths`` that are folders of shapes (a detected
    layout: meshes or images, never a folder of rank lists)."""
    return [p for p in paths if Path(p).is_dir() and _detect(Path(p)) is not None]
