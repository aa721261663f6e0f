"""Measures with parameters: one syntax, one parser (shrec_eval.scoring.params),
canonical names (the parameters in the family's order, defaults left out),
errors that name the bad part and list the allowed ones, the registry's keys
as bindings of the families (every key stays valid and names the same
measure), and EvalOptions(measures=...)."""

import pytest
from shrec_eval import EvalOptions
from shrec_eval.errors import OptionsError
from shrec_eval.scoring.families import BY_NAME
from shrec_eval.scoring.measures import (
    MEASURES,
    UnknownMeasureError,
    binding_of,
    canonical,
    columns,
    key_bindings,
    measure_by_key,
    owner,
    resolve,
)
from shrec_eval.scoring.params import MeasureNameError, parse, split_names

# -- the syntax ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, name",
    [
        ("ndcg", "ndcg"),
        ("ndcg@10", "ndcg@10"),
        ("ndcg@r", "ndcg@R"),
        ("ndcg(gain=exp2,discount=log2_from_1,ideal=retrieved)@10", None),
        # any order, spaces, quotes: the family's order, no spaces
        (
            " ndcg ( ideal = 'retrieved' , gain=\"exp2\", discount=log2_from_1 ) @ 10 ",
            "ndcg(gain=exp2,discount=log2_from_1,ideal=retrieved)@10",
        ),
        # defaults left out
        ("ndcg(gain=grade,discount=log2_from_2,ideal=judged)@5", "ndcg@5"),
        ("ft(rel=1,tier=C,divide=T,plus_one=false)", "ft"),
        ("st(early_exit=1,plus_one=true,divide=2T)", "st(divide=2T,plus_one=true,early_exit=1)"),
        ("p(rel=02)@5", "p(rel=2)@5"),
        ("ap(divide=min_k)@R", "ap(divide=min_k)@R"),
        ("ndcg()", "ndcg"),
    ],
)
def test_canonical_names(text, name):
    b = parse(text)
    assert b.name() == (name or text)
    assert parse(b.name()) == b  # the canonical name reads back as the same measure


def test_a_full_name_writes_every_parameter():
    b = parse("ndcg@10")
    assert b.name(full=True) == "ndcg(gain=grade,discount=log2_from_2,ideal=judged)@10"
    assert parse(b.name(full=True)) == b


@pytest.mark.parametrize(
    "text, says",
    [
        # the bad parameter named, the family's parameters listed
        (
            "ndcg(gains=exp2)",
            ["ndcg has no parameter 'gains'", "did you mean 'gain'", "gain, discount, ideal"],
        ),
        # the bad value named, the allowed ones listed with the default
        (
            "ndcg(discount=log3)",
            ["discount='log3' is not allowed", "log2_from_2 (default), log2_from_1 or none"],
        ),
        (
            "ap(divide=all)@10",
            ["divide='all' is not allowed", "relevant (default), found, min_k or contest_max"],
        ),
        ("p(rel=0)@5", ["rel='0' is not allowed", "1 (default), top or a grade 1, 2, 3, ..."]),
        ("ft(tier=C-2)", ["tier='C-2'", "C (default) or C-1"]),
        ("ndcg(gain=exp2,gain=binary)", ["the parameter gain is given twice"]),
        ("ndcg(gain)", ["'gain' is not PARAM=VALUE"]),
        ("ndcg(gain=exp2", ["the parenthesis is not closed"]),
        ("ndcg@0", ["a rank K from 1 to 1000000 or R", "not '0'"]),
        ("ndcg@1000001", ["not '1000001'"]),
        ("ndcg@K", ["not 'K'"]),
        ("ft@10", ["ft takes no @ cutoff", "rel, tier, divide, plus_one"]),
        ("e", ["e needs a cutoff: e@K (a rank) or e@R"]),
        ("ndcgg(gain=exp2)", ["no family 'ndcgg'", "did you mean 'ndcg'"]),
        ("ndcg(gain=exp2) 10", ["'10' after the family"]),
    ],
)
def test_errors_name_the_bad_part_and_the_allowed_ones(text, says):
    with pytest.raises(MeasureNameError) as err:
        parse(text)
    for part in says:
        assert part in str(err.value), (text, str(err.value))
    assert isinstance(err.value, UnknownMeasureError) and isinstance(err.value, OptionsError)


