"""Embeddings files are read under bounds that do not depend on their
honesty, with messages in the tool's words: a .npy header or an .npz
member's header is read before any value, so a shape the file cannot hold,
more rows than the assessment has, Python objects, or a compressed member
that would inflate past its budget is an error naming the file, before any
memory is taken (never a MemoryError); big-endian floats are read; byte ids
are compared as bytes.  `distances` writes only the matrix on standard
output, and says when the rows it writes are a file's own order."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import tracemalloc
import zipfile

import numpy as np
import pytest
from hostile import run_cli
from shrec_eval.errors import FormatError
from shrec_eval.reading.formats import embeddings as emb
from shrec_eval.reading.formats import features
from shrec_eval.reading.readers import load_assessment, load_run

CLA = "PSB 1\n2 4\n\na 0 2\n0\n1\n\nb 0 2\n2\n3\n"
F = np.array([[1, 0], [1, 0.1], [0, 1], [0.1, 1]], dtype=np.float32)


@pytest.fixture
def cla(tmp_path):
    (tmp_path / "a.cla").write_text(CLA)
    return tmp_path / "a.cla"


#: the bomb's rows: 512 MiB of float32 zeros, about half a megabyte compressed
BOMB_ROWS = 2**17


@pytest.fixture(scope="module")
def bomb(tmp_path_factory):
    path = tmp_path_factory.mktemp("bomb") / "bomb.npz"
    d = 1024
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        with z.open("features.npy", "w", force_zip64=True) as fh:
            header = {"descr": "<f4", "fortran_order": False, "shape": (BOMB_ROWS, d)}
            np.lib.format.write_array_header_2_0(fh, header)
            chunk = bytes(4 * d * 4096)
            for _ in range(0, BOMB_ROWS, 4096):
                fh.write(chunk)
    assert path.stat().st_size < 1 << 20
    return path


def _member(z: zipfile.ZipFile, name: str, shape, descr="<f4", data=b"", stored=False):
    """A .npy member whose header declares ``shape``, followed by ``data``."""
    b = io.BytesIO()
    header = {"descr": descr, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(b, header)
    kind = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
    z.writestr(zipfile.ZipInfo(name + ".npy"), b.getvalue() + data, compress_type=kind)


def _error(cla, path, capsys, *more):
    code, _ = run_cli(["evaluate", cla, path, "--columns", "nn", *more])
    err = capsys.readouterr().err
    assert code == 2 and "unexpected" not in err, err
    return err


# -- headers before values ------------------------------------------------------------------


@pytest.mark.parametrize("stored", [False, True])
def test_a_member_declaring_a_huge_shape_is_refused_before_any_allocation(
    tmp_path, cla, capsys, stored
):
    with zipfile.ZipFile(tmp_path / "huge.npz", "w") as z:
        _member(z, "features", (10**6, 10**6), data=bytes(64), stored=stored)
    err = _error(cla, tmp_path / "huge.npz", capsys)
    assert "huge.npz: features is cut short: its header declares 1000000 x 1000000 float32" in err
    assert "(4,000,000,000,000 bytes of values) but 64 bytes follow it" in err


def test_a_compressed_bomb_is_refused_before_it_is_inflated(tmp_path, cla, capsys, bomb):
    """512 MiB of zeros, half a megabyte compressed: refused from its
    header and sizes (by the assessment's rows, or by the inflation budget
    when there is no assessment), in bounded memory and time."""
    tracemalloc.start()
    err = _error(cla, bomb, capsys)
    assert "bomb.npz: features has 131,072 rows, more than the assessment's queries" in err
    code, _ = run_cli(["distances", bomb, "-o", tmp_path / "d.matrix"])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    err = capsys.readouterr().err
    assert code == 2 and "features (131072 x 1024 float32) would inflate " in err, err
    assert f"a compressed member may inflate to {emb.INFLATE_RATIO} times its size" in err
    assert peak < 50 << 20 and not (tmp_path / "d.matrix").exists()


def test_the_inflation_budget_and_the_rows_bound(tmp_path, monkeypatch):
    a = load_assessment_text(tmp_path)
    f = np.zeros((4, 4096), np.float32)
    f[:, 0] = [1, 2, 3, 4]  # compresses well: about 500 times
    np.savez_compressed(tmp_path / "ok.npz", features=f)
    assert load_run(tmp_path / "ok.npz", a).matrix.shape == (4, 4)
    info = zipfile.ZipFile(tmp_path / "ok.npz").getinfo("features.npy")
    ratio = (4 * f.size) // info.compress_size
    monkeypatch.setattr(features, "INFLATE_FLOOR", 0)
    monkeypatch.setattr(features, "INFLATE_RATIO", ratio - 1)
    with pytest.raises(FormatError, match="ok.npz: features .4 x 4096 float32. would inflate"):
        load_run(tmp_path / "ok.npz", a)
    monkeypatch.setattr(features, "INFLATE_RATIO", ratio + 1)
    assert load_run(tmp_path / "ok.npz", a).matrix.shape == (4, 4)
    np.savez(tmp_path / "rows.npz", features=np.ones((9, 2), np.float32), ids=np.arange(9))
    with pytest.raises(FormatError, match="features has 9 rows, more than .* together \\(8\\)"):
        load_run(tmp_path / "rows.npz", a)
    with zipfile.ZipFile(tmp_path / "ids.npz", "w") as z:  # a bomb in the ids
        np.lib.format.write_array(b := io.BytesIO(), F)
        z.writestr("features.npy", b.getvalue())
        _member(z, "ids", (10**9,), descr="<U100")
    with pytest.raises(FormatError, match="ids is cut short: its header declares 1000000000"):
        load_run(tmp_path / "ids.npz", a)


def load_assessment_text(folder):
    (folder / "a.cla").write_text(CLA)
    return load_assessment(folder / "a.cla")


def test_npy_headers_are_read_before_values(tmp_path, cla, capsys):
    with open(tmp_path / "short.npy", "wb") as fh:
        header = {"descr": "<f4", "fortran_order": False, "shape": (4, 2)}
        np.lib.format.write_array_header_1_0(fh, header)
        fh.write(bytes(8))
    err = _error(cla, tmp_path / "short.npy", capsys)
    assert "short.npy: the .npy file is cut short: its header declares 4 x 2 float32" in err
    assert "(a file truncated, or still being written?)" in err
    np.save(tmp_path / "obj.npy", F.astype(object), allow_pickle=True)
    err = _error(cla, tmp_path / "obj.npy", capsys)
    assert "obj.npy: the .npy file holds Python objects (dtype object)" in err
    assert "pickle is never loaded; save the features as numbers" in err
    with zipfile.ZipFile(tmp_path / "objfeat.npz", "w") as z:
        b = io.BytesIO()
        np.lib.format.write_array(b, F.astype(object), allow_pickle=True)
        z.writestr("features.npy", b.getvalue())
    err = _error(cla, tmp_path / "objfeat.npz", capsys)
    assert "objfeat.npz: features holds Python objects" in err and "save the features" in err
    assert "ids as strings" not in err
    np.savez(tmp_path / "objids.npz", features=F, ids=np.array(["0", "1", "2", "3"], object))
    err = _error(cla, tmp_path / "objids.npz", capsys)
    assert "ids holds Python objects" in err and "save ids as strings" in err


def test_a_npy_from_a_pipe_declaring_too_much_is_refused(tmp_path, cla):
    b = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        b, {"descr": "<f8", "fortran_order": False, "shape": (10**6, 10**6)}
    )
    p = subprocess.run(
        [sys.executable, "-m", "shrec_eval", "evaluate", cla, "/dev/stdin"],
        input=b.getvalue() + bytes(100),
        capture_output=True,
        timeout=120,
    )
    assert p.returncode == 2 and b"is cut short: its header declares 1000000 x 1000000" in p.stderr
    assert b"MemoryError" not in p.stderr


# -- types and ids ----------------------------------------------------------------------------


def test_big_endian_floats_are_read(tmp_path, cla):
    a = load_assessment(cla)
    for t in ("f2", "f4", "f8"):
        np.save(tmp_path / "le.npy", F.astype("<" + t))
        np.save(tmp_path / "be.npy", F.astype(">" + t))
        le, be = load_run(tmp_path / "le.npy", a), load_run(tmp_path / "be.npy", a)
        assert np.array_equal(be.matrix[0:4], le.matrix[0:4])
        assert be.format.endswith(f"2-d {np.dtype(t).name}, big-endian, cosine distance)")
    np.savez(tmp_path / "be.npz", features=F.astype(">f8"), ids=np.array([0, 1, 2, 3], ">i8"))
    assert np.array_equal(load_run(tmp_path / "be.npz", a).matrix[0:4], le.matrix[0:4])


def test_byte_ids_are_compared_as_bytes(tmp_path, capsys):
    (tmp_path / "b.cla").write_bytes(b"PSB 1\n2 4\n\na 0 2\ncaf\xe9\nx1\n\nb 0 2\nx2\nx3\n")
    ids = np.array([b"caf\xe9", b"x1", b"x2", b"x3"])
    np.savez(tmp_path / "bytes.npz", features=F, ids=ids)
    code, out = run_cli(["evaluate", tmp_path / "b.cla", tmp_path / "bytes.npz", "--columns", "nn"])
    assert code == 0 and "1.0000" in out
    utf8 = np.array([b"caf\xc3\xa9", b"x1", b"x2", b"x3"])  # another id, as for trec_eval
    np.savez(tmp_path / "utf8.npz", features=F, ids=utf8)
    code, _ = run_cli(["evaluate", tmp_path / "b.cla", tmp_path / "utf8.npz"])
    err = capsys.readouterr().err
    assert code == 2 and "1 collection items of the assessment have no feature row" in err


def test_contest_paths_with_a_nul_are_refused_naming_the_file(tmp_path, cla, capsys):
    np.save(tmp_path / "f.npy", F)
    for run in ({"path": "f.npy", "ids": "i\u0000ds.txt"},):
        doc = {"version": 3, "assessment": {"path": "a.cla"}, "runs": [run]}
        (tmp_path / "c.json").write_text(json.dumps(doc))
        code, _ = run_cli(["evaluate", tmp_path / "c.json"])
        err = capsys.readouterr().err
        assert code == 2 and "c.json: run setting 'ids' must be a string (a file path" in err
    doc = {
        "version": 3,
        "assessment": {"path": "a.cla"},
        "runs": [{"path": "f.npy"}],
        "shapes": {"path": "sh\u0000apes"},
    }
    (tmp_path / "c.json").write_text(json.dumps(doc))
    code, _ = run_cli(["evaluate", tmp_path / "c.json"])
    err = capsys.readouterr().err
    assert code == 2 and "shapes setting 'path' must be a string (a file path" in err


# -- distances: standard output and the order of its rows ------------------------------------------


@pytest.mark.parametrize("target", ["-", "/dev/stdout"])
def test_distances_to_standard_output_writes_only_the_matrix(tmp_path, target):
    np.save(tmp_path / "f.npy", F)
    p = subprocess.run(
        [sys.executable, "-m", "shrec_eval", "distances", tmp_path / "f.npy", "-o", target],
        capture_output=True,
        timeout=120,
    )
    assert p.returncode == 0 and len(p.stdout) == 4 * 4 * 4
    assert np.array_equal(np.frombuffer(p.stdout, "<f4").reshape(4, 4)[0, 0], 0)
    assert p.stderr.decode().startswith(f"{target}: 4 x 4 cosine distances (float32)")
    code, out = run_cli(["distances", tmp_path / "f.npy", "-o", tmp_path / "d.matrix"])
    assert code == 0 and out.startswith(f"{tmp_path / 'd.matrix'}: 4 x 4 cosine")


def test_distances_says_when_the_rows_are_the_files_own_order(tmp_path, cla):
    order = [2, 0, 3, 1]
    np.savez(tmp_path / "f.npz", features=F[order], ids=np.array(order))
    code, out = run_cli(["distances", tmp_path / "f.npz", "-o", tmp_path / "d.matrix"])
    assert code == 0 and "note: the rows and columns are those of f.npz in its own order" in out
    assert "give --assessment to write its queries x its items" in out
    code, out = run_cli(
        ["distances", tmp_path / "f.npz", "--assessment", cla, "-o", tmp_path / "a.matrix"]
    )
    assert code == 0 and "note:" not in out
    code, out = run_cli(["evaluate", cla, tmp_path / "a.matrix", "--columns", "nn"])
    assert code == 0 and "1.0000" in out
    np.save(tmp_path / "f.npy", F)  # rows in item order by contract: nothing to say
    code, out = run_cli(["distances", tmp_path / "f.npy", "-o", tmp_path / "n.matrix"])
    assert code == 0 and "note:" not in out
    (tmp_path / "ids.txt").write_text("2\n0\n3\n1\n")
    np.save(tmp_path / "g.npy", F[order])
    code, out = run_cli(
        ["distances", tmp_path / "g.npy", "--ids", tmp_path / "ids.txt", "-o", tmp_path / "g.m"]
    )
    assert code == 0 and "note: the rows and columns are those of g.npy in its own order" in out


def test_memory_of_a_refused_bomb_in_a_process(tmp_path, bomb):
    """The same bomb as a user meets it: the whole command's peak memory."""
    script = (
        "import resource, subprocess, sys\n"
        "r = subprocess.run(sys.argv[1:], capture_output=True)\n"
        "print(r.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", script, sys.executable, "-m", "shrec_eval"]
        + ["distances", bomb, "-o", tmp_path / "d.matrix"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    code, kib = map(int, p.stdout.split())
    assert code == 2 and kib < 250 * 1024  # (KiB on Linux) 512 MiB when inflated whole
