"""tests/golden/demo.json is the independent oracle's, not a snapshot of the
engine: tests/golden/make_demo_json.py reads the demo's files by hand (plain
Python and numpy), builds every query's ranked gains from the two .cla files
(query class 2, sister classes 1) and scores them with tests/reference.py;
the means, the four averages and the class means follow docs/measures.md's
definitions.  Every measure the golden holds is the oracle's (none is left to
the engine); only the descriptions (formats, reader settings, data checks) are
the engine's reading.  tests/test_cli.py compares the engine's ``demo --json``
with the file to 1e-9."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from reference import reference_query
from shrec_eval.resources import resource_path

DEMO = Path(resource_path("demo"))
GOLDEN_DIR = Path(__file__).parent / "golden"
GOLDEN = json.loads((GOLDEN_DIR / "demo.json").read_text())

sys.path.insert(0, str(GOLDEN_DIR))
try:
    import make_demo_json as oracle
finally:
    sys.path.remove(str(GOLDEN_DIR))


@pytest.mark.parametrize("run", GOLDEN["runs"], ids=lambda r: r["name"])
def test_golden_values_are_the_reference_measures_of_the_files(run):
    items, qids, _, _ = oracle.contest(DEMO)
    assert GOLDEN["assessment"]["collection_size"] == len(items) == 1101
    assert GOLDEN["assessment"]["queries"] == len(qids) == 30
    ranks = tuple(GOLDEN["options"]["ranks"])
    values, n_rel, classes = oracle.per_query_values(DEMO, run["name"], ranks)
    avgs, class_means, by_class = oracle.averages(values, n_rel, classes)
    # every measure the golden holds is one the oracle computes
    assert set(run["mean"]) == set(reference_query([1, 0], [1], 2, 2, ranks=ranks))
    assert run["mean"] == avgs["micro"] == run["averages"]["micro"]
    assert run["averages"] == avgs
    assert set(run["per_query"]) == set(qids)
    for q, got in run["per_query"].items():
        assert got == {k: values[q][k] for k in got}, q
    assert set(run["per_class"]) == set(by_class)
    for c, got in run["per_class"].items():
        assert got["queries"] == len(by_class[c])
        assert {k: v for k, v in got.items() if k != "queries"} == {
            k: class_means[c][k] for k in got if k != "queries"
        }, c


def test_the_script_writes_the_golden_as_it_is():
    assert json.loads(oracle.golden_text()) == GOLDEN
