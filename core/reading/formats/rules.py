"""Reading rules: the conventions a file is read by, named once.

Every reader records on what it returns (``Assessment.reading``,
``Run.reading``) the rules that applied to its format and their values.  A
profile (core/profiles) fixes some of them (trec_eval reads ids as written
and orders tied scores by docno) and refuses to score what was read by other
rules, so that the library can never give other numbers than the command line
for the same files.  A *user* rule is a setting of the contest (the command
line, the contest file, the app's reader dialog) that a profile may fix; the
others keep their default unless a profile fixes them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from ...choices import MATRIX_ORDERS

__all__ = ["RULES", "Rule", "applicable", "describe", "resolved"]

_TEXT = ("cla", "qrels", "trec", "ranklists", "embeddings")


@dataclass(frozen=True)
class Rule:
    """One reading rule: the formats it applies to (assessment and run
    format names), its default, whether the user chooses it, and the words
    for each value (:func:`describe`)."""

    name: str
    formats: frozenset
    default: object
    user: bool
    words: Mapping


def _rule(name, formats, default, user, words) -> Rule:
    return Rule(name, frozenset(formats), default, user, words)


RULES: dict[str, Rule] = {
    r.name: r
    for r in (
        _rule(
            "normalize_ids",
            _TEXT,
            True,
            True,
            {True: "ids normalised (m007 read as 7)", False: "ids as written"},
        ),
        _rule(
            "c_numbers",
            ("qrels", "trec"),
            False,
            False,
            {
                True: "numbers read as C's atof/atol read them (trec_eval)",
                False: "numbers checked strictly",
            },
        ),
        _rule(
            "trec_order",
            ("trec",),
            False,
            True,
            {
                True: "tied scores ordered by docno, descending (trec_eval)",
                False: "tied scores kept in file order",
            },
        ),
        _rule(
            "skip_names",
            ("ranklists",),
            (),
            False,
            {(): "every file of the folder a rank list"},
        ),
        _rule(
            "nonfinite_distances",
            ("ranklists",),
            False,
            False,
            {
                True: "NaN and infinite distances accepted (file order ranks)",
                False: "every distance finite",
            },
        ),
        _rule(
            "matrix_order",
            ("cla", "qrels"),
            "listing",
            True,
            {k: f"matrices in {k} order ({v})" for k, v in MATRIX_ORDERS.items()},
        ),
        _rule(
            "class_match",
            ("cla",),
            "name",
            False,
            {
                "name": "query classes matched to target classes by name",
                "position": "query classes matched to target classes by position in the files",
            },
        ),
        _rule(
            "extra_rows",
            ("ascii-matrix", "binary-matrix"),
            "refuse",
            False,
            {
                "refuse": "a matrix with more rows than queries refused",
                "ignore": "matrix rows past the queries ignored",
            },
        ),
    )
}


def describe(rule: str, value) -> str:
    """A rule's value in words (``ids as written``)."""
    words = RULES[rule].words
    if value in words:
        return words[value]
    if rule == "skip_names":
        return f"the files {', '.join(value)} of a rank-list folder skipped"
    return f"{rule} = {value!r}"


def applicable(fmt: str, values: Mapping) -> dict:
    """The rules of ``values`` that apply to a file of format ``fmt``:
    what a reader records (``reading``)."""
    return {k: v for k, v in values.items() if fmt in RULES[k].formats}


def resolved(rule: str, value, fixed: Mapping):
    """The value a reader uses: ``value`` when given (not None), else the
    one ``fixed`` (a profile's rules) gives, else the rule's default."""
    if value is not None:
        return value
    return fixed.get(rule, RULES[rule].default)
