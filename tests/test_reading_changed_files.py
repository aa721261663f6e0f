"""Files truncated or rewritten while they are scored (f03 of the fourth
round): feature vectors (.npy, an uncompressed .npz's members) and binary
matrices are read by one mechanism (``shrec_eval.reading.formats.file_rows``:
checked reads a block of rows at a time, never a memory mapping, which dies of
SIGBUS when its file shrinks), so a file changed between its opening and its
use is an error naming it, in ``evaluate``, ``evaluate --top-k`` and
``distances`` alike, exit status 2; a file rewritten to the same size too
(its size and time are compared at every read).  The change is made
deterministically, right after the run is read (its rows checked) and before
it is scored, by a patched step; the command line's own cases in a
subprocess (a signal death shows there as a negative status)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from contest_files import write_binary_matrix, write_cla
from shrec_eval import evaluate
from shrec_eval.errors import FormatError
from shrec_eval.reading.formats import embeddings as emb
from shrec_eval.reading.formats.file_rows import FileRows
from shrec_eval.reading.readers import load_assessment, load_run

N, CLASSES, DIM = 60, 6, 128


def _contest(folder: Path) -> Path:
    labels = np.arange(N) % CLASSES
    return Path(
        write_cla(
            folder / "a.cla",
            [(f"c{c}", "0", [str(m) for m in np.flatnonzero(labels == c)]) for c in range(CLASSES)],
        )
    )


def _features(seed: int = 0, n: int = N, dim: int = DIM) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal((n, dim)).astype(np.float32)


def _write(folder: Path, kind: str) -> Path:
    """The run of ``kind``: a .npy, an uncompressed .npz (features and ids),
    a Fortran-order .npy, or a binary matrix."""
    f = _features()
    if kind == "npy":
        np.save(folder / "run.npy", f)
        return folder / "run.npy"
    if kind == "fortran":
        np.save(folder / "run.npy", np.asfortranarray(f))
        return folder / "run.npy"
    if kind == "npz":
        perm = np.random.default_rng(1).permutation(N)
        np.savez(folder / "run.npz", features=f[perm], ids=perm)
        return folder / "run.npz"
    d = np.random.default_rng(2).random((N, N)).astype(np.float32)
    return Path(write_binary_matrix(folder / "run.matrix", d))


def _change(path: Path, how: str) -> None:
    """``path`` truncated, rewritten smaller (as ``cp small.npy run.npy``),
    or rewritten to the same size with other values (a newer time)."""
    size = path.stat().st_size
    if how == "truncate":
        os.truncate(path, size // 2)
    elif how == "rewrite":
        path.write_bytes(path.read_bytes()[: size // 3])
    else:
        st = path.stat()
        path.write_bytes(bytes(size))
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))


# -- the library: read, changed, scored --------------------------------------------------


@pytest.mark.parametrize("how", ["truncate", "rewrite", "same size"])
@pytest.mark.parametrize("kind", ["npy", "npz", "fortran", "matrix"])
@pytest.mark.parametrize("top_k", [None, 5])
def test_a_file_changed_after_it_was_read_is_an_error_naming_it(tmp_path, kind, how, top_k):
    a = load_assessment(_contest(tmp_path))
    path = _write(tmp_path, kind)
    run = load_run(path, a, top_k=top_k)
    whole = evaluate(a, load_run(path, a, top_k=top_k))  # the file as it is: scored
    assert np.isfinite(whole.mean("nn"))
    _change(path, how)
    with pytest.raises(FormatError) as e:
        evaluate(a, run)
    assert e.value.path == str(path)
    if how == "same size":
        assert "changed while it was read" in e.value.message
        assert "modification time" in e.value.message
    else:
        assert "the file ended after" in e.value.message
        assert "truncated or rewritten while it was scored" in e.value.message


def test_distances_of_a_file_changed_after_it_was_read(tmp_path):
    path = _write(tmp_path, "npy")
    dist = emb.distances_matrix(path, metric="euclidean")
    first = b"".join(emb.matrix_pieces(dist))
    assert len(first) == 4 * N * N
    _change(path, "truncate")
    with pytest.raises(FormatError, match="truncated or rewritten") as e:
        b"".join(emb.matrix_pieces(dist))
    assert e.value.path == str(path)


def test_the_messages_say_what_the_file_should_hold(tmp_path):
    a = load_assessment(_contest(tmp_path))
    for kind, words in (
        ("npy", f"the .npy file's header declares {N} x {DIM} float32, {4 * N * DIM:,} bytes"),
        ("npz", f"its member features is {N} x {DIM} float32, bytes "),
        ("matrix", f"a binary float32 matrix of {N} x {N} has {4 * N * N:,} bytes"),
    ):
        path = _write(tmp_path, kind)
        run = load_run(path, a)
        os.truncate(path, 1000)
        with pytest.raises(FormatError) as e:
            evaluate(a, run)
        assert e.value.message.startswith("the file ended after 1,000 bytes while it was read; ")
        assert words in e.value.message, e.value.message


# -- FileRows: the rows of a file, as numpy reads them -----------------------------------


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("dtype", ["<f4", ">f4", "<f2", "<f8"])
def test_file_rows_give_the_arrays_rows(tmp_path, order, dtype):
    f = np.asarray(_features(3, n=97, dim=5), dtype=dtype, order=order)
    np.save(tmp_path / "x.npy", f)
    m = np.load(tmp_path / "x.npy", mmap_mode="r")
    rows = FileRows(tmp_path / "x.npy", m.shape, m.dtype, offset=m.offset, fortran=order == "F")
    assert (rows.shape, rows.dtype, rows.ndim, len(rows)) == (f.shape, f.dtype, 2, 97)
    rng = np.random.default_rng(4)
    keys = [
        slice(None),
        slice(10, 20),
        slice(90, 200),
        slice(5, 60, 7),
        slice(None, None, -3),
        slice(80, 2, -1),
        slice(30, 10),
        3,
        -1,
        np.array([4, 5, 6]),
        np.array([50, 2, 2, 96, 0]),  # repeated and out of order
        rng.permutation(97),  # every row, scattered
        rng.choice(97, 9, replace=False),
        np.array([], dtype=np.int64),
    ]
    for key in keys:
        got = rows[key]
        assert got.dtype == f.dtype and np.array_equal(got, f[key]), key
    assert np.array_equal(np.asarray(rows), f)
    with pytest.raises(IndexError):
        rows[97]
    with pytest.raises(IndexError):
        rows[np.array([0, 97])]


def test_rows_far_apart_are_read_in_runs(tmp_path, monkeypatch):
    """Scattered rows cost one read per run of rows that follow each
    other, not one per row nor the whole span."""
    from shrec_eval.reading.formats import file_rows

    if file_rows._PREADV is None:
        pytest.skip("no os.preadv here: reads are counted through it")
    f = _features(5, n=1000, dim=4)
    np.save(tmp_path / "x.npy", f)
    m = np.load(tmp_path / "x.npy", mmap_mode="r")
    rows = FileRows(tmp_path / "x.npy", f.shape, f.dtype, offset=m.offset)
    reads = []
    real = file_rows._PREADV
    monkeypatch.setattr(
        file_rows, "_PREADV", lambda fd, bufs, at: reads.append(len(bufs[0])) or real(fd, bufs, at)
    )
    want = np.r_[900:905, 10:13, 500]
    assert np.array_equal(rows[want], f[want])
    assert sorted(reads) == [16, 48, 80]  # three runs of 1, 3 and 5 rows


# -- the command line: a subprocess, the file changed by a patched step ------------------

CHANGE_AFTER_READING = textwrap.dedent(
    """
    import os, sys
    from shrec_eval.kernels import distances
    how, args = sys.argv[1], sys.argv[2:]
    real = distances.Distances.__init__

    def init(self, *a, **k):  # the features read and checked: now changed
        real(self, *a, **k)
        size = os.path.getsize(self.path)
        if how == "truncate":
            os.truncate(self.path, size // 2)
        else:  # cp small.npy run.npy: truncated, then a smaller file written
            with open(self.path, "r+b") as fh:
                head = fh.read(size // 4)
                fh.truncate(0)
                fh.write(head)

    distances.Distances.__init__ = init
    sys.argv = ["shrec-eval", *args]
    from shrec_eval.cli.parser import entry_point
    entry_point()
    """
)


@pytest.mark.parametrize(
    ("command", "kind", "how"),
    [
        ("evaluate", "npy", "truncate"),
        ("evaluate --top-k 5", "npz", "rewrite"),
        ("distances", "npy", "rewrite"),
    ],
)
def test_the_command_line_says_which_file_changed(tmp_path, command, kind, how):
    cla = _contest(tmp_path)
    path = _write(tmp_path, kind)
    words = command.split()
    if words[0] == "evaluate":
        args = ["evaluate", str(cla), str(path), "--columns", "nn", *words[1:]]
    else:
        args = ["distances", str(path), "-o", str(tmp_path / "d.matrix")]
    proc = subprocess.run(
        [sys.executable, "-c", CHANGE_AFTER_READING, how, *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2, (proc.returncode, proc.stderr)  # not -7 (SIGBUS)
    assert proc.stderr.startswith(f"shrec-eval: error: {path}: the file ended after ")
    assert "truncated or rewritten while it was scored" in proc.stderr
    assert "Traceback" not in proc.stderr and "unexpected" not in proc.stderr
    assert not (tmp_path / "d.matrix").exists()  # nothing written
