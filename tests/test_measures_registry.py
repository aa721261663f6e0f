"""The measure registry: the stable keys of docs/measures.md ("Every
measure"), each declared once, and core's independence from Qt."""

import subprocess
import sys

import pytest
from helpers import gains_contest
from shrec_eval import CURVES, MEASURES, EvalOptions, evaluate, expand, measure_by_key

SPEC_KEYS = (
    [
        f"{m}_{v}"
        for m in ("tp", "fp", "tn", "fn", "acc", "prec", "rec", "ft", "st", "ap", "ap_trec")
        for v in ("hr", "r")
    ]
    + ["adr"]
    + [f"{m}@{k}" for m in ("p", "r", "cg", "dcg", "ncg", "ndcg") for k in (5, 10, 25, 50, 100)]
    + ["nn", "ft_psb", "st_psb", "e_measure", "dcg_psb"]
    + ["map@r"]  # metric learning's MAP@R (Musgrave et al. 2020), beside the spec's
)


def test_default_keys_are_exactly_the_spec_keys():
    keys = [m.key for m in expand(EvalOptions().ranks)]
    assert sorted(keys) == sorted(SPEC_KEYS)
    assert len(set(keys)) == len(keys)


def test_every_measure_is_described():
    for m in MEASURES:
        assert m.label and m.definition and m.family
        assert "{C}" not in m.definition and "{what}" not in m.definition
    labels = [c.label for c in expand((5, 10))]
    assert len(set(labels)) == len(labels)
    assert measure_by_key("ndcg@10").label == "NDCG@10"
    assert measure_by_key("ap_hr").label == "Average Precision (highly relevant)"
    assert "Ch" in measure_by_key("rec_hr").definition
    assert "Cr" in measure_by_key("rec_r").definition
    assert measure_by_key("fp_r").higher_is_better is False
    with pytest.raises(KeyError):
        measure_by_key("nope")


def test_ranks_option_drives_the_columns():
    a, run = gains_contest({"q": ([1, 0, 1], [1, 1])}, ds=10, top=1)
    res = evaluate(a, run, EvalOptions(ranks=(3, 1)))
    assert "p@1" in res.keys and "ndcg@3" in res.keys and "p@5" not in res.keys
    assert res.mean("p@3") == pytest.approx(2 / 3)
    with pytest.raises(KeyError, match="unknown measure"):
        res.column("p@5")


def test_curves_declared():
    assert [c.key for c in CURVES] == [
        "pr",
        "cg",
        "dcg",
        "ncg",
        "ndcg",
        "f",
        "cg_recall",
        "dcg_recall",
    ]
    a, run = gains_contest({"q": ([1, 0, 1], [1, 1])}, ds=10, top=1)
    assert set(evaluate(a, run).curves) == {c.key for c in CURVES}


def test_a_curve_is_computed_from_its_registry_entry(monkeypatch):
    """The engine computes whatever CURVES declares: adding one entry (x and
    compute) adds the curve, with its mean and per-query values."""
    import numpy as np
    import shrec_eval.scoring.engine as engine
    from shrec_eval.scoring.curves import Curve

    def hits_at_rank(ctx, o):  # relevant items within the first k
        return ctx.cum_rel[:, : o.curve_length].astype(np.float64)

    hits = Curve(
        "hits",
        "Hits vs rank",
        "Rank",
        "Hits",
        "relevant items in the first k",
        lambda o: np.arange(1, o.curve_length + 1) * 10.0,
        hits_at_rank,
    )
    monkeypatch.setattr(engine, "CURVES", CURVES + (hits,))
    a, run = gains_contest({"q1": ([1, 0, 1], [1, 1]), "q2": ([0, 1, 0], [1])}, ds=10, top=1)
    c = evaluate(a, run, EvalOptions(curve_length=3)).curves["hits"]
    assert c.x.tolist() == [10.0, 20.0, 30.0]
    assert c.per_query.tolist() == [[1, 1, 2], [0, 1, 1]]
    assert c.mean.tolist() == [0.5, 1.0, 1.5] and c.count.tolist() == [2, 2, 2]


def test_curve_x_values_follow_the_options():
    by_key = {c.key: c for c in CURVES}
    o = EvalOptions(curve_length=4, pr_levels=11)
    assert by_key["ndcg"].x(o).tolist() == [1, 2, 3, 4]
    assert by_key["pr"].x(o).tolist() == pytest.approx([j / 10 for j in range(11)])
    psb = EvalOptions(pr_interpolation="psb")
    assert by_key["pr"].x(psb).tolist() == pytest.approx([j / 20 for j in range(1, 21)])
    assert by_key["cg_recall"].x(o).tolist() == list(range(10, 101, 10))


def test_core_imports_no_qt():
    code = (
        "import sys, shrec_eval, shrec_eval.scoring.engine, shrec_eval.scoring.measures\n"
        "import shrec_eval.model.assessment\n"
        "import shrec_eval.options\n"
        "bad = [m for m in sys.modules if m.split('.')[0] in "
        "('PySide6', 'shiboken6', 'pyqtgraph', 'shrec_gui')]\n"
        "print(bad); sys.exit(1 if bad else 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_names_match_the_keys_and_aliases_as_their_patterns_compiling_only_ranked_ones(
    monkeypatch,
):
    """Every profile's registry is made at every start (``--profile``):
    a pattern is compiled only for a template with a rank (``p@{k}``,
    ``P_{k}``); the others are compared, and match exactly the names their
    pattern ``re.escape(template) + "$"`` matched."""
    import re

    from shrec_eval.scoring import measures

    measures.all_measures()  # the profiles made
    compiled = []
    real = re.compile
    monkeypatch.setattr(measures.re, "compile", lambda p, *a: compiled.append(p) or real(p, *a))
    measures._patterns_of.cache_clear()
    keys, aliases = measures._patterns()
    templates = [m.key for _, m in keys] + [a.name for _, a in aliases]
    assert len(compiled) == sum("{k}" in t for t in templates) < len(templates) // 4
    for (pat, _), t in zip(keys + aliases, templates):
        old = real(re.escape(t).replace(re.escape("{k}"), r"([1-9][0-9]{0,6})") + "$")
        ranked = t.replace("{k}", "20")
        for name in (t, ranked, ranked + "\n", ranked + " ", "x" + ranked, ranked[:-1], ""):
            hit, want = pat.match(name), old.match(name)
            assert (hit is None, hit and hit.groups()) == (want is None, want and want.groups())
    assert measures.resolve("map", "trec_eval") == "ap_trec_r"
    assert measures.resolve("P_20", "trec_eval") == "p@20"
    measures._patterns_of.cache_clear()
