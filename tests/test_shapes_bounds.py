"""Shape files are read under bounds that do not depend on their honesty
(shrec_eval.shapes.shape_input, .thumbnails, .render): an image decoded only when
its header gives at most MAX_IMAGE_PIXELS pixels, a mesh file read up to
MAX_SHAPE_BYTES, the renderer's memory following the picture and not the
faces' area, the files a mesh names (OBJ materials, GLTF buffers) through
the same gate (never a FIFO waited on), links out of the shapes folder never
followed, and reasons that never quote a file's content.  Each problem is a
placeholder with its reason; thumbnails and reports carry on."""

from __future__ import annotations

import json
import os
import struct
import threading
import tracemalloc
import warnings
import zlib
from pathlib import Path

import numpy as np
import pytest
import trimesh
from hostile import run_cli
from PIL import Image
from shrec_eval.shapes import render
from shrec_eval.shapes.index import ShapeFiles, ShapesSource
from shrec_eval.shapes.shape_input import (
    MAX_IMAGE_PIXELS,
    MAX_SHAPE_BYTES,
    ShapeFileError,
    open_image,
    read_shape_file,
    reason_of,
)
from shrec_eval.shapes.thumbnails import load_mesh, thumbnail

SIZE = 64
TRI = "OFF\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n"
CLA = "PSB 1\n1 2\n\na 0 2\n0\n1\n"


@pytest.fixture(autouse=True)
def _cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("SHREC_EVAL_CACHE_DIR", str(tmp_path / "cache"))


def _png_declaring(path: Path, width: int, height: int, mode: str = "1") -> Path:
    """A small PNG whose header declares ``width`` x ``height`` (a file
    that lies about its size: its pixel data is that of a 1 x 1 image)."""
    Image.new(mode, (1, 1)).save(path)
    data = bytearray(path.read_bytes())
    ihdr = bytes(data[12:16]) + struct.pack(">II", width, height) + bytes(data[24:29])
    data[16:24] = struct.pack(">II", width, height)
    data[29:33] = struct.pack(">I", zlib.crc32(ihdr) & 0xFFFFFFFF)
    path.write_bytes(bytes(data))
    return path


# -- images under a pixel budget ---------------------------------------------------------------


@pytest.mark.parametrize("side", [30000, 8193])
def test_an_image_too_large_is_a_placeholder_decided_from_its_header(tmp_path, side):
    path = _png_declaring(tmp_path / "1.png", side, side)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no DecompressionBombWarning, nor any other
        tracemalloc.start()
        t = thumbnail(ShapeFiles(image=path), SIZE)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert t.problem == (
        f"1.png: image too large: {side} x {side} pixels (at most {MAX_IMAGE_PIXELS:,} are decoded)"
    )
    assert t.rgba.shape == (SIZE, SIZE, 4) and peak < 20 << 20


