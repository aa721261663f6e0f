"""The sipiran21 profile: SHREC 2021 "Retrieval of Cultural Heritage
Objects" (experiments.py), and the matrix-order reading it needs.

The expected tables in tests/data/sipiran21 were made once by the track's own
experiments.py (run unchanged but for np.float and the old seaborn style name,
which today's numpy and matplotlib removed: see that folder's README), on
real submissions of both challenges (a few of them, xz-compressed) and on
generated contests with ties and classes of 1 and 2.
"""

from __future__ import annotations

import io
import lzma
import math
import shutil
from pathlib import Path

import pytest
from shrec_eval import EvalOptions, evaluate, load_assessment, load_run
from shrec_eval.cli.parser import main as cli_main

DATA = Path(__file__).parent / "data" / "sipiran21"
CONTESTS = sorted(
    [p for p in (DATA / "real").iterdir() if p.is_dir()]
    + [p for p in (DATA / "generated").iterdir() if p.is_dir()]
)


def _contest(src: Path, tmp: Path) -> tuple[Path, Path, list[Path]]:
    """The contest's files in ``tmp``, the runs decompressed, named as the
    script reads them (METHOD.RUN.EXT)."""
    tmp.mkdir(exist_ok=True)
    for name in ("target.cla", "query.cla"):
        shutil.copy(src / name, tmp / name)
    runs = tmp / "runs"
    runs.mkdir()
    for f in sorted((src / "runs").iterdir()):
        if f.suffix == ".xz":
            (runs / f.stem).write_bytes(lzma.decompress(f.read_bytes()))
        else:
            shutil.copy(f, runs / f.name)
    return tmp / "target.cla", tmp / "query.cla", sorted(runs.iterdir())


def _cli(*args: str) -> tuple[int, str]:
    out = io.StringIO()
    code = cli_main(["evaluate", *map(str, args)], out=out)
    return code, out.getvalue()


@pytest.mark.parametrize("src", CONTESTS, ids=lambda p: f"{p.parent.name}-{p.name}")
def test_native_tables_are_the_scripts_byte_for_byte(tmp_path, src):
    target, query, runs = _contest(src, tmp_path)
    expected = src / "expected"
    for average, suffix in (("micro", ""), ("macro", ".macro")):
        out = tmp_path / f"native-{average}"
        code, _ = _cli(
            target, "--queries", query, *runs, "--profile", "sipiran21",
            "--average", average, "--native", out,
        )  # fmt: skip
        assert code == 0
        for name in ("table.txt", "table.tex"):
            want = (expected / name.replace(".", f"{suffix}.", 1)).read_bytes()
            assert (out / name).read_bytes() == want, (average, name)
    # the class tables (the script's --granularity class): each class's means
    classes = sorted(p.name for p in expected.glob("table_*"))
    assert classes
    for name in classes:
        assert (tmp_path / "native-micro" / name).read_bytes() == (expected / name).read_bytes()


def _tiny(tmp: Path) -> tuple[Path, Path, Path]:
    """Targets 0..3 (A = 2, 0; B = 3, 1, listed out of id order), queries 0, 1
    (A = 1, B = 0); the matrix's rows and columns are the ids."""
    (tmp / "target.cla").write_text("PSB 1\n2 4\n\nA 0 2\n2\n0\n\nB 0 2\n3\n1\n")
    (tmp / "query.cla").write_text("PSB 1\n2 2\n\nA 0 1\n1\n\nB 0 1\n0\n")
    (tmp / "T.run1.txt").write_text("0.1 0.2 0.2 0.5\n0.3 0.9 0.1 0.4\n")
    return tmp / "target.cla", tmp / "query.cla", tmp / "T.run1.txt"


def test_the_scripts_measures_by_hand(tmp_path):
    target, query, run_path = _tiny(tmp_path)
    a = load_assessment(target, profile="sipiran21", queries=query)
    assert a.query_ids == ("0", "1") and a.item_ids == ("0", "1", "2", "3")
    res = evaluate(a, load_run(run_path, a), EvalOptions(profile="sipiran21"))
    # query 0 (B = {1, 3}): t0 0.1, t1 0.2, t2 0.2 (tie: the lower id first), t3 0.5:
    # hits at 0-based ranks 1 and 3, C = 2
    # query 1 (A = {0, 2}): t2 0.1, t0 0.3, t3 0.4, t1 0.9: hits at ranks 0 and 1
    want = {
        "0": {
            "nn": 0.0,
            "ft_s21": (1 + 1) / 2,  # one hit in the first C, plus 1
            "st_s21": (2 + 1) / 4,  # the last hit at rank 2C - 1: set
            "ap_trec_r": (1 / 2 + 2 / 4) / 2,
            "ndcg_s21": (1 / math.log2(3) + 1 / math.log2(5)) / (1 + 1 / math.log2(3)),
            "ft_psb": 1 / 2,
            "st_psb": 1.0,
        },
        "1": {
            "nn": 1.0,
            "ft_s21": (2 + 1) / 2,  # above 1: experiments.py's +1
            "st_s21": 1.0,  # every hit before rank 2C: left at its initial 1.0
            "ap_trec_r": 1.0,
            "ndcg_s21": 1.0,
            "ft_psb": 1.0,
            "st_psb": 1.0,
        },
    }
    for q, values in want.items():
        for key, v in values.items():
            assert res.value(q, key) == pytest.approx(v, abs=1e-15), (q, key)
    assert res.mean("ft_s21") == pytest.approx(1.25)


