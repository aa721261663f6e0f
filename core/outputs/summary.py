"""The summary of results that every report file is made from: the runs' means,
ranks and per-class values in the order of a table (Summary), the formatting
of a value (fmt), and the names of the sources.

For report: headline_keys, the headline measures among a report's columns."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..choices import CORRECTIONS, TESTS
from ..model.assessment import Assessment
from ..model.number_text import text_grid
from ..model.values import nullable
from ..profiles.base import HEADLINE
from ..scoring.engine import RunResult
from ..scoring.measures import ConcreteMeasure, measure_by_key

AVERAGE_TEXT = {
    "micro": "mean over queries (micro)",
    "macro": "mean over classes of the class means (macro)",
    "proportional": "mean over queries weighted by their relevant items (proportional)",
    "reciprocal": "mean over queries weighted by 1 / their relevant items (reciprocal)",
}


def headline_keys(keys: Sequence[str]) -> list[str]:
    """The headline measures among ``keys`` (a report's columns when none are given)."""
    return [k for k in HEADLINE if k in keys]


def fmt(value: float | None, measure: ConcreteMeasure | None = None, digits: int = 4) -> str:
    value = nullable(value)
    if value is None:
        return ""
    if measure is not None and measure.is_count:
        return f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{value:.{digits}f}"


@dataclass
class Summary:
    """Runs x measures, ranked by one measure (best first).  ``marks`` puts
    a significance marker after some values of one measure."""

    keys: list[str]
    measures: list[ConcreteMeasure]
    rank_key: str
    results: list[RunResult]
    marks: dict | None = None  # run name -> marker, on the column ``marks_key``
    marks_key: str | None = None
    legend: str = ""

    def cell(self, r: RunResult, key: str, m: ConcreteMeasure) -> str:
        t = fmt(r.mean(key), m)
        if t and self.marks and key == self.marks_key:
            t += self.marks.get(r.run_name, "")
        return t

    def mark_significance(self, comparison, test: str) -> None:
        """Mark, on the compared measure, every run that differs
        significantly from the best run (corrected p < alpha)."""
        best = comparison.ranking()[0].name
        self.marks_key = comparison.measure
        self.marks = {
            r.name: "*"
            for r in comparison.runs
            if r.name != best and comparison.significant(r.name, best, test)
        }

        self.legend = (
            f"* {comparison.label}: significantly different from the best run "
            f"({best}), {TESTS[test]}, {CORRECTIONS[comparison.correction]} "
            f"correction over {len(comparison.pairs)} pairs, alpha = "
            f"{comparison.alpha}."
        )

    @classmethod
    def build(
        cls,
        results: Sequence[RunResult],
        keys: Sequence[str] | None = None,
        rank_key: str | None = None,
    ) -> Summary:
        if not results:
            raise ValueError("no run to summarise")
        ranks = results[0].options.ranks
        keys = list(keys or results[0].keys)
        measures = [measure_by_key(k, ranks) for k in keys]
        rank_key = rank_key or keys[0]
        m = measure_by_key(rank_key, ranks)
        sign = -1 if m.higher_is_better else 1

        def order(r: RunResult):
            v = r.mean(rank_key)
            return (v is None, sign * v if v is not None else 0.0)

        return cls(keys, measures, rank_key, sorted(results, key=order))

    def best(self, key: str) -> float | None:
        m = measure_by_key(key, self.results[0].options.ranks)
        vals = [v for v in (r.mean(key) for r in self.results) if v is not None]
        if not vals:
            return None
        return max(vals) if m.higher_is_better else min(vals)

    def is_best(self, result: RunResult, key: str) -> bool:
        v, b = result.mean(key), self.best(key)
        return v is not None and b is not None and abs(v - b) <= 1e-12 * max(1.0, abs(b))

    def how(self) -> str:
        """The profile and the average behind the means, for every table."""
        o = self.results[0].options
        return f"profile {o.profile}, {AVERAGE_TEXT[o.average]}"

    def text(self) -> str:
        """A plain-text table for a terminal."""
        head = ["Rank", "Run"] + [m.key for m in self.measures]
        rows = [
            [str(i), r.run_name] + [fmt(r.mean(k), m) for k, m in zip(self.keys, self.measures)]
            for i, r in enumerate(self.results, start=1)
        ]
        out = text_grid([head] + rows, rule=True)
        ranks = self.results[0].options.ranks
        shown_key = "" if self.rank_key in self.keys else ", not a column of this table"
        out.append(
            f"ranked by {self.rank_key} ({measure_by_key(self.rank_key, ranks).label}"
            f"{shown_key}); {self.how()}; empty = undefined for every query"
        )
        return "\n".join(out)


def class_table(s: Summary) -> tuple[list[str], list[list[str]]] | None:
    """Classes x runs for the ranking measure (the class means, with the
    number of queries of the class); None without classes."""
    if not s.results[0].per_class:
        return None
    m = measure_by_key(s.rank_key, s.results[0].options.ranks)
    names = list(dict.fromkeys(c for r in s.results for c in r.per_class))
    head = ["Class", "Queries"] + [r.run_name for r in s.results]
    rows = []
    for c in names:
        n = max(r.per_class.get(c, {}).get("queries", 0) for r in s.results)
        rows.append(
            [c, str(n)] + [fmt(r.per_class.get(c, {}).get(s.rank_key), m) for r in s.results]
        )
    return head, rows


def source_names(assessment: Assessment) -> str:
    """The assessment's files by name ("queries.cla + target.cla"): a report
    is shared, and the organiser's folders are nobody's business."""
    return " + ".join(Path(p).name or p for p in str(assessment.source).split(" + "))
