"""Regenerate tests/golden/demo.json from the bundled demo contest, every
measure by the independent oracle, never by the engine:

    .venv/bin/python tests/golden/make_demo_json.py          # writes demo.json
    .venv/bin/python tests/golden/make_demo_json.py --check  # exit 1 if it differs

The demo's files are read by hand here (plain Python and numpy: the .cla
files token by token, the matrices, TREC runs and rank-list folders line by
line); every query's ranked gains are built from the two .cla files (the
query's class 2, its sister classes 1) and scored by
``tests/reference.py:reference_query`` (one function per spec line).  From
those per-query values, and the definitions of docs/measures.md ("A run's
figure for a measure"), this script computes every number the golden holds:
each run's 59 means, the four averages (micro: the mean over the queries that
define the value; macro: the mean of the class means; proportional and
reciprocal: each query weighed by its number of relevant items R or 1/R),
the class means of the headline keys and five per-query measures.

What is not a measure is a description of the contest and is taken from
``shrec-eval demo --json`` (the engine's reading of it, compared by
tests/test_cli.py): the assessment's kind, path, reader settings, the options,
each run's name, format and reader, and the data checks (code and count).

The oracle computes every measure the golden holds: none is left to the
engine.  tests/test_cli.py compares the engine's ``demo --json`` with the
file to 1e-9 (relative, 1e-12 absolute), and tests/test_measures_golden_demo.py
checks that this script still writes the committed file.
"""

from __future__ import annotations

import io
import json
import math
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
GOLDEN = HERE / "demo.json"
sys.path.insert(0, str(HERE.parent))  # tests/reference.py
from reference import reference_query  # noqa: E402

PER_QUERY = ("adr", "ap_trec_r", "e_measure", "ndcg@10", "nn")
PER_CLASS = (
    "adr",
    "ap_trec_r",
    "dcg_psb",
    "e_measure",
    "ft_psb",
    "ndcg@100",
    "nn",
    "st_psb",
)


# -- the demo's files, read by hand ----------------------------------------------------------


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


def contest(demo: Path):
    """(items, query ids, {query: {item: grade}}, {query: its class})."""
    target = _read_cla(demo / "target.cla")
    queries = _read_cla(demo / "queries.cla")
    items = [m for _, _, ms in target for m in ms]
    parent = {c: p for c, p, _ in target}
    members = {c: ms for c, _, ms in target}
    grades, classes = {}, {}
    for cls, _, qs in queries:
        g = {}
        sisters = [c for c, p, _ in target if p != "0" and p == parent.get(cls) and c != cls]
        for s in sisters:
            g.update({m: 1 for m in members[s]})
        g.update({m: 2 for m in members.get(cls, [])})
        for q in qs:
            grades[q] = g
            classes[q] = cls
    return items, [q for _, _, qs in queries for q in qs], grades, classes


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


def run_lists(demo: Path, name: str, items, qids):
    """{query: [item ids in rank order]} of the demo run ``name``."""
    n = len(items)
    if name == "SpectralNet":
        m = np.array(
            [
                [float(v) for v in line.split()]
                for line in (demo / "spectralnet.txt").read_text().splitlines()
            ]
        )
        return _matrix_lists(m, items, qids)
    if name == "VoxelMoments":
        m = np.fromfile(demo / "voxelmoments.matrix", dtype="<f4").reshape(len(qids), n)
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
        return _trec_lists(demo / path)
    return _folder_lists(demo / path, variant)


# -- the oracle's values and their averages --------------------------------------------------


def per_query_values(demo: Path, name: str, ranks) -> tuple[dict, dict, dict]:
    """({query: {key: value}} by tests/reference.py, {query: R}, {query: class})."""
    items, qids, grades, classes = contest(demo)
    lists = run_lists(demo, name, items, qids)
    values, n_rel = {}, {}
    for q in qids:
        g = grades[q]
        gains = [g.get(i, 0) for i in lists.get(q, [])]  # a missing query: an empty list
        values[q] = reference_query(gains, sorted(g.values()), len(items), 2, ranks=ranks)
        n_rel[q] = sum(1 for v in g.values() if v >= 1)
    return values, n_rel, classes


def weighted_mean(pairs) -> float | None:
    """sum(w v) / sum(w) over the (value, weight) pairs whose value is defined;
    None when no weight remains."""
    defined = [(v, w) for v, w in pairs if v is not None]
    total = math.fsum(w for _, w in defined)
    if not defined or total <= 0:
        return None
    return math.fsum(v * w for v, w in defined) / total


def averages(values: dict, n_rel: dict, classes: dict) -> dict:
    qids = list(values)
    keys = list(values[qids[0]])
    by_class: dict[str, list[str]] = {}
    for q in qids:
        by_class.setdefault(classes[q], []).append(q)
    class_means = {
        c: {k: weighted_mean((values[q][k], 1) for q in qs) for k in keys}
        for c, qs in by_class.items()
    }
    return (
        {
            "micro": {k: weighted_mean((values[q][k], 1) for q in qids) for k in keys},
            "macro": {k: weighted_mean((class_means[c][k], 1) for c in by_class) for k in keys},
            "proportional": {
                k: weighted_mean((values[q][k], n_rel[q]) for q in qids) for k in keys
            },
            "reciprocal": {
                k: weighted_mean((values[q][k], 1 / n_rel[q] if n_rel[q] else 0) for q in qids)
                for k in keys
            },
        },
        class_means,
        by_class,
    )


# -- the file --------------------------------------------------------------------------------


def _descriptions() -> dict:
    """What the golden keeps that is not a measure: ``demo --json``'s own."""
    from shrec_eval.cli.parser import main

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "demo.json"
        code = main(["demo", "--json", str(out)], out=io.StringIO())
        if code != 0:
            raise SystemExit(f"shrec-eval demo failed ({code})")
        return json.loads(out.read_bytes())


def golden() -> dict:
    from shrec_eval.resources import resource_path

    demo = Path(resource_path("demo"))
    doc = _descriptions()
    a = doc["assessment"]
    ranks = tuple(doc["options"]["ranks"])
    runs = []
    for r in doc["runs"]:
        values, n_rel, classes = per_query_values(demo, r["name"], ranks)
        avgs, class_means, by_class = averages(values, n_rel, classes)
        runs.append(
            {
                "averages": avgs,
                "format": r["format"],
                "mean": avgs[doc["options"]["average"]],
                "name": r["name"],
                "per_class": {
                    c: {k: class_means[c][k] for k in PER_CLASS} | {"queries": len(by_class[c])}
                    for c in by_class
                },
                "per_query": {q: {k: v[k] for k in PER_QUERY} for q, v in values.items()},
                "reader": r["reader"],
                "warnings": [{"code": w["code"], "count": w["count"]} for w in r["warnings"]],
            }
        )
    return {
        "assessment": {
            k: a[k] for k in ("collection_size", "kind", "path", "queries", "reader", "top_grade")
        },
        "options": doc["options"],
        "profile": doc["profile"],
        "runs": runs,
    }


def golden_text() -> str:
    return json.dumps(golden(), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    text = golden_text()
    if "--check" in sys.argv[1:]:
        sys.exit(0 if GOLDEN.read_text() == text else 1)
    GOLDEN.write_text(text)
    print(f"wrote {GOLDEN}")