def test_split_names_cuts_outside_parentheses():
    assert split_names("ndcg(gain=exp2,ideal=retrieved)@10, map,,P_10 ") == [
        "ndcg(gain=exp2,ideal=retrieved)@10",
        "map",
        "P_10",
    ]
    assert split_names("ap(rel=2,divide=found),ft(tier=C-1,plus_one=true)") == [
        "ap(rel=2,divide=found)",
        "ft(tier=C-1,plus_one=true)",
    ]
    assert split_names("") == []


# -- the registry's keys are bindings ----------------------------------------------------


def test_every_binding_of_the_registry_resolves_to_its_key_under_its_profile():
    """Each key's binding, in any spelling (canonical, every parameter
    written), names that key under its profile; the key itself too."""
    checked = 0
    for m in MEASURES:
        home = owner(m)
        profile = home.name if home is not None else "shrec"
        b = binding_of(m, profile)
        if b is None:
            continue
        key, k = (m.key, None) if not m.at_rank else (m.key.replace("{k}", "7"), 7)
        for text in (b.at_rank(k).name(), b.at_rank(k).name(full=True), key):
            assert resolve(text, profile) == key, (text, profile)
        checked += 1
    assert checked >= 30


@pytest.mark.parametrize(
    "key, form",
    [
        ("tp_hr", "tp(rel=top)"),
        ("prec_r", "p"),
        ("rec_hr", "r(rel=top)"),
        ("ft_r", "ft(divide=min_va)"),
        ("st_hr", "st(rel=top,divide=min_va)"),
        ("ap_r", "ap(divide=found)"),
        ("ap_trec_r", "ap"),
        ("cg@K", "dcg(discount=none)@K"),
        ("ncg@K", "ndcg(discount=none)@K"),
        ("ndcg@K", "ndcg@K"),
        ("ft_psb", "ft"),
        ("st_psb", "st"),
        ("e_measure", "e@32"),
        ("dcg_psb", "ndcg(gain=binary)"),
        ("map@r", "ap@R"),
        ("ap_boli", "ap(divide=contest_max)"),
        ("ft_s21", "ft(plus_one=true)"),
        ("st_s21", "st(divide=2T,plus_one=true,early_exit=1)"),
        ("ndcg_s21", "ndcg(gain=binary,discount=log2_from_1)"),
    ],
)
def test_the_keys_and_their_forms(key, form):
    table = dict((k.replace("{k}", "K"), b.replace("{k}", "K")) for k, b in key_bindings())
    assert table[key] == form


def test_trec_eval_ndcg_is_the_log2_from_1_discount_there():
    """Under trec_eval, ndcg@K is trec_eval's ndcg_cut: the binding with
    discount=log2_from_1 names it; the SHREC NDCG there is every parameter
    written (its short name is that profile's other measure)."""
    assert resolve("ndcg(discount=log2_from_1)@10", "trec_eval") == "ndcg@10"
    assert resolve("ndcg(discount=log2_from_1)@10", "shrec") == "ndcg(discount=log2_from_1)@10"
    assert resolve("ndcg(discount=log2_from_2)@10", "shrec") == "ndcg@10"
    shrec_ndcg = "ndcg(gain=grade,discount=log2_from_2,ideal=judged)@10"
    assert resolve("ndcg(discount=log2_from_2)@10", "trec_eval") == shrec_ndcg
    assert resolve("ndcg@10", "trec_eval") == "ndcg@10"
    # a profile's own measure is its key there, a measure with parameters elsewhere
    assert resolve("ft(plus_one=true)", "sipiran21") == "ft_s21"
    assert resolve("ft(plus_one=true)", "shrec") == "ft(plus_one=true)"
    assert resolve("ap(divide=contest_max)", "boli") == "ap_boli"
    with pytest.raises(UnknownMeasureError, match="sipiran21 only"):
        resolve("ft_s21", "shrec")


