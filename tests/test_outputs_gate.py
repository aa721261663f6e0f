"""The output gate: every output of a command through one gate before
scoring (``gate_outputs``, ``Contest.gate_outputs``): native files never
written through a link to an input, names made safe, distinct and short,
outputs that share a file or folder refused, standard output and
``/dev/stdout`` as streams, names that are not UTF-8.  (Issue 24's round 3,
defects e01, e02, e04, e07, e09, e13, e18; its reading, profile and message
defects are in test_reading_hostile.py, test_reading_contest_file.py,
test_profile_*.py and test_cli_option_messages.py.)"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from contest_files import write_binary_matrix
from hostile import run_cli
from hostile import six_contest as _six
from shrec_eval.contest import AssessmentSource, Contest, RunSource
from shrec_eval.errors import OutputError
from shrec_eval.outputs.atomic import Output, gate_outputs, safe_name, stream_fd


def _snapshot(folder) -> dict:
    """Every regular file under ``folder`` (links not followed): its bytes."""
    out = {}
    for root, _dirs, files in os.walk(folder):
        for f in files:
            p = os.path.join(root, f)
            if os.path.isfile(p) and not os.path.islink(p):
                with open(p, "rb") as fh:
                    out[p] = fh.read()
    return out


def _taxonomy(folder, n=40, synsets=("02691156", "03001627"), split="test"):
    rows = ["id,synsetId,subSynsetId,modelId,split"]
    ids = []
    for i in range(1, n + 1):
        mid = f"{i:06d}"
        syn = synsets[i % len(synsets)]
        rows.append(f"{mid},{syn},{syn},model{i},{split}")
        ids.append(mid)
    (folder / "all.csv").write_text("\n".join(rows) + "\n")
    return folder / "all.csv", ids


def _method(folder, ids, length, seed=0, dataset="test_normal"):
    rng = np.random.default_rng(seed)
    (folder / dataset).mkdir(parents=True)
    for q in ids:
        pick = rng.permutation(len(ids))[:length]
        (folder / dataset / q).write_text(
            "".join(f"{ids[k]} {j / 10}\n" for j, k in enumerate(pick))
        )
    return folder


# -- e01: --native never writes through a link to an input ---------------------------------


def test_e01_native_link_to_an_input_is_refused_before_scoring(tmp_path, capsys):
    cla, m, d = _six(tmp_path)
    write_binary_matrix(tmp_path / "m.matrix", d)
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "micro.txt").symlink_to("../a.cla")
    before = _snapshot(tmp_path)
    code, _ = run_cli(
        [
            "evaluate",
            cla,
            tmp_path / "m.matrix",
            "--profile",
            "psbtable",
            "--native",
            tmp_path / "out",
        ]
    )
    assert code == 2
    assert "link to the input" in capsys.readouterr().err
    assert _snapshot(tmp_path) == before  # the assessment is whole
    # DIR/<run>/ a link to an input rank-list folder (several runs)
    lists = tmp_path / "lists"
    lists.mkdir()
    for q in range(6):
        order = np.argsort(d[q])
        (lists / f"{q}.txt").write_text("".join(f"{t} {d[q, t]:.4f}\n" for t in order))
    (tmp_path / "out2").mkdir()
    (tmp_path / "out2" / "lists").symlink_to("../lists")
    before = _snapshot(tmp_path)
    code, _ = run_cli(
        ["evaluate", cla, lists, m, "--profile", "boli", "--native", tmp_path / "out2"]
    )
    assert code == 2 and sorted(os.listdir(lists)) == [f"{q}.txt" for q in range(6)]
    assert _snapshot(tmp_path) == before


# -- e02 / e18: native names sanitised, distinct, short ---------------------------------------


def test_e02_shapenet_native_names_stay_inside_the_folder(tmp_path):
    tax, ids = _taxonomy(tmp_path)
    _method(tmp_path / "meth", ids, 10)
    (tmp_path / "results").mkdir()
    precious = tmp_path / "precious.summary.csv"
    precious.write_text("someone else's published summary\n")
    code, _ = run_cli(
        ["evaluate", tax, tmp_path / "meth", "--profile", "shapenet17"]
        + ["--native", tmp_path / "results" / "native", "--names", "../../precious"]
    )
    assert code == 0
    assert precious.read_text() == "someone else's published summary\n"
    written = sorted(os.listdir(tmp_path / "results" / "native"))
    assert len(written) == 2 and all("/" not in w and not w.startswith(".") for w in written)
    assert written[0].endswith(".pr.csv") and written[1].endswith(".summary.csv")
    # a '/' in the name no longer fails after scoring
    code, _ = run_cli(
        ["evaluate", tax, tmp_path / "meth", "--profile", "shapenet17"]
        + ["--native", tmp_path / "n2", "--names", "team/method"]
    )
    assert code == 0 and len(os.listdir(tmp_path / "n2")) == 2


def test_e18_safe_names_distinct_stable_and_short():
    assert safe_name("my run") == "my run"  # nothing to change: unchanged
    a, b, c = safe_name("a/b"), safe_name("a:b"), safe_name("a_b")
    assert len({a, b, c}) == 3 and a.startswith("a_b~") and c == "a_b"
    assert safe_name("a/b") == a  # stable
    for bad in ("..", ".", "", "../../x", "x\n\x00y", "r\udcff"):
        s = safe_name(bad)
        assert s not in ("", ".", "..") and "/" not in s and s.isprintable()
    long = safe_name("x" * 300)
    assert len(long.encode()) <= 130 and safe_name("x" * 300 + "y") != long


def test_e18_native_folders_for_clashing_and_long_names(tmp_path):
    cla, m, d = _six(tmp_path)
    np.savetxt(tmp_path / "m2.txt", d, fmt="%.5f")
    code, _ = run_cli(
        ["evaluate", cla, m, tmp_path / "m2.txt", "--profile", "psbtable"]
        + ["--native", tmp_path / "n1", "--names", "a/b,a:b"]
    )
    assert code == 0 and len(os.listdir(tmp_path / "n1")) == 2
    code, _ = run_cli(
        ["evaluate", cla, m, tmp_path / "m2.txt", "--profile", "psbtable"]
        + ["--native", tmp_path / "n2", "--names", "x" * 300 + ",short"]
    )
    assert code == 0
    folders = os.listdir(tmp_path / "n2")
    assert len(folders) == 2 and all(len(f.encode()) <= 255 for f in folders)


# -- e04 / e09: stdout closed or asked for ------------------------------------------------------


def _cli(args, cwd, **kw):
    return subprocess.run(
        [sys.executable, "-m", "shrec_eval", *map(str, args)], cwd=cwd, timeout=120, **kw
    )


def test_e04_closed_stdout_still_writes_every_file(tmp_path):
    read_end, write_end = os.pipe()
    os.close(read_end)  # the reader has gone (| head -1 finished, | true)
    try:
        p = _cli(
            ["demo", "--json", "r.json", "--report", "rep", "--columns", "adr"],
            tmp_path,
            stdout=write_end,
            stderr=subprocess.PIPE,
        )
    finally:
        os.close(write_end)
    assert p.returncode == 141 and p.stderr == b""
    assert json.loads((tmp_path / "r.json").read_bytes())["runs"]
    assert (tmp_path / "rep" / "summary.csv").stat().st_size > 0


def test_e09_dev_stdout_is_appended_and_dash_is_stdout(tmp_path):
    cla, m, _ = _six(tmp_path)
    log = tmp_path / "log.txt"
    log.write_text("yesterday: important results\n")
    with open(log, "ab") as fh:
        p = _cli(["evaluate", cla, m, "--json", "/dev/stdout"], tmp_path, stdout=fh, stderr=-1)
    assert p.returncode == 0 and b"Rank" in p.stderr  # the table beside the JSON
    text = log.read_text()
    assert text.startswith("yesterday: important results\n{")
    doc = json.loads(text.removeprefix("yesterday: important results\n"))
    assert doc["runs"][0]["name"] == "m"
    # --json - : the JSON alone on stdout (the table on stderr), no file named "-"
    p = _cli(["evaluate", cla, m, "--json", "-"], tmp_path, capture_output=True)
    assert p.returncode == 0 and not (tmp_path / "-").exists()
    assert json.loads(p.stdout)["runs"][0]["name"] == "m" and b"Rank" in p.stderr
    # a file that standard output is redirected to is never replaced
    with open(log, "ab") as fh:
        p = _cli(["evaluate", cla, m, "--json", log], tmp_path, stdout=fh, stderr=subprocess.PIPE)
    assert p.returncode == 2 and b"standard output" in p.stderr
    assert log.read_text() == text


def test_e09_stream_outputs_of_the_gate():
    assert [stream_fd(p) for p in ("-", "/dev/stdout", "/dev/stderr", "/dev/fd/3")] == [1, 1, 2, 3]
    assert stream_fd("out.json") is None and stream_fd("/proc/self/fd/1") == 1
    with pytest.raises(OutputError, match="writes a folder"):
        gate_outputs([Output("--report", "-", "folder")], [])


# -- e07 / e08: bytes that are not UTF-8 ----------------------------------------------------------


def test_e07_non_utf8_folder_and_file_names_write_every_output(tmp_path):
    cla, _, _ = _six(tmp_path)
    rl = os.fsdecode(os.path.join(os.fsencode(tmp_path), b"rl\xff"))
    os.mkdir(rl)
    for q in range(6):
        with open(os.path.join(rl, f"{q}.txt"), "w") as fh:
            fh.write(f"{(q + 1) % 6} 0.5\n{(q + 2) % 6} 0.7\n")
    with open(os.path.join(rl, os.fsdecode(b"q\xfe.txt")), "w") as fh:
        fh.write("1 0.5\n")
    code, out = run_cli(
        ["evaluate", cla, rl, "--json", tmp_path / "r.json", "--csv", tmp_path / "csv"]
        + ["--report", tmp_path / "rep"]
    )
    assert code == 0 and "rl\ufffd" in out
    doc = json.loads((tmp_path / "r.json").read_bytes().decode("utf-8"))
    assert doc["runs"][0]["name"] == "rl\ufffd"
    assert "rl\ufffd" in (tmp_path / "rep" / "summary.md").read_text(encoding="utf-8")
    assert "rl\ufffd" in (tmp_path / "csv" / "summary.csv").read_text(encoding="utf-8")
    code, _ = run_cli(["check", cla, rl, "--json", tmp_path / "c.json"])
    assert json.loads((tmp_path / "c.json").read_bytes())["runs"][0]["verdict"] == "problems"


# -- e13: outputs against each other -------------------------------------------------------------


@pytest.mark.parametrize(
    "extra",
    [
        ["--json", "d/summary.csv", "--report", "d"],
        ["--profile", "psbtable", "--json", "d/micro.txt", "--native", "d"],
        ["--json", "d/r.json", "--report", "d"],
        ["--profile", "psbtable", "--report", "d", "--native", "d"],
        ["--csv", "d", "--report", "d"],
    ],
)
def test_e13_outputs_sharing_a_file_or_folder_are_refused_before_scoring(tmp_path, extra, capsys):
    cla, m, _ = _six(tmp_path)
    (tmp_path / "d").mkdir()
    args = [tmp_path / a if a.startswith("d") else a for a in extra]
    code, out = run_cli(["evaluate", cla, m, *args])
    assert code == 2 and out == ""  # refused before anything was scored or printed
    assert os.listdir(tmp_path / "d") == []
    assert "folder" in capsys.readouterr().err


# -- the gate as a library function --------------------------------------------------------------


def test_gate_outputs_is_one_call_for_every_output(tmp_path):
    cla, m, _ = _six(tmp_path)
    outs = gate_outputs(
        [
            Output("--json", tmp_path / "r.json"),
            Output("--report", tmp_path / "rep", "folder"),
            Output("--native", tmp_path / "nat", "tree", ("micro.txt",)),
            Output("--csv", None, "folder"),
        ],
        [cla, m],
    )
    assert [o.option for o in outs] == ["--json", "--report", "--native"]
    with pytest.raises(OutputError, match="replace an input"):
        gate_outputs([Output("session", cla)], [cla, m])
    with pytest.raises(OutputError, match="leaves the folder"):
        gate_outputs([Output("--native", tmp_path / "nat", "tree", ("../x.txt",))], [cla])
    with pytest.raises(OutputError, match="name the same file"):
        gate_outputs([Output("a", tmp_path / "x"), Output("b", tmp_path / "x")], [])
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(OutputError, match="FIFO"):
        gate_outputs([Output("--json", tmp_path / "fifo")], [])
    with pytest.raises(OutputError, match="more than 255 bytes"):
        gate_outputs([Output("--json", tmp_path / ("x" * 300))], [])


def test_a_contest_file_is_never_written_over_one_of_its_inputs(tmp_path):
    cla, m, _ = _six(tmp_path)
    before = cla.read_bytes()
    c = Contest(AssessmentSource(cla), (RunSource(m),))
    with pytest.raises(OutputError, match="replace an input"):
        c.write(cla)
    assert cla.read_bytes() == before
    (tmp_path / "link.json").symlink_to(m)
    with pytest.raises(OutputError, match="replace an input"):
        c.write(tmp_path / "link.json")
    c.write(tmp_path / "s.json")
    assert Contest.read(tmp_path / "s.json").runs[0].path == m


def test_contest_gate_outputs_is_the_services_one_call(tmp_path):
    """Contest.gate_outputs: what a scoring service calls before scoring."""
    from shrec_eval.options import EvalOptions

    cla, m, _ = _six(tmp_path)
    c = Contest(AssessmentSource(cla), (RunSource(m),), EvalOptions(profile="psbtable"))
    assert c.inputs() == [cla, m]
    outs = c.gate_outputs(json=tmp_path / "r.json", native=tmp_path / "nat")
    assert [(o.option, o.kind) for o in outs] == [("--json", "file"), ("--native", "tree")]
    assert outs[1].names[:4] == ("micro.txt", "macro.txt", "class.txt", "model.txt")
    (tmp_path / "nat").mkdir()
    (tmp_path / "nat" / "macro.txt").symlink_to(cla)
    with pytest.raises(OutputError, match="link to the input"):
        c.gate_outputs(native=tmp_path / "nat")
    (tmp_path / "rep").mkdir()
    with pytest.raises(OutputError, match="lies in the --report folder"):
        c.gate_outputs(json=tmp_path / "rep" / "r.json", report=tmp_path / "rep")
    session = Output("the session", tmp_path / "rep" / "s.json")
    with pytest.raises(OutputError, match="lies in the --report folder"):
        c.gate_outputs(report=tmp_path / "rep", more=[session])


def test_gate_takes_paths_as_bytes_that_are_not_utf8(tmp_path):
    cla, m, _ = _six(tmp_path)
    target = os.path.join(os.fsencode(tmp_path), b"r\xe9sultats.json")
    (out,) = gate_outputs([Output("--json", target)], [cla, m])
    assert os.fsencode(out.path) == target
    with pytest.raises(OutputError, match="replace an input"):
        gate_outputs([Output("--json", os.fsencode(cla))], [cla, m])
