"""Issue 24 (hostile inputs, round 3): one test per defect e01-e19, each
rebuilding its scenario with small files in tmp_path: every output through
one gate before scoring, every input through the readers' source, names
and ids kept as bytes, trec_eval's numbers and ids as trec_eval reads them."""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import pytest
from contest_files import distances, write_ascii_matrix, write_binary_matrix
from hostile import run_cli
from shrec_eval import evaluate
from shrec_eval.contest import AssessmentSource, Contest, RunSource
from shrec_eval.errors import FileAccessError, FormatError, OutputError
from shrec_eval.outputs.atomic import Output, gate_outputs, safe_name, stream_fd
from shrec_eval.profiles.shapenet_data import read_taxonomy
from shrec_eval.reading.formats.source import default_name
from shrec_eval.reading.formats.tokens import c_atof, c_atol
from shrec_eval.reading.readers import detect_run_format, load_assessment, load_run

CLA6 = "PSB 1\n2 6\n\na 0 3\n0\n1\n2\n\nb 0 3\n3\n4\n5\n"


def _six(folder):
    """a.cla (2 classes of 3) and m.txt, a 6 x 6 matrix with a clear class structure."""
    (folder / "a.cla").write_text(CLA6)
    lab = np.repeat([0, 1], 3)
    m = np.random.default_rng(0).uniform(1, 2, (6, 6)) - (lab[:, None] == lab[None, :]) * 0.5
    np.fill_diagonal(m, 0)
    np.savetxt(folder / "m.txt", m, fmt="%.4f")
    return folder / "a.cla", folder / "m.txt", m


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


def test_e18_psbtable_every_class_small_gives_nan_without_numpy_warnings(tmp_path):
    (tmp_path / "small.cla").write_text("PSB 1\n3 5\n\na 0 2\n0\n1\n\nb 0 1\n2\n\nc 0 2\n3\n4\n")
    d = np.random.default_rng(1).uniform(1, 2, (5, 5))
    np.fill_diagonal(d, 0)
    write_ascii_matrix(tmp_path / "s.txt", d)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a RuntimeWarning fails the test
        code, _ = run_cli(
            ["evaluate", tmp_path / "small.cla", tmp_path / "s.txt", "--profile", "psbtable"]
            + ["--native", tmp_path / "n3"]
        )
    assert code == 0
    assert (tmp_path / "n3" / "micro.txt").read_text().split() == ["nan"] * 5


# -- e03 / e12 / e16: the input gate for the taxonomy and contest files -------------------------


def test_e03_taxonomy_fifo_and_device_are_refused_not_read(tmp_path):
    fifo = tmp_path / "tax.csv"
    os.mkfifo(fifo)
    start = time.monotonic()
    with pytest.raises(FileAccessError, match="no program writing to it"):
        read_taxonomy(fifo)
    assert time.monotonic() - start < 30  # the pipe timeout, not a hang
    with pytest.raises(FileAccessError, match="a device"):
        read_taxonomy("/dev/zero")


def test_e16_taxonomy_with_a_bom_and_an_empty_dataset(tmp_path):
    tax, ids = _taxonomy(tmp_path, n=6)
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + tax.read_bytes())
    assert read_taxonomy(bom).rows == read_taxonomy(tax).rows
    (tmp_path / "empty" / "test_normal").mkdir(parents=True)
    code, out = run_cli(["evaluate", tax, tmp_path / "empty", "--profile", "shapenet17"])
    assert code == 0 and "without a query file of the test split" in out


def _contest_case(tmp_path, doc):
    (tmp_path / "q.qrels").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n")
    (tmp_path / "r.trec").write_text("1 Q0 d1 1 5 t\n1 Q0 d2 2 4 t\n2 Q0 d3 1 1 t\n")
    s = tmp_path / "s.json"
    s.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    c = Contest.read(s)
    a = c.load_assessment()
    for r in c.runs:
        evaluate(a, r.load(a), c.options)


