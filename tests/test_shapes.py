"""Shapes and thumbnails (shrec_eval.shapes.index, .render, .thumbnails): every mesh
format draws the model's silhouette filling the frame, a provided thumbnail
wins, the cache is reused and refreshed when a file changes, a broken or
missing file gives a placeholder with the reason and a data check, the PSB,
ShapeNet, flat and pattern layouts are found, and contest files keep the
shapes folders."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
import trimesh
from PIL import Image
from shrec_eval.contest import AssessmentSource, Contest
from shrec_eval.errors import FormatError, UsageError
from shrec_eval.shapes.index import ShapeFiles, ShapesSource
from shrec_eval.shapes.render import MARGIN, render_mesh, view_matrix
from shrec_eval.shapes.thumbnails import (
    ThumbnailCache,
    decode_png,
    default_cache_dir,
    encode_png,
    placeholder,
    shape_warning,
    thumbnail,
)

SIZE = 96
FORMATS = ["off", "obj", "ply", "stl", "glb", "gltf"]


def _mask(rgba):
    return rgba[..., 3] > 0


def _expected_mask(mesh, size=SIZE):
    """The silhouette the fixed view should give, drawn by another
    rasteriser (Pillow's polygon fill) from trimesh's vertices and faces."""
    from PIL import ImageDraw

    p = mesh.vertices @ view_matrix(20.0, -35.0).T
    lo, hi = p[:, :2].min(0), p[:, :2].max(0)
    k = size * (1 - 2 * MARGIN) / (hi - lo).max()
    c = (lo + hi) / 2
    # Pillow's pixel (i, j) is centred on (i, j); ours on (i + 0.5, j + 0.5)
    xy = np.stack([(p[:, 0] - c[0]) * k + size / 2, size / 2 - (p[:, 1] - c[1]) * k], 1) - 0.5
    im = Image.new("L", (size, size), 0)
    draw = ImageDraw.Draw(im)
    for tri in xy[mesh.faces]:
        draw.polygon([tuple(t) for t in tri], fill=255)
    return np.asarray(im) > 0


def _outline(mask, r=2):
    """Pixels within ``r`` pixels of the mask's edge (Pillow fills a polygon
    to every pixel it touches, so its outline lies up to a pixel out)."""
    p = np.pad(mask, r)
    grown = p.copy()
    shrunk = p.copy()
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            moved = np.roll(np.roll(p, dy, 0), dx, 1)
            grown |= moved
            shrunk &= moved
    return (grown & ~shrunk)[r:-r, r:-r]


def _fills_frame(mask, size=SIZE):
    """The silhouette touches the margin on its longer side and is never cut."""
    ys, xs = np.nonzero(mask)
    assert xs.min() > 0 and ys.min() > 0 and xs.max() < size - 1 and ys.max() < size - 1
    span = max(xs.max() - xs.min() + 1, ys.max() - ys.min() + 1)
    assert abs(span - size * (1 - 2 * MARGIN)) <= 2


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SHREC_EVAL_CACHE_DIR", str(tmp_path / "cache"))


@pytest.mark.parametrize("ext", FORMATS)
@pytest.mark.parametrize("shape", ["cube", "sphere"])
def test_every_mesh_format_draws_its_silhouette(tmp_path, ext, shape):
    mesh = trimesh.creation.box() if shape == "cube" else trimesh.creation.icosphere(3)
    path = tmp_path / f"m1.{ext}"
    mesh.export(path)
    t = thumbnail(ShapeFiles(mesh=path), SIZE)
    assert t.ok and t.rgba.shape == (SIZE, SIZE, 4) and t.path == path
    got, want = _mask(t.rgba), _expected_mask(mesh)
    # the two rasterisers may differ on the outline (which edge pixels count), nowhere else
    assert not ((got != want) & ~_outline(want)).any()
    assert (got & want).sum() / (got | want).sum() > 0.93
    _fills_frame(got)
    lit = t.rgba[got][:, :3].astype(int)
    assert lit.std(axis=0).max() > 10  # shaded: the faces are not one flat colour


def test_cube_and_sphere_differ_as_they_should(tmp_path):
    cube = render_mesh(*_vf(trimesh.creation.box()), SIZE)
    sphere = render_mesh(*_vf(trimesh.creation.icosphere(4)), SIZE)
    c, s = _mask(cube), _mask(sphere)
    # the sphere's silhouette is a disc: its area is pi/4 of its bounding square
    ys, xs = np.nonzero(s)
    side = xs.max() - xs.min() + 1
    assert s.sum() / side**2 == pytest.approx(np.pi / 4, abs=0.03)
    assert (ys.max() - ys.min() + 1) == pytest.approx(side, abs=1)
    # the cube seen from above and aside is a hexagon, fuller than the disc
    ys, xs = np.nonzero(c)
    assert c.sum() / ((xs.max() - xs.min() + 1) * (ys.max() - ys.min() + 1)) > 0.8
    # the sphere's shading is smooth, the cube shows three flat faces
    assert len(np.unique(cube[c][:, :3], axis=0)) == 3
    assert len(np.unique(sphere[s][:, :3], axis=0)) > 50


def _vf(mesh):
    return mesh.vertices, mesh.faces


def test_a_long_object_fits_along_its_longer_side():
    mesh = trimesh.creation.box(extents=(4.0, 0.5, 0.5))
    m = _mask(render_mesh(*_vf(mesh), SIZE))
    ys, xs = np.nonzero(m)
    assert xs.max() - xs.min() > 2 * (ys.max() - ys.min())  # foreshortened by the view
    _fills_frame(m)


def test_nearest_face_wins():
    """Two squares, a small one in front of a large one: the pixels the
    small one covers are its faces', whatever the order of the faces."""
    from shrec_eval.shapes.render import _rasterise

    sq = np.array([[8, 8, 0], [56, 8, 0], [56, 56, 0], [8, 56, 0]], float)
    front = sq * [0.5, 0.5, 0] + [16, 16, 5]  # nearer: z towards the viewer
    v = np.concatenate([sq, front])
    f = np.array([[0, 1, 2], [0, 2, 3], [4, 5, 6], [4, 6, 7]])
    for order in (f, f[::-1].copy()):
        face, pix = _rasterise(v[:, 0], v[:, 1], v[:, 2], order, 64)
        owner = dict(zip(pix.tolist(), order[face][:, 0].tolist()))
        assert owner[32 * 64 + 32] == 4 and owner[10 * 64 + 10] == 0
        assert len(owner) == 48 * 48 and len(pix) == len(owner)  # one face per pixel


