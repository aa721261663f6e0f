"""`thumbnails` with a warm cache copies the cached PNG files as they are
(never decoded and encoded again) and flushes no file to disk one by one
(thumbnails can be made again); a cold run encodes each picture once, for
the cache and OUT alike.  Its speed is measured by
tests/benchmarks/bench_thumbnails.py --command, not here."""

from __future__ import annotations

import os

import pytest
import trimesh
from hostile import run_cli
from shrec_eval.shapes import thumbnails
from shrec_eval.shapes.index import ShapeFiles
from shrec_eval.shapes.thumbnails import ThumbnailCache, thumbnail, thumbnail_png

N = 6


@pytest.fixture
def shapes(tmp_path, monkeypatch):
    monkeypatch.setenv("SHREC_EVAL_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "shapes"
    folder.mkdir()
    for i in range(N):
        trimesh.creation.box(extents=(1, 1 + 0.4 * i, 1)).export(folder / f"{i}.off")
    return folder


def _count(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_warm_cache_is_copied_as_bytes_with_no_flush_per_file(shapes, tmp_path, monkeypatch):
    fsyncs = _count(monkeypatch, os, "fsync")
    encodes = _count(monkeypatch, thumbnails, "encode_png")
    code, _ = run_cli(["thumbnails", "--shapes", shapes, tmp_path / "a"])
    assert code == 0 and len(encodes) == N and not fsyncs  # one encoding per picture
    cached = {p.read_bytes() for p in (tmp_path / "cache").rglob("*.png")}
    assert len(cached) == N

    def never(*args, **kwargs):
        raise AssertionError("a cached thumbnail decoded or encoded again")

    monkeypatch.setattr(thumbnails, "encode_png", never)
    monkeypatch.setattr(thumbnails, "decode_png", never)
    code, out = run_cli(["thumbnails", "--shapes", shapes, tmp_path / "b"])
    assert code == 0 and out.startswith(f"{N} thumbnails") and not fsyncs
    written = {p.read_bytes() for p in (tmp_path / "b").iterdir()}
    assert written == cached
    assert written == {p.read_bytes() for p in (tmp_path / "a").iterdir()}


def test_a_torn_or_foreign_cache_entry_is_drawn_again(shapes, tmp_path):
    cache = ThumbnailCache(tmp_path / "c")
    files = ShapeFiles(mesh=shapes / "1.off", root=shapes)
    png, problem = thumbnail_png(files, 48, cache)
    assert problem is None
    (entry,) = (tmp_path / "c").rglob("*.png")
    assert entry.read_bytes() == png
    for broken in (png[:-5], png[:40], b"", png.replace(b"IHDR", b"IHDX")):
        entry.write_bytes(broken)
        again, problem = thumbnail_png(files, 48, cache)
        assert problem is None and again == png and entry.read_bytes() == png
    # another size is another entry; the picture decodes to thumbnail()'s
    assert thumbnail_png(files, 32, cache)[0] != png
    assert (thumbnails.decode_png(png) == thumbnail(files, 48).rgba).all()


def test_a_placeholder_is_never_cached(shapes, tmp_path):
    (shapes / "9.off").write_text("OFF\n1 1 0\n")
    cache = ThumbnailCache(tmp_path / "c")
    png, problem = thumbnail_png(ShapeFiles(mesh=shapes / "9.off"), 48, cache)
    assert problem.startswith("9.off: cannot be read") and png.startswith(b"\x89PNG")
    assert not list((tmp_path / "c").rglob("*.png"))
    assert thumbnail_png(None, 48, cache)[1] == "no shape file"
