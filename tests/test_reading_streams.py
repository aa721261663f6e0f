"""Issue 11, hangs and memory (repro d09, d10, d11, d12, d14, d19): pipes are
read once and never waited on forever, devices are refused, detection reads
whole lines of any width, every option has a range naming it."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from hostile import S_CLA, S_TXT, run_cli, small_contest
from shrec_eval import EvalOptions, evaluate
from shrec_eval.errors import FormatError
from shrec_eval.reading.readers import detect_run_format, load_assessment, load_run


@pytest.fixture
def small(tmp_path):
    return small_contest(tmp_path)


# -- d09, d12, d19: pipes read once, never waited on forever ------------------------


def _feed(path, data: bytes, delay: float = 0.0):
    """Write ``data`` into a FIFO from a thread (as another program would)."""
    import threading
    import time

    def run():
        time.sleep(delay)
        with open(path, "wb") as fh:
            fh.write(data)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def _finishes(fn, within: float = 60.0):
    """``fn()``'s result, or its exception raised here; fails if it has
    not returned within ``within`` seconds: a hang, not a matter of speed
    (how long these take is measured by tests/benchmarks/bench_streams.py)."""
    out: dict = {}

    def run() -> None:
        try:
            out["value"] = fn()
        except BaseException as exc:  # noqa: BLE001 - raised again in the test
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(within)
    assert not t.is_alive(), f"still running after {within} s: it hangs"
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_d09_fifo_without_writer_is_an_error_not_a_hang(tmp_path):
    import os

    from shrec_eval.errors import FileAccessError
    from shrec_eval.reading.formats.source import open_source

    os.mkfifo(tmp_path / "f1")
    with pytest.raises(FileAccessError, match="no program writing to it"):
        _finishes(lambda: open_source(tmp_path / "f1", "run", wait=0.3))


def test_d09_d12_fifo_with_a_writer_is_read_once(small):
    import os

    for name, data, pos in (("f_run", S_TXT, 2), ("f_cla", S_CLA, 1)):
        os.mkfifo(small / name)
        _feed(small / name, data.encode(), delay=0.2)
        argv = ["evaluate", small / "s.cla", small / "s.txt"]
        argv[pos] = small / name
        code, text = run_cli(argv)
        assert code == 0 and "1.0000" in text


def test_d12_process_substitution_pipe(small):
    """``<(cat s.txt)``: a /dev/fd path to a pipe, read once (detection and
    reader share the bytes)."""
    import os

    a = load_assessment(small / "s.cla")
    r, w = os.pipe()
    os.write(w, S_TXT.encode())
    os.close(w)
    try:
        run = load_run(f"/dev/fd/{r}", a)
        assert run.format == "ASCII matrix"
        assert evaluate(a, run).means["nn"] == 1.0
    finally:
        os.close(r)


def test_pipe_bounded_by_what_the_format_needs(small):
    import os

    from shrec_eval.reading.formats.source import read_pipe

    a = load_assessment(small / "s.cla")
    os.mkfifo(small / "m")
    _feed(small / "m", np.zeros(4 * 4 * 4 + 400, "<f4").tobytes())
    with pytest.raises(
        FormatError, match="more than 64 bytes, more than a binary float32 matrix of 4 x 4"
    ):
        load_run(small / "m", a, format="binary-matrix")
    os.mkfifo(small / "big")
    _feed(small / "big", b"x" * 5000)
    with pytest.raises(FormatError, match="more than 1000 bytes"):
        read_pipe(small / "big", "run", limit=1000)


def test_a_pipe_with_rows_past_the_queries_ignored(small):
    """extra_rows="ignore" (sipiran21's rule) reads the first Q rows of a
    binary matrix from a pipe as from a file: the pipe is not bounded by the
    Q x T matrix (it was refused as "more than 64 bytes"), and the reader
    called with the pipe's path reads it (it raised a TypeError)."""
    import os

    from shrec_eval.reading.formats.matrix import read_binary_matrix

    a = load_assessment(small / "s.cla")
    m = np.arange(6 * 4, dtype="<f4").reshape(6, 4)  # 4 queries, 2 rows more
    reads = (
        lambda p: load_run(p, a, format="binary-matrix", extra_rows="ignore"),
        lambda p: read_binary_matrix(p, a, extra_rows="ignore"),
    )
    for i, read in enumerate(reads):
        os.mkfifo(small / f"m{i}")
        _feed(small / f"m{i}", m.tobytes())
        run = _finishes(lambda: read(small / f"m{i}"))  # noqa: B023 - called at once
        assert np.array_equal(np.asarray(run.matrix), m[:4])
    os.mkfifo(small / "refused")
    _feed(small / "refused", m.tobytes())
    with pytest.raises(FormatError, match="more than 64 bytes"):
        load_run(small / "refused", a, format="binary-matrix", extra_rows="refuse")


def test_d19_classify_never_opens_a_fifo(tmp_path):
    import os

    from shrec_eval.reading.readers import classify_path, sniff

    os.mkfifo(tmp_path / "f")
    # opening a FIFO without a writer would block: these return at once
    assert _finishes(lambda: classify_path(tmp_path / "f")) == "pipe"
    assert _finishes(lambda: sniff(tmp_path / "f")) is None
    assert classify_path("/dev/null") == "device"
    assert classify_path(tmp_path) == "folder"
    assert classify_path(tmp_path / "nope") == "missing"


def test_d19_the_app_says_what_a_fifo_is_without_opening_it(tmp_path):
    import os

    pytest.importorskip("PySide6")
    from shrec_eval.errors import ContestFileError

    from shrec_gui.workers.scoring import classify

    os.mkfifo(tmp_path / "f")
    with pytest.raises(ContestFileError, match="this is a pipe"):
        classify([tmp_path / "f"])
    with pytest.raises(ContestFileError, match="this is a device"):
        classify(["/dev/zero"])


# -- d10: devices are refused at once -----------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["/dev/zero", "TXT", "--assessment-format", "cla"],
        ["CLA", "/dev/urandom", "--run-format", "trec"],
        ["CLA", "/dev/zero", "--run-format", "ascii-matrix"],
        ["CLA", "/dev/zero", "--run-format", "binary-matrix"],
        ["CLA", "/dev/zero"],
    ],
)
def test_d10_devices_are_refused(small, capsys, argv):
    argv = [{"TXT": small / "s.txt", "CLA": small / "s.cla"}.get(a, a) for a in argv]
    code, _ = run_cli(["evaluate", *argv])
    assert code == 2 and "this is a device" in capsys.readouterr().err