@pytest.mark.parametrize(
    "doc, needle",
    [
        ({"options": {"pr_levels": 10**9}}, "11 or 21 recall levels"),
        ({"assessment": {"path": "q.qrels", "collection_size": 10**13}}, "collection size"),
        ({"assessment": {"path": "q.qrels", "collection_size": 2**63}}, "collection size"),
        ({"runs": [{"path": "r\u0000.trec"}]}, "'path' must be a string"),
        ('{"runs": [{"path": "\\ud800"}]}', "'path' must be a string"),
        ('{"view": {"a": ' + "[" * 100000 + "]" * 100000 + "}}", "nested too deeply"),
        ('{"options": {"f_beta": NaN}}', "positive number"),
        ({"options": {"relevance_level": 2**70}}, "relevance level"),
    ],
)
def test_e12_contest_file_values_are_checked_and_name_the_file(tmp_path, doc, needle):
    base = {"version": 2, "assessment": {"path": "q.qrels"}, "runs": [{"path": "r.trec"}]}
    if isinstance(doc, dict):
        doc = {**base, **doc}
    else:  # JSON text: the base's members spliced in front
        doc = json.dumps(base)[:-1] + ", " + doc[1:]
        doc = doc.replace('"runs": [{"path": "r.trec"}], "runs"', '"runs"')
    with pytest.raises(FormatError) as e:
        _contest_case(tmp_path, doc)
    assert str(e.value).startswith(f"{tmp_path / 's.json'}: ") and needle in str(e.value)


def test_e12_contest_file_through_a_fifo_times_out(tmp_path):
    os.mkfifo(tmp_path / "c.json")
    with pytest.raises(FileAccessError, match="no program writing"):
        Contest.read(tmp_path / "c.json")


def test_e11_contest_saved_through_a_symlinked_folder_reopens_through_it(tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "links").mkdir()
    (tmp_path / "proj" / "q.qrels").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n")
    (tmp_path / "proj" / "r.trec").write_text("1 Q0 d1 1 5 t\n1 Q0 d2 2 4 t\n2 Q0 d3 1 1 t\n")
    (tmp_path / "proj" / "session.json").touch()
    (tmp_path / "links" / "current.json").symlink_to("../proj/session.json")
    # a decoy beside the link, which must never be read
    (tmp_path / "links" / "q.qrels").write_text("9 0 zz 1\n")
    c = Contest(
        AssessmentSource(tmp_path / "proj" / "q.qrels"),
        (RunSource(tmp_path / "proj" / "r.trec", name="R"),),
    )
    c.write(tmp_path / "links" / "current.json")
    back = Contest.read(tmp_path / "links" / "current.json")
    assert back.load_assessment().query_ids == ("1", "2")
    assert os.path.samefile(back.assessment.path, tmp_path / "proj" / "q.qrels")


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


# -- e05: a near-matrix is never a TREC run -----------------------------------------------------


@pytest.mark.parametrize(
    "row, col, token", [(1, 2, "1.#INF00"), (3, 7, "NA"), (2, 4, "1.#IND00"), (2, 6, "\u0663")]
)
def test_e05_matrix_with_a_bad_token_is_an_error_with_line_and_column(tmp_path, row, col, token):
    sizes = [5, 4, 3]
    lines = ["PSB 1", "3 12", ""]
    k = 0
    for c, s in enumerate(sizes):
        lines += [f"c{c} 0 {s}"] + [str(k + j) for j in range(s)] + [""]
        k += s
    (tmp_path / "a.cla").write_text("\n".join(lines) + "\n")
    a = load_assessment(tmp_path / "a.cla")
    rows = [[f"{v:.6f}" for v in r] for r in distances(12, 12)]
    rows[row][col] = token
    p = tmp_path / "bad.txt"
    p.write_text("".join(" ".join(r) + "\n" for r in rows))
    if token != "\u0663":
        assert detect_run_format(p, a) == "ascii-matrix"
    with pytest.raises(FormatError) as e:
        load_run(p, a, format="ascii-matrix" if token == "\u0663" else None)
    assert e.value.line == row + 1 and e.value.column is not None and e.value.token == token
    code, out = run_cli(["evaluate", tmp_path / "a.cla", p])
    assert code == 2 and out == ""