def _row(text: str) -> list[str]:
    return text.splitlines()[2].split()[2:]  # the first run's values


def test_listing_and_id_readings_differ_and_the_note_gives_both(tmp_path):
    target, query, run_path = _tiny(tmp_path)
    args = (target, "--queries", query, run_path, "--columns", "nn,ap_trec_r")
    code, listing = _cli(*args)
    assert code == 0
    code, by_id = _cli(*args, "--matrix-order", "id")
    assert code == 0
    assert _row(listing) != _row(by_id)
    # each reading names itself and gives the NN the other one scores
    nn_listing, nn_id = _row(listing)[0], _row(by_id)[0]
    assert f"NN {nn_listing} as read, {nn_id} read by id (--matrix-order id)" in listing
    assert f"NN {nn_id} as read, {nn_listing} read in listing order" in by_id


def test_the_default_reading_of_the_real_contest_warns_with_both_nn(tmp_path):
    """The shape challenge lists its ids by class: read in listing order, PCI
    run 1 scores other numbers than the track published (its NN 0.6751, mAP
    0.7496), and the note says which reading gives which NN."""
    target, query, runs = _contest(DATA / "real" / "shape", tmp_path)
    pci = next(r for r in runs if r.name == "PCI.run1.txt")
    args = (target, "--queries", query, pci, "--columns", "nn,ap_trec_r")
    code, listing = _cli(*args)
    assert code == 0 and _row(listing) != ["0.6751", "0.7496"]
    assert f"NN {_row(listing)[0]} as read, 0.6751 read by id (--matrix-order id)" in listing
    code, by_id = _cli(*args, "--matrix-order", "id")
    assert _row(by_id) == ["0.6751", "0.7496"]
    # the culture challenge lists its ids in order: one reading, no note
    target, query, runs = _contest(DATA / "real" / "culture", tmp_path / "c")
    dne = next(r for r in runs if r.name == "DNE.run1.txt")
    code, text = _cli(target, "--queries", query, dne, "--columns", "nn,ap_trec_r")
    assert _row(text) == ["0.7831", "0.7457"] and "matrix-order" not in text


def test_extra_rows_are_refused_with_counts_and_ignored_by_the_profile(tmp_path):
    target, query, runs = _contest(DATA / "real" / "shape", tmp_path)
    doubled = next(r for r in runs if r.name == "MVResNet.run1.txt")  # the matrix twice
    code = cli_main(
        ["evaluate", str(target), "--queries", str(query), str(doubled), "--matrix-order", "id"],
        out=io.StringIO(),
    )
    assert code == 2
    code, text = _cli(target, "--queries", query, doubled, "--profile", "sipiran21")
    assert code == 0
    assert "the matrix has 554 rows for 277 queries: the rows past the queries are ignored" in text


def test_a_missing_row_is_refused_with_counts(tmp_path, capsys):
    target, query, run_path = _tiny(tmp_path)
    run_path.write_text("0.1 0.2 0.2 0.5\n")
    code, _ = _cli(target, "--queries", query, run_path, "--profile", "sipiran21")
    assert code == 2
    assert "the file has 1 rows; 2 were expected" in capsys.readouterr().err


def test_native_refuses_what_the_script_cannot_do(tmp_path, capsys):
    target, query, run_path = _tiny(tmp_path)
    named = tmp_path / "run.txt"  # not METHOD.RUN.EXT: the script cannot read its name
    shutil.copy(run_path, named)
    code, _ = _cli(target, "--queries", query, named, "--profile", "sipiran21",
                   "--native", tmp_path / "n")  # fmt: skip
    assert code == 2 and "named METHOD.RUN.EXT" in capsys.readouterr().err
    code, _ = _cli(target, "--queries", query, run_path, "--profile", "sipiran21",
                   "--average", "proportional", "--native", tmp_path / "p")  # fmt: skip
    assert code == 2 and "experiments.py has no proportional average" in capsys.readouterr().err


def test_classes_matched_by_position_with_a_note(tmp_path):
    src = DATA / "generated" / "by_position_extra_rows"
    target, query, runs = _contest(src, tmp_path)
    code, text = _cli(target, "--queries", query, *runs, "--profile", "sipiran21")
    assert code == 0
    assert "classes are matched by their place in the files" in text
    assert "Cat = cat" in text
    # under the default profile the classes are matched by name: Cat has no target
    code, _ = _cli(target, "--queries", query, runs[0], "--matrix-order", "id")
    assert code == 0