# -- d11: detection does not depend on a line fitting a buffer -----------------------


def _wide(tmp_path, n_items=7000, n_queries=3):
    rng = np.random.default_rng(0)
    with open(tmp_path / "t.cla", "w") as f:
        f.write(f"PSB 1\n{n_items // 100} {n_items}\n")
        for k in range(n_items // 100):
            f.write(f"c{k} 0 100\n" + "".join(f"{k * 100 + j}\n" for j in range(100)))
    with open(tmp_path / "q.cla", "w") as f:
        f.write(f"PSB 1\n{n_queries} {n_queries}\n")
        f.write("".join(f"c{k} 0 1\nq{k}\n" for k in range(n_queries)))
    np.savetxt(tmp_path / "wide.txt", rng.uniform(10, 99, (n_queries, n_items)), fmt="%.6f")
    return load_assessment(tmp_path / "t.cla", queries=tmp_path / "q.cla")


def test_d11_rows_longer_than_the_first_read(tmp_path):
    a = _wide(tmp_path)
    assert (tmp_path / "wide.txt").stat().st_size > 3 * (1 << 16)
    assert detect_run_format(tmp_path / "wide.txt", a) == "ascii-matrix"
    assert load_run(tmp_path / "wide.txt", a).matrix.shape == (3, 7000)


def test_d11_a_first_line_longer_than_the_largest_read(tmp_path, monkeypatch):
    import shrec_eval.reading.readers as readers

    a = _wide(tmp_path)
    monkeypatch.setattr(readers, "HEAD", 1000)
    monkeypatch.setattr(readers, "HEAD_MAX", 5000)  # less than one row
    assert detect_run_format(tmp_path / "wide.txt", a) == "ascii-matrix"


# -- d14: every option's range, naming the option ------------------------------------


@pytest.mark.parametrize(
    "option,value",
    [
        ("--curve-length", "1e9"),
        ("--curve-length", "2.5"),
        ("--ranks", "1000000000"),
        ("--ranks", "99999999999999999999"),
        ("--collection-size", "1" + "0" * 30),
        ("--f-beta", "1e308"),
        ("--f-beta", "nan"),
    ],
)
def test_d14_huge_option_values(small, capsys, option, value):
    code, _ = run_cli(["evaluate", small / "s.cla", small / "s.txt", option, value])
    err = capsys.readouterr().err
    assert code == 2 and f"argument {option}" in err and "unexpected" not in err


@pytest.mark.parametrize(
    "option,value",
    [("--resamples", "100000000"), ("--alpha", "2"), ("--confidence", "1"), ("--seed", "-1")],
)
def test_d14_compare_options(small, capsys, option, value):
    argv = ["compare", small / "s.cla", small / "s.txt", small / "s.txt", "--names", "a,b"]
    code, _ = run_cli([*argv, "--measure", "adr", option, value])
    err = capsys.readouterr().err
    assert code == 2 and f"argument {option}:" in err


@pytest.mark.parametrize(
    "kw,says",
    [
        ({"curve_length": 10**9}, "curve length must be from 1 up to 1000000"),
        ({"ranks": (10**9,)}, "ranks must be positive integers up to 1000000"),
        ({"curve_length": 2.5}, "curve length must be a whole number"),
        ({"ranks": (5.7,)}, "ranks must be a whole number"),
        ({"remove_self": "no"}, "remove self must be true or false"),
        ({"collection_size": 10**30}, "collection size must be from 1 up to"),
        ({"f_beta": 1e308}, "beta must be at most"),
    ],
)
def test_d14_d18_library_options_checked(kw, says):
    from shrec_eval.errors import OptionsError

    with pytest.raises(OptionsError, match=says):
        EvalOptions(**kw)