def test_e05_trec_runs_with_numeric_ids_are_still_trec(tmp_path):
    (tmp_path / "a.cla").write_text(CLA6)
    a = load_assessment(tmp_path / "a.cla")
    p = tmp_path / "r.trec"
    p.write_text("".join(f"{q} Q0 {(q + 1) % 6} 1 0.5 run\n" for q in range(6)))
    assert detect_run_format(p, a) == "trec"


# -- e06: a binary matrix truncated while scored --------------------------------------------


def test_e06_binary_matrix_truncated_after_opening_is_an_error(tmp_path):
    cla, _, d = _six(tmp_path)
    p = write_binary_matrix(tmp_path / "m.matrix", d)
    a = load_assessment(cla)
    run = load_run(p, a)
    os.truncate(p, 30)
    with pytest.raises(FormatError, match="truncated or rewritten"):
        evaluate(a, run)


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


def test_e08_latin1_and_utf8_ids_are_two_ids(tmp_path):
    (tmp_path / "q.qrels").write_bytes(b"1 0 caf\xc3\xa9 1\n1 0 x 1\n")
    (tmp_path / "r.trec").write_bytes(b"1 Q0 caf\xe9 1 3 t\n1 Q0 caf\xc3\xa9 2 2 t\n1 Q0 x 3 1 t\n")
    code, out = run_cli(
        ["evaluate", tmp_path / "q.qrels", tmp_path / "r.trec", "-N", "10"]
        + ["--profile", "trec_eval", "--columns", "ap_trec_r,p@5", "--json", tmp_path / "r.json"]
    )
    assert code == 0
    run = json.loads((tmp_path / "r.json").read_bytes())["runs"][0]
    # trec_eval: (1/2 + 2/3) / 2, three distinct docnos retrieved
    assert run["mean"]["ap_trec_r"] == pytest.approx((1 / 2 + 2 / 3) / 2, abs=1e-12)
    # two grades for the two byte strings are two judgments, not a contradiction
    (tmp_path / "q2.qrels").write_bytes(b"1 0 caf\xc3\xa9 1\n1 0 caf\xe9 0\n1 0 x 1\n")
    a = load_assessment(tmp_path / "q2.qrels", collection_size=10)
    assert a.judgments("1") == {"caf\u00e9": 1, "x": 1}


# -- e10 / e17: shapenet17 methods and row order -------------------------------------------------


def test_e10_two_methods_of_the_same_folder_name_stay_apart(tmp_path):
    tax, ids = _taxonomy(tmp_path)
    _method(tmp_path / "teamA" / "meth", ids, 5, seed=1)
    _method(tmp_path / "teamB" / "meth", ids, 30, seed=2)
    code, _ = run_cli(
        ["evaluate", tax, tmp_path / "teamA" / "meth", tmp_path / "teamB" / "meth"]
        + ["--profile", "shapenet17", "--native", tmp_path / "nat", "--json", tmp_path / "r.json"]
    )
    assert code == 0
    names = [r["name"] for r in json.loads((tmp_path / "r.json").read_bytes())["runs"]]
    assert names == ["meth (teamA)/test_normal", "meth (teamB)/test_normal"]
    summaries = sorted(
        f for _root, _d, files in os.walk(tmp_path / "nat") for f in files if "summary" in f
    )
    assert summaries == ["meth (teamA).summary.csv", "meth (teamB).summary.csv"]


def test_e17_summary_rows_in_javascript_key_order(tmp_path):
    tax, ids = _taxonomy(tmp_path, n=30, synsets=("02691156", "4379243"))
    _method(tmp_path / "meth", ids, 10)
    code, _ = run_cli(
        [
            "evaluate",
            tax,
            tmp_path / "meth",
            "--profile",
            "shapenet17",
            "--native",
            tmp_path / "nat",
        ]
    )
    assert code == 0
    rows = (tmp_path / "nat" / "meth.summary.csv").read_text().splitlines()
    # for (var id in avgs): the array index 4379243 first, then insertion order
    assert [r.split(",")[0] for r in rows] == [
        "class",
        "4379243",
        "microALL",
        "02691156",
        "macroALL",
    ]


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