def test_a_measure_with_parameters_is_described():
    m = measure_by_key("ndcg(discount=log2_from_1,ideal=retrieved)@10")
    assert m.key == "ndcg(discount=log2_from_1,ideal=retrieved)@10"
    assert m.label == "NDCG@10 (discount=log2_from_1, ideal=retrieved)"
    assert "ideal=retrieved: the grades of the retrieved items" in m.definition
    assert "over the first 10" in m.definition and m.higher_is_better
    assert measure_by_key("fp(rel=2)").higher_is_better is False
    assert measure_by_key("tp(rel=2)").is_count is True
    assert measure_by_key("p@20").label == "Precision@20"  # a registry template at any rank


def test_every_family_is_declared_once_with_defaults_among_its_values():
    assert list(BY_NAME) == [
        "tp",
        "fp",
        "tn",
        "fn",
        "acc",
        "p",
        "r",
        "ft",
        "st",
        "ap",
        "e",
        "dcg",
        "ndcg",
    ]
    for f in BY_NAME.values():
        assert len({p.name for p in f.params}) == len(f.params)
        for p in f.params:
            assert p.default in p.values and p.desc
            assert all(p.values.values())


# -- EvalOptions(measures=...) ----------------------------------------------------------


def test_options_hold_canonical_names():
    o = EvalOptions(
        measures=[
            "ndcg(ideal=retrieved, discount=log2_from_1)",
            "ndcg(discount=log2_from_1,ideal=retrieved)",  # the same measure: once
            "map",  # an alias: the binding it stands for
            "ndcg_cut_10",  # trec_eval's: its discount
            "ft_s21",
        ]
    )
    assert o.measures == (
        "ndcg(discount=log2_from_1,ideal=retrieved)",
        "ap",
        "ndcg(discount=log2_from_1)@10",
        "ft(plus_one=true)",
    )
    assert o.to_dict()["measures"] == list(o.measures)
    assert "measures" not in EvalOptions().to_dict()  # files of other options unchanged
    assert EvalOptions(measures=("ndcg@10",)) != EvalOptions()


@pytest.mark.parametrize(
    "bad, says",
    [
        (["ndcg(ideal=all)"], "ideal='all' is not allowed"),
        (["adr"], "'adr' (adr) has no parameters"),
        ("ndcg@10", "a list of measure names"),
        ([3], "a list of measure names"),
        (["nope"], "unknown measure 'nope'"),
    ],
)
def test_options_refuse_what_is_no_measure_with_parameters(bad, says):
    with pytest.raises(OptionsError, match=None) as err:
        EvalOptions(measures=bad)
    assert says in str(err.value)


def test_columns_add_the_measures_no_key_names():
    o = EvalOptions(ranks=(5, 10), measures=("ndcg(discount=log2_from_1)@10", "ft", "p@20"))
    keys = [m.key for m in columns(o)]
    base = [m.key for m in columns(EvalOptions(ranks=(5, 10)))]
    # ft is ft_psb, a column already; p@20 is the registry's p@K at 20
    assert keys == base + ["ndcg(discount=log2_from_1)@10", "p@20"]
    t = EvalOptions(ranks=(5, 10), profile="trec_eval", measures=("ndcg(discount=log2_from_1)@10",))
    assert [m.key for m in columns(t)] == [
        m.key for m in columns(EvalOptions(ranks=(5, 10), profile="trec_eval"))
    ]


def test_canonical_of_names_that_are_no_family():
    assert canonical("AP") == "ap"
    assert canonical("P_20") == "p@20"
    assert canonical("nDCG@5") == "ndcg(discount=log2_from_1)@5"
    assert canonical("DCG") == "ndcg(gain=binary)"
    with pytest.raises(MeasureNameError, match="has no parameters"):
        canonical("rr")


def test_a_family_written_in_capitals_is_pointed_to():
    with pytest.raises(UnknownMeasureError) as err:
        resolve("nDCG(discount=log2_from_1)@10", "shrec")
    assert "did you mean 'ndcg(discount=log2_from_1)@10' (families are lower case)?" in str(
        err.value
    )
