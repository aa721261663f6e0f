"""Issue 11, files destroyed (repro d04, d05, d13, d16, d17): an output never
replaces an input, a symlink is written through, FIFOs and devices are refused,
a report folder is swapped in whole, a signal leaves no temporary file."""

from __future__ import annotations

import json

import pytest
from hostile import run_cli, small_contest


@pytest.fixture
def small(tmp_path):
    return small_contest(tmp_path)


# -- d05, d17: an output never replaces an input -------------------------------------


@pytest.mark.parametrize("option", ["--json", "--csv", "--report"])
def test_d05_output_equal_to_an_input_is_refused(small, option):
    before = (small / "s.txt").read_bytes(), (small / "s.cla").read_bytes()
    for target in ("s.txt", "s.cla"):
        code, _ = run_cli(["evaluate", small / "s.cla", small / "s.txt", option, small / target])
        assert code == 2
    assert ((small / "s.txt").read_bytes(), (small / "s.cla").read_bytes()) == before


def test_d05_message_names_the_option(small, capsys):
    run_cli(["evaluate", small / "s.cla", small / "s.txt", "--json", small / "s.txt"])
    err = capsys.readouterr().err
    assert "--json would replace an input" in err and "s.txt" in err


def test_d17_report_inside_or_around_a_rank_list_folder_is_refused(small, capsys):
    lf = small / "lf"
    lf.mkdir()
    for q, lst in (("0", "1 0.1\n2 0.5\n3 0.9\n"), ("1", "0 0.1\n2 0.5\n3 0.9\n")):
        (lf / q).write_text(lst)
    before = sorted(p.name for p in lf.iterdir())
    for target, says in ((lf, "would replace an input"), (lf / "rep", "inside the input folder"),
                         (small, "holds the input")):  # fmt: skip
        code, _ = run_cli(["evaluate", small / "s.cla", lf, "--report", target])
        assert code == 2 and says in capsys.readouterr().err
    assert sorted(p.name for p in lf.iterdir()) == before


# -- d04: symlinks written through, FIFOs and devices refused -----------------------


def test_d04_symlink_is_written_through(small):
    real = small / "real"
    real.mkdir()
    (real / "r.json").write_text("OLD")
    (small / "link.json").symlink_to(real / "r.json")
    code, _ = run_cli(["evaluate", small / "s.cla", small / "s.txt", "--json", small / "link.json"])
    assert code == 0
    assert (small / "link.json").is_symlink()
    assert json.loads((real / "r.json").read_text())["runs"][0]["name"] == "s"


def test_d04_fifo_and_device_targets_are_refused(small, capsys):
    import os

    os.mkfifo(small / "myfifo")
    (small / "link").symlink_to(small / "myfifo")  # as /dev/stdout in a pipeline
    for target, says in (
        (small / "myfifo", "FIFO"),
        (small / "link", "FIFO"),
        ("/dev/null", "device"),
    ):
        code, _ = run_cli(["evaluate", small / "s.cla", small / "s.txt", "--json", target])
        assert code == 2
        assert says in capsys.readouterr().err
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")
    import stat

    assert stat.S_ISFIFO(os.stat(small / "myfifo").st_mode)


def test_d16_write_errors_name_the_target(small, capsys):
    (small / "adir").mkdir()
    for target, says in (
        (small / "nodir" / "r.json", "does not exist"),
        (small / "s.cla" / "r.json", "Not a directory"),
        (small / "adir", "this is a folder"),
    ):
        code, _ = run_cli(["evaluate", small / "s.cla", small / "s.txt", "--json", target])
        err = capsys.readouterr().err
        assert code == 2 and says in err and ".tmp" not in err and str(target) in err


def test_report_folder_replaced_whole_and_foreign_files_kept(small, capsys):
    rep = small / "rep"
    rep.mkdir()
    for f in ("summary.csv", "per_query.csv", "summary.md", "summary.tex", "index.html"):
        (rep / f).write_text(f"OLD {f}")
    code, _ = run_cli(["evaluate", small / "s.cla", small / "s.txt", "--report", rep])
    assert code == 0
    assert all(not (rep / f).read_text().startswith("OLD") for f in ("summary.csv", "index.html"))
    assert [p.name for p in small.iterdir() if p.name.startswith(".")] == []
    (rep / "notes.txt").write_text("mine")
    code, _ = run_cli(["evaluate", small / "s.cla", small / "s.txt", "--report", rep])
    assert code == 2 and "holds other files" in capsys.readouterr().err
    assert (rep / "notes.txt").read_text() == "mine"


# -- d13: interrupted outputs leave the old files whole and no temporary file -------

_BLOCKING_WRITER = r"""
import os, sys, time
from pathlib import Path
import shrec_eval.outputs.atomic as atomic
MARKER = Path(sys.argv[1])
real_fsync = os.fsync
def slow_fsync(fd):
    real_fsync(fd)
    MARKER.touch()  # tell the test: a file of the output is half done
    time.sleep(30)
atomic.os.fsync = slow_fsync
sys.argv = ["shrec-eval", *sys.argv[2:]]
from shrec_eval.cli.parser import entry_point
entry_point()
"""


@pytest.mark.parametrize("sig,code", [("SIGINT", 130), ("SIGTERM", 143)])
@pytest.mark.parametrize("option", ["--report", "--json"])
def test_d13_signal_mid_write_leaves_old_output_and_no_temp(small, sig, code, option):
    import os
    import signal
    import subprocess
    import sys
    import time

    out = small / ("rep" if option == "--report" else "res.json")
    if option == "--report":
        out.mkdir()
        for f in ("summary.csv", "per_query.csv", "summary.md", "summary.tex", "index.html"):
            (out / f).write_text(f"OLD {f}")
    else:
        out.write_text("OLD")
    marker = small / "marker"
    p = subprocess.Popen(
        [
            sys.executable,
            "-c",
            _BLOCKING_WRITER,
            marker,
            "evaluate",
            small / "s.cla",
            small / "s.txt",
            option,
            out,
        ],  # fmt: skip
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not marker.exists() and time.monotonic() < deadline and p.poll() is None:
        time.sleep(0.02)
    assert marker.exists()
    os.kill(p.pid, getattr(signal, sig))
    assert p.wait(timeout=30) == code
    if option == "--report":
        assert {f.name: f.read_text() for f in out.iterdir()} == {
            f: f"OLD {f}"
            for f in ("summary.csv", "per_query.csv", "summary.md", "summary.tex", "index.html")
        }
    else:
        assert out.read_text() == "OLD"
    leftovers = [f.name for f in small.iterdir() if f.name.startswith(".")]
    assert leftovers == []