# -- e14 / e15: trec_eval's numbers and ids ------------------------------------------------------


def test_e14_c_atof_and_atol_read_as_the_c_library_does():
    libc = ctypes.CDLL(ctypes.util.find_library("c") or None)
    libc.atof.restype = ctypes.c_double
    libc.atof.argtypes = [ctypes.c_char_p]
    libc.atol.restype = ctypes.c_long
    libc.atol.argtypes = [ctypes.c_char_p]
    spellings = [
        b"1_000", b"2abc", b"x", b"", b"-0", b"1e", b"1e+", b"1e5x", b".5", b"5.", b"-.5e-3",
        b"0x1p3", b"0x", b"0x.8", b"inf", b"-Infinity", b"infinit", b"1.#INF00", b"+7",
        b"123456789012345678901234567890", b"1_0", b" 3", b"\xd9\xa3", b"1e400", b"4.9e-324",
    ]  # fmt: skip
    for s in spellings:
        assert np.float64(c_atof(s)).tobytes() == np.float64(libc.atof(s)).tobytes(), s
        if s not in (b"123456789012345678901234567890",):
            assert c_atol(s) == libc.atol(s), s
    assert np.isnan(c_atof(b"nan")) and np.isnan(c_atof(b"-nan(123)"))


def test_e14_underscores_under_trec_eval_and_elsewhere(tmp_path, capsys):
    (tmp_path / "q.qrels").write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "r.trec").write_text("1 Q0 b 1 2 t\n1 Q0 a 2 1_000 t\n")
    code, _ = run_cli(
        ["evaluate", tmp_path / "q.qrels", tmp_path / "r.trec", "-N", "5", "--profile", "trec_eval"]
        + ["--json", tmp_path / "t.json"]
    )
    assert code == 0  # atof("1_000") = 1 < 2: b first, a second (trec_eval's AP 0.5)
    doc = json.loads((tmp_path / "t.json").read_bytes())
    assert doc["runs"][0]["mean"]["ap_trec_r"] == 0.5
    (tmp_path / "g.qrels").write_text("1 0 a 1_0\n1 0 b 1\n")
    code, _ = run_cli(["evaluate", tmp_path / "g.qrels", tmp_path / "r.trec", "-N", "5"])
    err = capsys.readouterr().err
    assert code == 2 and "line 1, column 7" in err and "'1_0'" in err
    a = load_assessment(tmp_path / "g.qrels", collection_size=5, c_numbers=True)
    assert a.top_grade == 1  # atol("1_0")
    (tmp_path / "h.cla").write_text("PSB 1\n2 1_0\n")
    with pytest.raises(FormatError, match="whole number"):
        load_assessment(tmp_path / "h.cla")


def test_e15_trec_eval_profile_keeps_padded_ids_apart(tmp_path):
    (tmp_path / "q.qrels").write_text("01 0 a 1\n01 0 b 0\n1 0 c 1\n")
    (tmp_path / "r.trec").write_text("01 Q0 b 1 3 t\n01 Q0 a 2 2 t\n1 Q0 c 1 5 t\n")
    code, _ = run_cli(
        ["evaluate", tmp_path / "q.qrels", tmp_path / "r.trec", "-N", "10"]
        + ["--profile", "trec_eval", "--json", tmp_path / "r.json"]
    )
    assert code == 0
    doc = json.loads((tmp_path / "r.json").read_bytes())
    assert doc["runs"][0]["mean"]["ap_trec_r"] == 0.75  # pytrec_eval: (0.5 + 1) / 2
    (tmp_path / "d.qrels").write_text("1 0 7 1\n1 0 007 0\n1 0 8 1\n")
    (tmp_path / "d.trec").write_text("1 Q0 007 1 5 t\n1 Q0 7 2 4 t\n1 Q0 8 3 3 t\n")
    code, _ = run_cli(
        ["evaluate", tmp_path / "d.qrels", tmp_path / "d.trec", "-N", "10"]
        + ["--profile", "trec_eval", "--json", tmp_path / "d.json"]
    )
    doc = json.loads((tmp_path / "d.json").read_bytes())
    assert code == 0 and doc["runs"][0]["mean"]["ap_trec_r"] == pytest.approx(
        (1 / 2 + 2 / 3) / 2, abs=1e-12
    )
    # the shrec profile merges them, and its error now says why
    with pytest.raises(FormatError, match="'007' and '7' are the same id once normalised"):
        load_assessment(tmp_path / "d.qrels", collection_size=10)