def test_a_provided_image_wins_over_the_mesh(tmp_path):
    mesh = tmp_path / "m7.off"
    trimesh.creation.box().export(mesh)
    thumb = tmp_path / "m7_thumb.jpg"
    Image.new("RGB", (200, 100), (255, 0, 0)).save(thumb)
    t = thumbnail(ShapeFiles(mesh=mesh, image=thumb), SIZE)
    assert t.ok and t.path == thumb
    # fitted with its aspect kept: full width, half height, centred
    assert t.rgba[SIZE // 2, SIZE // 2, 0] > 240 and t.rgba[SIZE // 2, SIZE // 2, 1] < 20
    assert t.rgba[2, SIZE // 2, 3] == 0 and t.rgba[SIZE // 2, 1, 3] == 255


def test_cache_is_reused_and_refreshed_when_the_file_changes(tmp_path):
    cache = ThumbnailCache(tmp_path / "c")
    path = tmp_path / "m1.off"
    trimesh.creation.box().export(path)
    first = thumbnail(ShapeFiles(mesh=path), SIZE, cache)
    assert not first.cached and len(list((tmp_path / "c").rglob("*.png"))) == 1
    again = thumbnail(ShapeFiles(mesh=path), SIZE, cache)
    assert again.cached and (again.rgba == first.rgba).all()
    # the cached picture is what is used: a marked entry comes back as it is
    key = cache.key(path, SIZE)
    marked = first.rgba.copy()
    marked[0, 0] = (1, 2, 3, 255)
    cache.put(key, marked)
    assert (thumbnail(ShapeFiles(mesh=path), SIZE, cache).rgba[0, 0] == (1, 2, 3, 255)).all()
    # the file changes (a sphere now): drawn again
    trimesh.creation.icosphere(3).export(path)
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    fresh = thumbnail(ShapeFiles(mesh=path), SIZE, cache)
    assert not fresh.cached and (fresh.rgba[0, 0] != (1, 2, 3, 255)).any()
    assert (_mask(fresh.rgba) != _mask(first.rgba)).sum() > 100
    # another size is another entry
    assert not thumbnail(ShapeFiles(mesh=path), 48, cache).cached


def test_a_torn_cache_entry_is_drawn_again(tmp_path):
    cache = ThumbnailCache(tmp_path / "c")
    path = tmp_path / "m1.off"
    trimesh.creation.box().export(path)
    good = thumbnail(ShapeFiles(mesh=path), SIZE, cache)
    (entry,) = (tmp_path / "c").rglob("*.png")
    entry.write_bytes(entry.read_bytes()[:40])
    t = thumbnail(ShapeFiles(mesh=path), SIZE, cache)
    assert t.ok and not t.cached and (t.rgba == good.rgba).all()


def test_default_cache_folder_follows_the_environment(tmp_path, monkeypatch):
    assert default_cache_dir() == tmp_path / "cache"
    monkeypatch.delenv("SHREC_EVAL_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if os.name == "posix" and not os.uname().sysname == "Darwin":
        assert default_cache_dir() == tmp_path / "xdg" / "shrec-eval" / "thumbnails"


@pytest.mark.parametrize(
    "name, content, reason",
    [
        ("bad.off", "OFF\n3 1 0\n0 0 0\n1 0\n", "cannot be read as a mesh"),
        ("empty.obj", "# nothing\n", "holds no faces"),
        ("bad.png", "not a png", "cannot be read as an image"),
        ("flat.off", "OFF\n3 1 0\n0 0 0\n0 0 0\n0 0 0\n3 0 1 2\n", "no extent"),
    ],
)
def test_a_broken_file_gives_a_placeholder_and_a_note(tmp_path, name, content, reason):
    path = tmp_path / name
    path.write_text(content)
    kind = "image" if name.endswith(".png") else "mesh"
    t = thumbnail(ShapeFiles(**{kind: path}), SIZE, ThumbnailCache(tmp_path / "c"))
    assert not t.ok and t.problem.startswith(name) and reason in t.problem
    assert t.rgba.shape == (SIZE, SIZE, 4) and (t.rgba[..., 3] == 255).all()
    assert not list((tmp_path / "c").rglob("*.png"))  # a failure is not cached
    w = shape_warning({"m3": t.problem})
    assert w.code == "shape_files" and w.count == 1 and w.examples[0].startswith("m3 (")


def test_missing_files_give_placeholders(tmp_path):
    t = thumbnail(None, SIZE)
    assert t.problem == "no shape file"
    t = thumbnail(ShapeFiles(mesh=tmp_path / "gone.off"), SIZE)
    assert t.problem == "gone.off: file not found"
    assert shape_warning({}) is None


def _ink(rgba) -> np.ndarray:
    """Where a placeholder's text is: the square, its border and its cross
    are three greys (236, 170, 210), the text dark red, blended into them."""
    r, g, b = (rgba[..., c] for c in range(3))
    return ~((r == g) & (g == b) & np.isin(r, (170, 210, 236)))


def _bands(ink) -> list[tuple[int, int]]:
    """The text's lines: (first, last) row of each run of rows with ink."""
    rows = np.r_[0, ink.any(1).astype(np.int8), 0]
    starts, ends = np.flatnonzero(np.diff(rows) == 1), np.flatnonzero(np.diff(rows) == -1)
    return [(int(a), int(b) - 1) for a, b in zip(starts, ends)]


@pytest.mark.parametrize("size", [16, 24, 72, 128, 256])
def test_a_placeholder_is_a_grey_square_with_a_cross_and_its_reason_in_dark_red(size):
    rgba = placeholder(size, "m12.off: cannot be read as a mesh")
    assert rgba.shape == (size, size, 4) and rgba.dtype == np.uint8
    assert (rgba[..., 3] == 255).all()
    ink = _ink(rgba)
    # the border (its corners on the cross), the cross, and light grey elsewhere
    border = np.zeros((size, size), bool)
    border[[0, -1], :] = border[:, [0, -1]] = True
    cross = np.zeros((size, size), bool)
    cross[np.arange(size), np.arange(size)] = cross[np.arange(size), np.arange(size)[::-1]] = True
    assert not (ink & border).any()  # the text stays inside the square's border
    assert (rgba[border & ~cross, :3] == 170).all()
    assert (rgba[cross & ~ink, :3] == 210).all() and (cross & ~ink).sum() > size
    assert (rgba[~border & ~cross & ~ink, :3] == 236).all()
    # the text: dark red (its full colour where a glyph covers a pixel), from the top
    r, g, b = (rgba[..., c][ink].astype(int) for c in range(3))
    assert ink.sum() > 10 and (g == b).all() and (r >= g).all() and (r > g).any()
    assert r.min() <= 100 and g.min() <= 45
    if size >= 128:  # a glyph's stem covers a pixel whole
        assert r.min() == 90 and g.min() == 30
    top, bottom = _bands(ink)[0]
    assert 4 <= top <= 4 + max(8, size // 12) // 2 and bottom < size - 1


@pytest.mark.parametrize("size", [72, 128, 256])
def test_a_placeholders_reason_wraps_into_lines_of_a_twelfth_of_the_square(size):
    assert len(_bands(_ink(placeholder(size, "gone")))) == 1
    lines = _bands(_ink(placeholder(size, "m12.off: cannot be read as a mesh")))
    assert len(lines) == {72: 4, 128: 2, 256: 2}[size]  # wrapped at the width of the "n"s
    ink = _ink(placeholder(size, "word " * 60))
    lines = _bands(ink)
    step = max(8, size // 12) + 3  # the font's size and 3 pixels between lines
    assert [b[0] - a[0] for a, b in zip(lines, lines[1:])] == [step] * (len(lines) - 1)
    # a long reason is cut to the lines that fit: the last ends inside the
    # border, with no room for another below it
    assert lines[-1][1] < size - 1 and lines[-1][1] + step >= size - 2
    assert len(lines) == {72: 6, 128: 9, 256: 10}[size]
    # each line as wide as the square lets it be, never over the border
    columns = np.flatnonzero(ink.any(0))
    assert columns[0] == 4 and size * 0.6 < columns[-1] < size - 1


@pytest.mark.parametrize(
    "reason, shown",
    [
        ("caf\udce9.off: file not found", "caf\ufffd.off: file not found"),
        ("\u6a21\u578b.off: x", "\ufffd\ufffd.off: x"),
        ("a\x00b \U0001f600", "a\ufffdb \U0001f600"),  # (DejaVu Sans has the emoji)
        ("", ""),
    ],
)
def test_a_placeholder_shows_a_character_its_font_lacks_as_a_replacement(reason, shown):
    """A file name's byte that is not UTF-8 (a surrogate escape), CJK, a
    control character: U+FFFD, drawn without a warning (the font's binding
    refused a surrogate: TypeError)."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rgba = placeholder(64, reason)
    assert rgba.tolist() == placeholder(64, shown).tolist()
    assert _ink(rgba).any() == bool(reason)


def test_a_placeholder_needs_no_text_drawing_of_pillow():
    """Pillow's FreeType module (PIL._imagingft) and its libraries are left
    out of the bundle (packaging/shrec-gui.spec): without it, a placeholder
    is drawn the same, and Pillow's text drawing is never imported (with
    Pillow's load_default(size=...), ImageFont's FreeType, it failed)."""
    code = (
        "import sys; sys.modules['PIL._imagingft'] = None  # as in the bundle\n"
        "from shrec_eval.shapes.thumbnails import placeholder\n"
        "import numpy as np\n"
        "rgba = placeholder(96, 'm12.off: file not found')\n"
        "sys.stdout.buffer.write(rgba.tobytes())\n"
        "print([m for m in sys.modules if m.startswith(('PIL.ImageFont', 'PIL.ImageDraw'))])"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=60)
    assert p.returncode == 0, p.stderr.decode()[-2000:]
    pixels, imported = p.stdout[: 96 * 96 * 4], p.stdout[96 * 96 * 4 :]
    assert imported.decode().strip() == "[]"
    expected = placeholder(96, "m12.off: file not found")
    assert np.frombuffer(pixels, np.uint8).reshape(96, 96, 4).tolist() == expected.tolist()


def test_png_round_trip():
    rgba = np.random.default_rng(1).integers(0, 256, (8, 8, 4), dtype=np.uint8)
    data = encode_png(rgba)
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and (decode_png(data) == rgba).all()


# -- layouts ---------------------------------------------------------------------------------


def _box_to(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    trimesh.creation.box().export(path)
    return path


def test_psb_layout_is_found(tmp_path):
    for i in (5, 123, 1813):
        _box_to(tmp_path / "db" / str(i // 100) / f"m{i}" / f"m{i}.off")
    thumb = tmp_path / "db" / "1" / "m123" / "m123_thumb.jpg"
    Image.new("RGB", (20, 20)).save(thumb)
    index = ShapesSource(tmp_path).index()
    assert index.layout == "psb" and index.ids() == ["5", "123", "1813"]
    f = index.files("m123")  # as a run may write it
    assert f.mesh == tmp_path / "db/1/m123/m123.off" and f.image == thumb
    assert index.files("123") == f and index.files("5").image is None
    assert index.files("77") is None
    # the db folder itself works too
    assert ShapesSource(tmp_path / "db").index().ids() == ["5", "123", "1813"]


def test_shapenet_layout_is_found(tmp_path):
    ids = ["1a2b3c", "ffe0"]
    for synset, i in zip(["02691156", "03001627"], ids):
        _box_to(tmp_path / synset / i / "models" / "model_normalized.obj")
    index = ShapesSource(tmp_path).index()
    assert index.layout == "shapenet" and sorted(index.ids()) == ids
    assert index.files("ffe0").mesh == tmp_path / "03001627/ffe0/models/model_normalized.obj"


def test_flat_layout_with_images_and_thumbnails(tmp_path):
    _box_to(tmp_path / "m1.ply")
    _box_to(tmp_path / "2.stl")
    Image.new("RGB", (10, 10)).save(tmp_path / "m1_thumb.png")
    Image.new("L", (10, 10)).save(tmp_path / "sketch9.png")
    (tmp_path / "notes.txt").write_text("x")
    index = ShapesSource(tmp_path).index()
    assert index.layout == "flat" and index.ids() == ["1", "2", "sketch9"]
    assert index.files("1") == ShapeFiles(tmp_path / "m1.ply", tmp_path / "m1_thumb.png")
    assert index.files("sketch9") == ShapeFiles(None, tmp_path / "sketch9.png")
    raw = ShapesSource(tmp_path, normalize_ids=False).index()
    assert raw.files("m1") is not None and raw.files("1") is None


def test_pattern_layout(tmp_path):
    _box_to(tmp_path / "models" / "a7" / "mesh.ply")
    _box_to(tmp_path / "models" / "b8" / "mesh.ply")
    _box_to(tmp_path / "models" / "b8" / "other.ply")
    index = ShapesSource(tmp_path, "models/{id}/mesh.ply").index()
    assert index.ids() == ["a7", "b8"]
    assert index.files("b8").mesh == tmp_path / "models/b8/mesh.ply"


@pytest.mark.parametrize("layout", ["psbx", "/abs/{id}.off", "../{id}.off", "{id}{x}.off"])
def test_bad_layouts_are_refused(tmp_path, layout):
    with pytest.raises(UsageError, match="shapes layout"):
        ShapesSource(tmp_path, layout)


def test_a_folder_without_shapes_is_refused(tmp_path):
    (tmp_path / "readme.txt").write_text("x")
    with pytest.raises(UsageError, match="no shapes found"):
        ShapesSource(tmp_path).index()
    with pytest.raises(UsageError, match="does not exist"):
        ShapesSource(tmp_path / "nope").index()


# -- contest files ---------------------------------------------------------------------------


def test_contest_files_keep_the_shapes_folders(tmp_path):
    c = Contest(
        AssessmentSource(tmp_path / "a.cla"),
        shapes=ShapesSource(tmp_path / "db"),
        query_shapes=ShapesSource(tmp_path / "sketches", "{id}.png", normalize_ids=False),
    )
    c.write(tmp_path / "c.json")
    d = json.loads((tmp_path / "c.json").read_text())
    assert d["version"] == 3
    assert d["shapes"] == {"path": "db", "layout": None, "normalize_ids": True}
    assert d["query_shapes"]["layout"] == "{id}.png"
    assert Contest.read(tmp_path / "c.json") == c
    # without shapes nothing is written
    assert "shapes" not in Contest(AssessmentSource("a.cla")).to_dict()


@pytest.mark.parametrize(
    "doc, message",
    [
        ({"version": 2, "shapes": {"path": "s"}}, 'version-2 contest file has no "shapes"'),
        ({"version": 3, "shapes": {"layout": "psb"}}, 'the "shapes" object needs a "path"'),
        ({"version": 3, "shapes": {"path": "s", "layout": "x"}}, "unknown shapes layout 'x'"),
        ({"version": 3, "shapes": {"path": "s", "where": 1}}, "unknown shapes setting"),
        ({"version": 3, "query_shapes": []}, "'query_shapes' must be an object"),
    ],
)
def test_bad_shapes_settings_name_the_file(tmp_path, doc, message):
    path = tmp_path / "c.json"
    path.write_text(json.dumps({**doc, "assessment": {"path": "a.cla"}}))
    with pytest.raises(FormatError, match=message) as e:
        Contest.read(path)
    assert str(path) in str(e.value)


def test_older_contest_files_still_read(tmp_path):
    for version in (1, 2):
        path = tmp_path / f"v{version}.json"
        path.write_text(json.dumps({"version": version, "assessment": {"path": "a.cla"}}))
        c = Contest.read(path)
        assert c.shapes is None and c.query_shapes is None


def test_an_image_item_is_its_own_thumbnail(tmp_path):
    """A sketch query (an image only): the image, fitted and centred."""
    path = tmp_path / "sketch1.png"
    im = Image.new("L", (50, 100), 255)
    im.paste(0, (20, 10, 30, 90))  # a black bar
    im.save(path)
    t = thumbnail(ShapeFiles(image=path), SIZE)
    assert t.ok and t.path == path
    # 100 px high -> 96: the bar runs from 10/100 to 90/100 of the height, centred
    col = t.rgba[:, SIZE // 2, :3].max(axis=1)
    dark = np.flatnonzero(col < 60)
    assert abs(dark.min() - 0.1 * SIZE) <= 2 and abs(dark.max() - 0.9 * SIZE) <= 2
    assert t.rgba[SIZE // 2, 2, 3] == 0  # the sides, outside the image, are transparent


def test_a_broken_provided_thumbnail_falls_back_to_the_mesh(tmp_path):
    mesh = tmp_path / "m1.off"
    trimesh.creation.box().export(mesh)
    thumb = tmp_path / "m1_thumb.jpg"
    thumb.write_bytes(b"not a jpeg")
    t = thumbnail(ShapeFiles(mesh=mesh, image=thumb), SIZE)
    assert t.ok and t.path == mesh
    assert (t.rgba == thumbnail(ShapeFiles(mesh=mesh), SIZE).rgba).all()


def test_a_glb_scene_of_several_meshes_is_drawn_whole(tmp_path):
    a = trimesh.creation.box()
    b = trimesh.creation.icosphere(2)
    b.apply_translation([3, 0, 0])
    path = tmp_path / "two.glb"
    trimesh.Scene([a, b]).export(path)
    t = thumbnail(ShapeFiles(mesh=path), SIZE)
    both = trimesh.util.concatenate([a, b])
    got, want = _mask(t.rgba), _expected_mask(both)
    assert t.ok and not ((got != want) & ~_outline(want)).any()
    _fills_frame(got)


def test_the_cache_follows_the_mesh_behind_a_broken_thumbnail(tmp_path):
    cache = ThumbnailCache(tmp_path / "c")
    mesh = tmp_path / "m1.off"
    trimesh.creation.box().export(mesh)
    thumb = tmp_path / "m1_thumb.jpg"
    thumb.write_bytes(b"not a jpeg")
    files = ShapeFiles(mesh=mesh, image=thumb)
    box = thumbnail(files, SIZE, cache)
    assert thumbnail(files, SIZE, cache).cached
    trimesh.creation.icosphere(3).export(mesh)
    st = mesh.stat()
    os.utime(mesh, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))
    sphere = thumbnail(files, SIZE, cache)
    assert not sphere.cached and (_mask(sphere.rgba) != _mask(box.rgba)).sum() > 100
