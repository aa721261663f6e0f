"""What the engine returns: a run's scores (:class:`RunResult`: per-query
values of every measure, the means under every average, per-class means,
curves and data checks), its curves (:class:`CurveData`) and one query's
ranked list (:class:`QueryDetail`).  Plain data with small accessors; NaN
means undefined."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from ..errors import OptionsError
from ..model.assessment import DataWarning
from ..model.values import RowMap, nullable, nullable_list
from ..options import EvalOptions
from .averages import ClassGroups, average_all
from .measures import ConcreteMeasure, resolve
from .rows import QueryRows

__all__ = ["CurveData", "CurveMeans", "RunResult", "QueryDetail"]


@dataclass(frozen=True)
class CurveMeans:
    """What a curve's means are made of besides its per-query rows: the
    queries that enter them (``included``), their classes, their relevant
    counts (the weights), the average the options chose, and whether a
    point no query defines is 0 (the profile's ``empty_levels_zero``)."""

    included: np.ndarray
    groups: ClassGroups
    n_relevant: np.ndarray
    average: str
    empty_zero: bool = False


@dataclass
class CurveData:
    """A curve of a run: its x values, the per-query values (NaN = undefined
    for that query), and, made when first read (``--format trec_eval`` reads
    none of them), the mean over the queries that define each point (NaN
    where none does), how many queries that is, and every average."""

    key: str
    x: np.ndarray
    per_query: np.ndarray | QueryRows
    means: CurveMeans = field(repr=False)

    @cached_property
    def averages(self) -> dict:
        """Every average (profiles.md): micro, macro (None without classes),
        proportional, reciprocal."""
        m = self.means
        avgs = average_all(self.per_query, m.included, m.groups, m.n_relevant)
        if m.empty_zero:
            avgs = {k: (None if v is None else np.nan_to_num(v, nan=0.0)) for k, v in avgs.items()}
        return avgs

    @property
    def mean(self) -> np.ndarray | None:
        """The average the options chose (None: macro, and no query of a
        class included)."""
        return self.averages[self.means.average]

    def make_means(self) -> None:
        """Its means and counts made now, not when first read (a thread that
        hands the result on to a window: the window then only reads them)."""
        self.averages  # noqa: B018 - a cached property, made here
        self.count  # noqa: B018

    @cached_property
    def count(self) -> np.ndarray:
        """How many of the included queries define each point."""
        pq, included = self.per_query, self.means.included
        if isinstance(pq, QueryRows):  # each distinct row once, times its queries
            times = np.bincount(pq.which[included], minlength=pq.table.shape[0])
            return times @ (~np.isnan(pq.table)).astype(np.int64)
        return (~np.isnan(pq[included])).sum(axis=0)

    def to_dict(self, query_ids: Sequence[str] | None = None) -> dict:
        """The curve for the JSON document, as numpy arrays (NaN =
        undefined) that :func:`shrec_eval.outputs.report.write_json` writes
        whole, and its per-query rows (with ``query_ids``) as a
        :class:`~shrec_eval.model.values.RowMap` written a group of queries
        at a time."""
        d: dict[str, object] = {
            "x": self.x,
            "mean": self.mean,
            "count": self.count,
            "averages": self.averages,
        }
        if query_ids is not None:
            pq = self.per_query

            def rows(start: int, stop: int) -> list:
                block = pq.block(start, stop) if hasattr(pq, "block") else pq[start:stop]
                return list(np.ascontiguousarray(block))

            d["per_query"] = RowMap(query_ids, rows)  # made a group of queries at a time
        return d


@dataclass
class RunResult:
    """Scores of one run: per-query values of every measure (NaN =
    undefined), the averages (``mean`` follows ``options.average``),
    per-class means, curves and the data checks."""

    run_name: str
    run_source: str
    run_format: str
    query_ids: tuple[str, ...]
    measures: list[ConcreteMeasure]
    values: np.ndarray
    included: np.ndarray
    curves: dict[str, CurveData]
    warnings: list[DataWarning]
    options: EvalOptions
    query_classes: tuple[str, ...] | None = None
    #: n_q: relevant items of each query (the weights of the averages)
    n_relevant: np.ndarray | None = None
    _col: dict = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._col = {m.key: j for j, m in enumerate(self.measures)}
        if self.n_relevant is None:
            self.n_relevant = np.ones(len(self.query_ids), dtype=np.int64)

    @property
    def keys(self) -> list[str]:
        return [m.key for m in self.measures]

    @property
    def profile(self) -> str:
        return self.options.profile

    def key_of(self, name: str) -> str:
        """The key of a measure this result holds, given its key or any name
        of it (``map``, ``ft(divide=min_va)``, a name with parameters the
        options asked for: ``EvalOptions(measures=...)``); KeyError if none."""
        if name in self._col:
            return name

        try:
            key = resolve(name, self.profile, self.options.ranks)
        except OptionsError as exc:
            raise KeyError(f"unknown measure {name!r}: {exc}") from None
        if key in self._col:
            return key
        hint = ""
        if "(" in key or "@" in key:
            hint = (
                f"; {key} was not scored: ask for it with EvalOptions(measures=[{key!r}]) "
                "or --columns"
            )
        raise KeyError(f"unknown measure {name!r}{hint}; known: {', '.join(self.keys)}")

    def column(self, key: str) -> np.ndarray:
        """Per-query values of one measure (any of its names), in the
        assessment's query order."""
        return self.values[:, self._col[self.key_of(key)]]

    @cached_property
    def classes(self) -> ClassGroups:
        """The classes of the queries that enter the averages."""
        return ClassGroups(self.query_classes, self.included)

    @cached_property
    def averages(self) -> dict[str, dict[str, float | None] | None]:
        """Every average of every measure: ``{"micro": {key: value}, "macro":
        ..., "proportional": ..., "reciprocal": ...}`` (macro None without
        classes; a value None where no query defines it)."""
        out = {}
        assert self.n_relevant is not None  # set in __post_init__
        for kind, arr in average_all(
            self.values, self.included, self.classes, self.n_relevant
        ).items():
            out[kind] = None if arr is None else dict(zip(self.keys, nullable_list(arr)))
        return out

    @cached_property
    def means(self) -> dict[str, float | None]:
        """The run means, averaged as ``options.average`` says."""
        avg = self.averages[self.options.average]
        if avg is None:
            raise OptionsError("the macro average needs query classes; this assessment has none")
        return avg

    def mean(self, key: str) -> float | None:
        """Run mean of one measure (``options.average``) over the queries
        where it is defined and that the profile keeps; None when no query
        defines it."""
        return self.means[self.key_of(key)]

    def n_undefined(self, key: str) -> int:
        """Queries left out of the mean of ``key`` because it is undefined."""
        return int(np.isnan(self.column(key)[self.included]).sum())

    def value(self, query_id: str, key: str) -> float | None:
        return nullable(self.column(key)[self.query_ids.index(query_id)])

    def per_query(self, key: str) -> dict[str, float | None]:
        return dict(zip(self.query_ids, nullable_list(self.column(key))))

    @cached_property
    def per_class(self) -> dict[str, dict]:
        """``{class: {"queries": n, key: mean...}}`` over the included
        queries of each class (empty without classes)."""
        g = self.classes
        if not g.n:
            return {}
        means = g.means(self.values)
        counts = g.counts()
        return {
            c: {"queries": int(counts[i]), **dict(zip(self.keys, nullable_list(means[i])))}
            for i, c in enumerate(g.names)
        }

    def class_means(self, key: str) -> dict[str, float | None]:
        """Mean of ``key`` per query class (needs classes in the assessment)."""
        if self.query_classes is None:
            raise ValueError("the assessment has no query classes")
        key = self.key_of(key)
        return {c: row[key] for c, row in self.per_class.items()}

    def class_averaged_mean(self, key: str) -> float | None:
        """Mean over classes of the per-class means (PSB's macro average)."""
        macro = self.averages["macro"]
        return None if macro is None else macro[self.key_of(key)]

    def to_frame(self, keys=None):
        """The per-query values as a pandas DataFrame: one row per query
        (index ``query``), one column per measure (``keys``: registry keys or
        other tools' names such as ``map``; default every measure), NaN where
        undefined, plus ``class`` when the assessment has query classes.
        pandas is optional: it is imported here, and its absence is a
        clear error."""
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(
                "RunResult.to_frame() needs pandas, which shrec-eval does not install: "
                "pip install pandas"
            ) from None
        cols = self.keys if keys is None else [self.key_of(k) for k in keys]
        data = {k: self.column(k) for k in cols}
        frame = pd.DataFrame(data, index=pd.Index(list(self.query_ids), name="query"))
        if self.query_classes is not None:
            frame.insert(0, "class", list(self.query_classes))
        return frame


@dataclass
class QueryDetail:
    """One query of one run, for ranked-list views and raw curves."""

    query_id: str
    gains: np.ndarray
    item_indices: np.ndarray
    ch: int
    cm: int
    recall: np.ndarray
    precision: np.ndarray