# -- e19: messages -------------------------------------------------------------------------------


def test_e19_messages(tmp_path, capsys):
    cla, m, _ = _six(tmp_path)
    run_cli(["evaluate", "/dev/null", m])
    assert "an assessment was expected" in capsys.readouterr().err
    run_cli(["evaluate", m, m])
    assert "it looks like an ASCII" in capsys.readouterr().err
    code, out = run_cli(
        ["evaluate", cla, m, "--names", "first line\nsecond | line", "--columns", "nn"]
    )
    assert code == 0 and "first line second | line" in out
    assert all(len(line.split()) > 1 for line in out.splitlines() if line.strip())
    code, out = run_cli(
        ["evaluate", cla, m, "--profile", "psbtable", "--keep-self", "--columns", "nn"]
    )
    assert "--keep-self is ignored" in capsys.readouterr().err
    assert "not a column of this table" in out
    assert default_name("/dev/fd/63") == "pipe 63" and default_name("/proc/self/fd/0") == "stdin"
    assert default_name("runs/alice.txt") == "alice"


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


def test_e15_the_trec_eval_reading_follows_the_profile_both_ways(tmp_path):
    """A contest switched to trec_eval and back reads ids normalised again."""
    from dataclasses import replace

    from shrec_eval.options import EvalOptions

    (tmp_path / "q.qrels").write_text("01 0 a 1\n1 0 c 1_0\n")
    c = Contest(AssessmentSource(tmp_path / "q.qrels", collection_size=5))
    te = replace(c, options=EvalOptions(profile="trec_eval"))
    a = te.load_assessment()
    assert a.query_ids == ("01", "1") and a.top_grade == 1  # as written; atol("1_0")
    back = replace(te, options=EvalOptions())
    with pytest.raises(FormatError, match="whole number"):  # 1_0 refused again
        back.load_assessment()
    (tmp_path / "q.qrels").write_text("01 0 a 1\n1 0 c 1\n")
    assert back.load_assessment().query_ids == ("1",)  # normalised again: one query
    assert te.to_dict() == replace(te, options=EvalOptions()).to_dict() | {
        "options": te.options.to_dict()
    }


def test_gate_takes_paths_as_bytes_that_are_not_utf8(tmp_path):
    cla, m, _ = _six(tmp_path)
    target = os.path.join(os.fsencode(tmp_path), b"r\xe9sultats.json")
    (out,) = gate_outputs([Output("--json", target)], [cla, m])
    assert os.fsencode(out.path) == target
    with pytest.raises(OutputError, match="replace an input"):
        gate_outputs([Output("--json", os.fsencode(cla))], [cla, m])


@pytest.mark.parametrize("first, second", [("7", "007"), ("007", "7")])
def test_two_spellings_of_one_qrels_id_named_in_either_order(tmp_path, first, second):
    # ids that cannot change skip the normaliser; two spellings met are
    # still both named, whichever comes first
    (tmp_path / "d.qrels").write_text(f"1 0 {first} 1\n1 0 {second} 2\n")
    with pytest.raises(FormatError, match="'007' and '7' are the same id once normalised"):
        load_assessment(tmp_path / "d.qrels", collection_size=10)
