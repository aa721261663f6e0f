"""A new measure is one registry entry (docs/development.md, "Where your
change goes"): a toy measure added to ``shrec_eval.scoring.base_measures.BASE_MEASURES``
in a test (its compute function is nn's, so its values are nn's) is seen by
every face that lists or computes measures: the ``measures`` command, the
library's results, ``evaluate``'s JSON, printed table (``--columns``), CSV
headers, and the measure table of docs/measures.md (docs/make_measures_table.py).
The app's Columns menu and column search: tests/test_app_toy_measure.py."""

from __future__ import annotations

import csv
import importlib.util
import io
import json
from pathlib import Path

from hostile import small_contest
from shrec_eval import EvalOptions, evaluate, load_assessment, load_run
from shrec_eval.cli.parser import main
from shrec_eval.scoring import measures as registry

ROOT = Path(__file__).resolve().parents[1]
KEY = "toy_nn"


def cli(argv) -> tuple[int, str]:
    out = io.StringIO()
    code = main([str(a) for a in argv], out=out)
    return code, out.getvalue()


def test_the_measures_command_lists_it(toy_measure):
    code, out = cli(["measures"])
    assert code == 0
    (line,) = [ln for ln in out.splitlines() if ln.startswith(KEY + " ")]
    assert "Toy nearest neighbour" in line and "registered by a test" in line
    assert registry.measure_by_key(KEY).label == "Toy nearest neighbour"
    assert registry.resolve(KEY) == KEY


def test_the_library_computes_it(toy_measure, tmp_path):
    small_contest(tmp_path)
    a = load_assessment(tmp_path / "s.cla")
    r = evaluate(a, load_run(tmp_path / "s.txt", a), EvalOptions())
    assert KEY in r.keys
    assert r.mean(KEY) == r.mean("nn")


def test_json_table_and_csv_carry_it(toy_measure, tmp_path):
    small_contest(tmp_path)
    code, out = cli(
        [
            "evaluate",
            tmp_path / "s.cla",
            tmp_path / "s.txt",
            "--columns",
            f"nn,{KEY}",
            "--json",
            tmp_path / "r.json",
            "--csv",
            tmp_path / "csv",
        ]
    )
    assert code == 0
    assert out.splitlines()[0].split() == ["Rank", "Run", "nn", KEY]  # the printed table
    assert f"{KEY} = Toy nearest neighbour" in out  # and its legend
    (run,) = json.loads((tmp_path / "r.json").read_bytes())["runs"]
    assert run["mean"][KEY] == run["mean"]["nn"]
    assert all(v[KEY] == v["nn"] for v in run["per_query"].values())
    with open(tmp_path / "csv" / "per_query.csv", newline="") as f:
        assert KEY in next(csv.reader(f))
    with open(tmp_path / "csv" / "summary.csv", newline="") as f:
        assert KEY in next(csv.reader(f))


def test_the_docs_measure_table_gains_its_row(toy_measure):
    spec = importlib.util.spec_from_file_location(
        "make_measures_table", ROOT / "docs" / "make_measures_table.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    (row,) = [r for r in mod.table().splitlines() if r.startswith(f"| `{KEY}` ")]
    assert "Toy nearest neighbour" in row and "| all |" in row
