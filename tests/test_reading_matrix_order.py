"""The matrix order (``listing`` or ``id``) and its data check: the two NN
figures of the ``matrix_order`` check are those the table gives when the
matrix is scored in either reading, by the profile's rules (self-match,
relevance, ties, the queries kept and the average); the ``id`` reading's
error names the ids that are not 0..N-1 and their lines."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from shrec_eval import EvalOptions, evaluate, load_assessment, load_run
from shrec_eval.errors import FormatError
from shrec_eval.profiles import REGISTRY

#: the profiles that score a .cla and a matrix (shapenet17 reads its own folders)
PROFILES = [name for name, p in REGISTRY.items() if p.contest_reader is None]


def _contest(folder: Path, seed: int, n: int = 12) -> tuple[Path, Path]:
    """A .cla of ids 0..n-1 listed by class, out of order (classes of 1 to
    4 models), and a matrix with ties laid out by id (diagonal 0)."""
    rng = np.random.default_rng(seed)
    ids = rng.permutation(n)
    sizes, left = [], n
    while left:
        sizes.append(min(int(rng.integers(1, 5)), left))
        left -= sizes[-1]
    lines = ["PSB 1", f"{len(sizes)} {n}", ""]
    at = 0
    for c, size in enumerate(sizes):
        lines += [f"c{c} 0 {size}", *map(str, ids[at : at + size]), ""]
        at += size
    cla = folder / f"t{seed}.cla"
    cla.write_text("\n".join(lines))
    m = rng.integers(1, 5, (n, n)).astype(float)  # few values: many ties
    np.fill_diagonal(m, 0)
    run = folder / f"m{seed}.txt"
    run.write_text("".join(" ".join(f"{v:g}" for v in row) + "\n" for row in m))
    return cla, run


def _figures(message: str) -> list[float]:
    """Every 'x as read, y read ...' pair of a note's message."""
    pairs = re.findall(r"(\d\.\d{4}|undefined) as read, (\d\.\d{4}|undefined) read", message)
    return [float(v) if v != "undefined" else None for pair in pairs for v in pair]


def _nn(cla: Path, run: Path, profile: str, order: str | None, **options) -> float:
    """The table's NN of the matrix scored in one reading."""
    given = {} if order is None else {"matrix_order": order}
    a = load_assessment(cla, profile=profile, **given)
    return evaluate(a, load_run(run, a), EvalOptions(profile=profile, **options)).mean("nn")


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("average", ["micro", "macro", "proportional"])
@pytest.mark.parametrize("keep_self", [False, True])
@pytest.mark.parametrize("profile", PROFILES)
def test_the_two_nn_of_the_order_check_are_the_tables_nn_of_each_reading(
    tmp_path, profile, keep_self, average, seed
):
    cla, run = _contest(tmp_path, seed)
    p = REGISTRY[profile]
    options = {"average": average, "remove_self": not keep_self}
    fixed = p.reading.get("matrix_order")
    a = load_assessment(cla, profile=profile)
    res = evaluate(a, load_run(run, a), EvalOptions(profile=profile, **options))
    note = next(w for w in res.warnings if w.code == "matrix_order")
    figures = _figures(note.message)
    # the reading the profile scores with, its self-match rule: the other
    # reading scored as a table under the same rules (sipiran21 fixes the
    # order: its listing reading is the default profile's with the query kept)
    removes = p.apply(EvalOptions(**options)).remove_self
    read = a.matrix_order
    other = "listing" if read == "id" else "id"
    if fixed is None:
        want = [res.mean("nn"), _nn(cla, run, profile, other, **options)]
        plain = [_nn(cla, run, profile, order, average=average) for order in (read, other)]
    else:
        shrec = {"average": average, "remove_self": removes}
        want = [res.mean("nn"), _nn(cla, run, "shrec", other, **shrec)]
        plain = [_nn(cla, run, "shrec", order, average=average) for order in (read, other)]
    assert figures[:2] == pytest.approx([round(v, 4) for v in want], abs=1e-12)
    assert (note.other.here, note.other.there) == pytest.approx(want, abs=1e-12)
    assert note.other.setting == "matrix_order" and note.other.value == other
    if removes:
        assert len(figures) == 2
    else:  # the query finds itself first either way: its nearest other item as well
        assert figures[2:] == pytest.approx([round(v, 4) for v in plain], abs=1e-12)


def test_the_note_advises_no_option_the_profile_refuses(tmp_path):
    cla, run = _contest(tmp_path, 4)
    for profile, advice in (
        ("shrec", "(--matrix-order id)"),
        ("sipiran21", "(the sipiran21 profile reads by id)"),
    ):
        a = load_assessment(cla, profile=profile)
        res = evaluate(a, load_run(run, a), EvalOptions(profile=profile))
        note = next(w for w in res.warnings if w.code == "matrix_order")
        assert note.message.endswith(advice)
        assert note.advice == (" " + advice if profile == "shrec" else "")
        assert "--" not in note.worded()  # what the app shows in its own words


# -- the id reading's errors ---------------------------------------------------------


def _cla(path: Path, *groups: list[str]) -> Path:
    n = sum(len(g) for g in groups)
    lines = ["PSB 1", f"{len(groups)} {n}", ""]
    for c, g in enumerate(groups):
        lines += [f"c{c} 0 {len(g)}", *g, ""]
    path.write_text("\n".join(lines), encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "ids, line, says",
    [
        (["0", "1", "2", "5"], 10, "'5' is past 3; 3 is missing"),
        (["0", "1", "-2", "3"], 9, "'-2' is negative; 2 is missing"),
        (["0", "1", "2", "３"], 10, "'３' is written in other digits than 0-9; 3 is missing"),
        (["7", "1", "x", "3"], 5, "'7' is past 3; 'x' (line 9) is not a whole number; 0, 2 are"),
        (["0", "1", "01", "3"], 9, "'01' is 1 again; 2 is missing"),
    ],
)
def test_the_id_reading_names_the_bad_ids_and_their_lines(tmp_path, ids, line, says):
    cla = _cla(tmp_path / "t.cla", ids[:2], ids[2:])
    with pytest.raises(FormatError) as got:
        load_assessment(cla, matrix_order="id", normalize_ids=False)
    text = str(got.value)
    assert got.value.line == line and text.startswith(f"{cla}, line {line}: ")
    assert "needs the item ids to be exactly 0..3: " + says in text
    assert "(0, 1, 2, ...)" not in text


def test_the_id_reading_names_a_bad_query_id_in_the_query_file(tmp_path):
    target = _cla(tmp_path / "t.cla", ["0", "1"], ["2", "3"])
    query = _cla(tmp_path / "q.cla", ["0", "9"], ["1"])
    with pytest.raises(FormatError) as got:
        load_assessment(target, queries=query, matrix_order="id")
    assert got.value.path == str(query) and got.value.line == 6
    assert "the query ids to be exactly 0..2: '9' is past 2; 2 is missing" in str(got.value)


def test_the_id_reading_of_qrels_names_the_line_of_a_bad_id(tmp_path):
    qrels = tmp_path / "q.txt"
    qrels.write_text("0 0 0 1\n0 0 1 1\n1 0 12 1\n1 0 2 1\n")
    with pytest.raises(FormatError) as got:
        load_assessment(qrels, matrix_order="id", collection_size=4)
    assert got.value.path == str(qrels) and got.value.line == 3
    assert "the item ids to be exactly 0..3: '12' is past 3; 3 is missing" in str(got.value)