def test_an_image_within_the_budget_is_decoded(tmp_path):
    path = _png_declaring(tmp_path / "a.png", 8192, 8192)  # the budget exactly: decoded
    with open_image(path.read_bytes()) as im:
        assert im.size == (8192, 8192)
    t = thumbnail(ShapeFiles(image=path), SIZE)  # (its data is that of 1 x 1: broken)
    assert t.problem.startswith("a.png: cannot be read as an image (image file is truncated")
    small = tmp_path / "s.png"
    Image.new("RGB", (300, 100), (0, 200, 0)).save(small)
    t = thumbnail(ShapeFiles(image=small), SIZE)
    assert t.ok and t.rgba[SIZE // 2, SIZE // 2, 1] > 190


def test_a_large_jpeg_is_decoded_at_a_reduced_scale(tmp_path):
    """A JPEG over the budget at full size is decoded at 1/8 (draft): drawn."""
    side = 8200
    path = tmp_path / "big.jpg"
    Image.new("L", (side, side), 128).save(path, quality=50)
    assert side * side > MAX_IMAGE_PIXELS
    with open_image(path.read_bytes(), SIZE) as im:
        assert im.size[0] * im.size[1] <= (side // 8 + 1) ** 2
    t = thumbnail(ShapeFiles(image=path), SIZE)
    assert t.ok and abs(int(t.rgba[SIZE // 2, SIZE // 2, 0]) - 128) < 3


def test_thumbnails_and_reports_carry_on_past_an_image_bomb(tmp_path, capsys):
    shapes = tmp_path / "shapes"
    shapes.mkdir()
    Image.new("RGB", (40, 40), "red").save(shapes / "0.png")
    _png_declaring(shapes / "1.png", 30000, 30000)
    (tmp_path / "a.cla").write_text(CLA)
    (tmp_path / "m.txt").write_text("0 1\n1 0\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, out = run_cli(["thumbnails", "--shapes", shapes, tmp_path / "th"])
        assert code == 0 and "1 (1.png: image too large: 30000 x 30000 pixels" in out
        code, out = run_cli(
            ["evaluate", tmp_path / "a.cla", tmp_path / "m.txt", "--shapes", shapes]
            + ["--report", tmp_path / "rep", "--columns", "nn"]
        )
    assert code == 0 and "image too large: 30000 x 30000" in out
    assert "image too large: 30000 x 30000" in (tmp_path / "rep" / "gallery.html").read_text()
    assert (tmp_path / "rep" / "thumbs" / "1.png").stat().st_size > 0
    assert (tmp_path / "th" / "0.png").stat().st_size > 0
    assert "Warning" not in capsys.readouterr().err


# -- the renderer's memory follows the picture ----------------------------------------------------


def _soup(n_faces: int, seed: int = 0):
    """Large random triangles spanning a sphere: each covers a good part of
    the picture, so their fragments add up to hundreds of layers."""
    rng = np.random.default_rng(seed)
    v = rng.normal(size=(500, 3))
    v /= np.linalg.norm(v, axis=1)[:, None]
    return v, rng.integers(0, 500, (n_faces, 3))


def test_the_renderers_memory_follows_the_picture_not_the_faces_area():
    v, f = _soup(3000)  # about 190 layers at 128 px: 3 M fragments
    tracemalloc.start()
    img = render.render_mesh(v, f, 128)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # all fragments at once took ~300 MB; a pass holds 2**19 of them
    assert peak < 80 << 20, peak
    assert (img[..., 3] == 255).sum() > 0.5 * 128 * 128


def test_the_picture_is_the_same_whatever_the_passes(monkeypatch):
    sphere = trimesh.creation.icosphere(3)
    cases = [(sphere.vertices, sphere.faces, 96), (*_soup(400, 1), 64)]
    whole = [render.render_mesh(v, f, s) for v, f, s in cases]
    monkeypatch.setattr(render, "ROWS_PER_PASS", 37)
    monkeypatch.setattr(render, "FRAGMENTS_PER_PASS", 101)
    for (v, f, s), want in zip(cases, whole):
        assert (render.render_mesh(v, f, s) == want).all()


def test_a_mesh_covering_the_picture_too_many_times_is_a_placeholder(tmp_path, monkeypatch):
    v, f = _soup(2000)
    path = tmp_path / "soup.off"
    trimesh.Trimesh(v, f, process=False).export(path)
    monkeypatch.setattr(render, "MAX_FRAGMENTS", 1 << 20)
    t = thumbnail(ShapeFiles(mesh=path), 128)
    assert not t.ok and "too many large overlapping faces" in t.problem
    assert "at most 1,048,576 covered pixels are drawn" in t.problem
    ok = thumbnail(ShapeFiles(mesh=path), 16)  # the same faces on a smaller picture: drawn
    assert ok.ok


# -- shape files read up to a size limit ------------------------------------------------------


def test_a_shape_file_over_the_size_limit_is_never_read(tmp_path):
    path = tmp_path / "1.off"
    with open(path, "wb") as fh:  # sparse: no disk space
        fh.truncate(MAX_SHAPE_BYTES + 1)
    tracemalloc.start()
    t = thumbnail(ShapeFiles(mesh=path), SIZE)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert t.problem == "1.off: file too large: 256.0 MiB (at most 256 MiB are read)"
    assert peak < 10 << 20
    with open(path, "wb") as fh:
        fh.truncate(1 << 30)
    assert thumbnail(ShapeFiles(mesh=path), SIZE).problem == (
        "1.off: file too large: 1 GiB (at most 256 MiB are read)"
    )


def test_read_shape_file_holds_no_more_than_its_limit(tmp_path):
    path = tmp_path / "a.off"
    path.write_text(TRI)
    assert read_shape_file(path, tmp_path, 1000) == TRI.encode()
    with pytest.raises(ShapeFileError, match="file too large: 36 bytes"):
        read_shape_file(path, tmp_path, 10)


# -- side files and special files: the input gate, never a hang ------------------------------


def _in_time(fn, seconds=30):
    """fn() in a thread; its result, or a failure if it is still running."""
    box = {}

    def go():
        box["v"] = fn()

    th = threading.Thread(target=go, daemon=True)
    th.start()
    th.join(seconds)
    assert not th.is_alive(), "blocked (a FIFO waited on?)"
    return box["v"]


def _gltf(folder: Path, uri: str) -> Path:
    v = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]], np.float32).tobytes()
    i = np.array([0, 1, 2], np.uint32).tobytes()
    doc = {
        "asset": {"version": "2.0"},
        "buffers": [{"uri": uri, "byteLength": 48}],
        "bufferViews": [
            {"buffer": 0, "byteOffset": 0, "byteLength": 36},
            {"buffer": 0, "byteOffset": 36, "byteLength": 12},
        ],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"},
            {"bufferView": 1, "componentType": 5125, "count": 3, "type": "SCALAR"},
        ],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0}, "indices": 1}]}],
        "nodes": [{"mesh": 0}],
        "scenes": [{"nodes": [0]}],
        "scene": 0,
    }
    path = folder / "0.gltf"
    path.write_text(json.dumps(doc))
    return path, v + i


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_side_files_that_are_fifos_are_refused_not_waited_on(tmp_path):
    obj = tmp_path / "obj"
    obj.mkdir()
    os.mkfifo(obj / "pipe.mtl")
    (obj / "0.obj").write_text("mtllib pipe.mtl\nusemtl x\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    t = _in_time(lambda: thumbnail(ShapesSource(obj).index().files("0"), SIZE))
    assert t.ok  # drawn: its materials are never needed (nor read)
    gl = tmp_path / "gltf"
    gl.mkdir()
    os.mkfifo(gl / "buf.bin")
    _gltf(gl, "buf.bin")
    t = _in_time(lambda: thumbnail(ShapesSource(gl).index().files("0"), SIZE))
    assert t.problem == (
        "0.gltf: buf.bin, which it names: this is a FIFO (named pipe), not a file (never read)"
    )
    code, out = _in_time(lambda: run_cli(["thumbnails", "--shapes", gl, tmp_path / "th"]))
    assert code == 0 and "this is a FIFO (named pipe)" in out
    os.mkfifo(gl / "7.off")  # a shape file that is a FIFO is not a shape
    assert ShapesSource(gl).index().files("7") is None


def test_a_gltf_buffer_is_read_through_the_gate(tmp_path):
    shapes, outside = tmp_path / "shapes", tmp_path / "outside"
    shapes.mkdir()
    outside.mkdir()
    _, data = _gltf(shapes, "buf.bin")
    (shapes / "buf.bin").write_bytes(data)
    t = thumbnail(ShapesSource(shapes).index().files("0"), SIZE)
    assert t.ok and (t.rgba[..., 3] > 0).sum() > 100
    (outside / "buf.bin").write_bytes(data)
    (shapes / "buf.bin").unlink()
    (shapes / "buf.bin").symlink_to(outside / "buf.bin")  # a link out of the folder
    t = thumbnail(ShapesSource(shapes).index().files("0"), SIZE)
    assert t.problem.startswith("0.gltf: buf.bin, which it names: a link out of the shapes")
    _gltf(shapes, "../outside/buf.bin")  # a name that leaves the mesh's folder
    t = thumbnail(ShapesSource(shapes).index().files("0"), SIZE)
    assert not t.ok


# -- links out of the shapes folder; reasons quote no content ---------------------------------

SECRET = "Zq7SECRETtoken4411"


def test_links_out_of_the_shapes_folder_are_not_followed(tmp_path):
    private, shapes = tmp_path / "private", tmp_path / "shapes"
    private.mkdir()
    (shapes / "sub").mkdir(parents=True)
    (private / "notes.txt").write_text(f"OFF\n1 1 0\n{SECRET} 0 0\n3 0 0 0\n")
    (private / "good.off").write_text(TRI)
    (shapes / "0.off").write_text(TRI)
    (shapes / "sub" / "real.off").write_text(TRI)
    (shapes / "1.off").symlink_to(private / "notes.txt")
    (shapes / "2.off").symlink_to(private / "good.off")  # readable, but not ours to read
    (shapes / "3.off").symlink_to(shapes / "sub" / "real.off")  # inside: followed
    index = ShapesSource(shapes, "{id}.off").index()
    t1, t2, t3 = (thumbnail(index.files(i), SIZE) for i in "123")
    why = "a link out of the shapes folder (not followed"
    assert why in t1.problem and why in t2.problem and t3.ok
    with pytest.raises(ShapeFileError, match="a link out of the shapes folder"):
        load_mesh(shapes / "2.off", shapes)
    (tmp_path / "a.cla").write_text("PSB 1\n1 4\n\na 0 4\n0\n1\n2\n3\n")
    (tmp_path / "m.txt").write_text("0 1 2 3\n1 0 2 3\n2 3 0 1\n3 2 1 0\n")
    code, out = run_cli(
        ["evaluate", tmp_path / "a.cla", tmp_path / "m.txt", "--shapes", shapes]
        + ["--report", tmp_path / "rep", "--columns", "nn", "--shapes-layout", "{id}.off"]
    )
    assert code == 0 and why in out and SECRET not in out
    assert SECRET not in (tmp_path / "rep" / "gallery.html").read_text()


def _hostile_files(folder: Path) -> dict[str, bytes]:
    """Broken shape files holding the secret where a parser would quote it."""
    s = SECRET.encode()
    return {
        "vertex.off": b"OFF\n1 1 0\n" + s + b" 0 0\n3 0 0 0\n",
        "counts.off": b"OFF\n" + s + b" 1 0\n0 0 0\n",
        "magic.off": s + b"\n3 1 0\n0 0 0\n1 0 0\n0 1 0\n3 0 1 2\n",
        "face.obj": b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 " + s + b"\n",
        "vertex.obj": b"v " + s + b" 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
        "header.ply": b"ply\nformat ascii 1.0\nelement " + s + b" 3\nend_header\n0 0 0\n",
        "prop.ply": b"ply\nformat ascii 1.0\nelement vertex 1\nproperty "
        + s
        + b" x\nend_header\n1\n",
        "solid.stl": b"solid " + s + b"\nfacet normal 0 0 " + s + b"\nendsolid\n",
        "doc.gltf": b'{"asset": {"version": "' + s + b'"}, "buffers": [{"uri": "' + s + b'"}]}',
        "bad.gltf": b'{"asset": {"version": "2.0"}, ' + s + b"}",
        "bad.png": b"\x89PNG\r\n\x1a\n" + s * 4,
        "bad.jpg": b"\xff\xd8\xff\xe0" + s * 4,
        "text.glb": s * 8,
    }


def test_reasons_never_quote_a_files_content(tmp_path):
    for name, data in _hostile_files(tmp_path).items():
        path = tmp_path / name
        path.write_bytes(data)
        kind = "image" if name.endswith((".png", ".jpg")) else "mesh"
        t = thumbnail(ShapeFiles(**{kind: path}, root=tmp_path), SIZE)
        assert t.problem is not None, name
        assert SECRET not in t.problem and "SECRET" not in t.problem, (name, t.problem)
        assert t.problem.startswith(f"{name}: "), t.problem


def test_reason_of_keeps_the_parsers_words_not_the_files():
    exc = ValueError(f"could not convert string to float: '{SECRET}'")
    assert reason_of(exc, b"OFF\n" + SECRET.encode()) == "could not convert string to float"
    assert reason_of(ValueError("not enough values to unpack (expected 3, got 1)"), b"OFF\n") == (
        "not enough values to unpack (expected 3, got 1)"
    )
    # a word of the message that is also in the file: only the error's kind
    assert reason_of(ValueError(f"{SECRET} missing"), SECRET.encode()) == "ValueError"
    assert reason_of(KeyError(SECRET), b"") == "KeyError"  # all quoted: nothing left
    assert reason_of(ValueError(f'bad value "{SECRET}" here'), b"") == "bad value ... here"
