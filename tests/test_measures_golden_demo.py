"""tests/golden/demo.json derived without the engine: the demo's files read
by hand here (plain Python and numpy), every query's ranked gains built from
the two .cla files (query class 2, sister classes 1), and the measures of
the independent oracle tests/reference.py.  The golden's per-query values
and micro means must be these; and tests/golden/make_demo_json.py, which
writes the golden, must write it as it is."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest
from reference import reference_query
from shrec_eval.resources import resource_path

DEMO = Path(resource_path("demo"))
GOLDEN_DIR = Path(__file__).parent / "golden"
GOLDEN = json.loads((GOLDEN_DIR / "demo.json").read_text())


def _norm(token: str) -> str:
    """The id normalisation of the readers, restated: an m / model_ prefix
    before digits and the digits' leading zeros go."""
    for prefix in ("model_", "m"):
        if token.startswith(prefix) and token[len(prefix) :].isdigit():
            token = token[len(prefix) :]
    return str(int(token)) if token.isdigit() else token


def _read_cla(path: Path):
    """[(class, parent, [ids])] of a PSB .cla, read token by token."""
    toks = path.read_text().split()
    assert toks[:2] == ["PSB", "1"]
    n_classes = int(toks[2])
    i, out = 4, []
    for _ in range(n_classes):
        name, parent, n = toks[i], toks[i + 1], int(toks[i + 2])
        out.append((name, parent, [_norm(t) for t in toks[i + 3 : i + 3 + n]]))
        i += 3 + n
    return out


def _contest():
    target = _read_cla(DEMO / "target.cla")
    queries = _read_cla(DEMO / "queries.cla")
    items = [m for _, _, ms in target for m in ms]
    parent = {c: p for c, p, _ in target}
    members = {c: ms for c, _, ms in target}
    grades = {}
    for cls, _, qs in queries:
        g = {}
        sisters = [c for c, p, _ in target if p != "0" and p == parent.get(cls) and c != cls]
        for s in sisters:
            g.update({m: 1 for m in members[s]})
        g.update({m: 2 for m in members.get(cls, [])})
        for q in qs:
            grades[q] = g
    return items, [q for _, _, qs in queries for q in qs], grades


def _matrix_lists(m: np.ndarray, items, qids):
    return {q: [items[j] for j in np.argsort(m[r], kind="stable")] for r, q in enumerate(qids)}


def _trec_lists(path: Path):
    lists: dict[str, list[str]] = {}
    for line in path.read_text().splitlines():
        f = line.split()
        if f:
            lst = lists.setdefault(_norm(f[0]), [])
            if _norm(f[2]) not in lst:
                lst.append(_norm(f[2]))
    return lists


def _folder_lists(folder: Path, variant: str):
    lists = {}
    for f in sorted(folder.iterdir()):
        rows = [line.split() for line in f.read_text().splitlines() if line.strip()]
        if variant == "query-line":
            q, rows = rows[0][0], rows[1:]
        else:
            q = f.stem
        k = 1 if variant == "distance-id" else 0
        lists[_norm(q)] = [_norm(r[k]) for r in rows]
    return lists


def _run_lists(name: str, items, qids):
    n = len(items)
    if name == "SpectralNet":
        m = np.array(
            [
                [float(v) for v in line.split()]
                for line in (DEMO / "spectralnet.txt").read_text().splitlines()
            ]
        )
        return _matrix_lists(m, items, qids)
    if name == "VoxelMoments":
        m = np.fromfile(DEMO / "voxelmoments.matrix", dtype="<f4").reshape(len(qids), n)
        return _matrix_lists(m, items, qids)
    files = {
        "ViewHarmonics": ("viewharmonics.trec", None),
        "RandomBaseline": ("randombaseline.trec", None),
        "LightField-200": ("lightfield-200", "query-line"),
        "ShapeHistogram": ("shapehistogram", "id-distance"),
        "SketchDistance": ("sketchdistance", "distance-id"),
    }
    path, variant = files[name]
    if variant is None:
        return _trec_lists(DEMO / path)
    return _folder_lists(DEMO / path, variant)


@pytest.mark.parametrize("run", GOLDEN["runs"], ids=lambda r: r["name"])
def test_golden_values_are_the_reference_measures_of_the_files(run):
    items, qids, grades = _contest()
    assert GOLDEN["assessment"]["collection_size"] == len(items) == 1101
    assert GOLDEN["assessment"]["queries"] == len(qids) == 30
    lists = _run_lists(run["name"], items, qids)
    per_query = {}
    for q in qids:
        g = grades[q]
        gains = [g.get(i, 0) for i in lists.get(q, [])]
        per_query[q] = reference_query(gains, sorted(g.values()), len(items), 2, ranks=(10,))
    assert set(run["per_query"]) == set(qids)
    for q, values in run["per_query"].items():
        for k, v in values.items():
            want = per_query[q][k]
            assert (v is None) if want is None else v == pytest.approx(want, abs=1e-12), (q, k)
    # the micro means of those measures: the mean over the queries that define them
    for k in ("adr", "ap_trec_r", "e_measure", "ndcg@10", "nn"):
        defined = [per_query[q][k] for q in qids if per_query[q][k] is not None]
        assert run["mean"][k] == pytest.approx(sum(defined) / len(defined), abs=1e-12), k


def test_the_script_writes_the_golden_as_it_is():
    sys.path.insert(0, str(GOLDEN_DIR))
    try:
        from make_demo_json import golden_text
    finally:
        sys.path.remove(str(GOLDEN_DIR))
    assert json.loads(golden_text()) == GOLDEN
