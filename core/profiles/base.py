"""What a profile is: the rules of one evaluator, as data and small hooks
the engine calls at fixed points (docs/profiles.md).

A profile changes only list handling, definitions and averaging; readers,
checks and messages stay the project's own.  The default hooks are the
``shrec`` profile (measures.md unchanged).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from ..model import Assessment, DataWarning

#: native file writer: (results of one group, assessment) -> {file name: text}
NativeWriter = Callable[[list, Assessment], dict[str, str]]


def _no_queries_left_out(assessment: Assessment, options) -> tuple[np.ndarray, list[DataWarning]]:
    return np.ones(assessment.n_queries, dtype=bool), []


def _all_included(assessment: Assessment, options, class_size, present) -> np.ndarray:
    included = np.ones(assessment.n_queries, dtype=bool)
    if options.psb_class_cutoff:
        included &= class_size > 2
    return included


@dataclass(frozen=True)
class Profile:
    """One evaluator's rules.

    * ``options``: option values the evaluator fixes (applied over the
      user's options, and shown in the result's options);
    * ``reader``: keyword arguments for the run readers (names to skip,
      distances accepted, TREC tie order...);
    * ``scored(assessment, options)``: which queries are queries at all
      (the others get no value), with a note;
    * ``included(assessment, options, class_size, present)``: which scored
      queries enter the averages (``class_size`` = relevant items with the
      query itself, ``present`` = the run has the query);
    * ``overrides``: measure key (or the registry's ``{k}`` template) ->
      compute function of a chunk context (and the rank K), where the
      evaluator's definition differs from the registry's;
    * ``curve_rows``: curve key -> function (ctx, per-query rows) -> rows,
      e.g. queries an evaluator leaves out of a curve (NaN);
    * ``empty_levels_zero``: curves whose points no query defines print 0;
    * ``undefined_is_zero``: a measure undefined for a query (nothing to
      find) counts 0 in the averages, as trec_eval scores a query without
      relevant documents;
    * ``curves``: the evaluator's own curves (``Curve`` objects, computed
      next to the registry's);
    * ``query_data(assessment, options)``: per-query arrays its measures
      read from the chunk context's ``extra``;
    * ``native``: the evaluator's own output files, from the results of
      one ``group`` (default: each run alone).
    """

    name: str
    label: str
    source: str
    #: one line for a person choosing a profile (the app's Options, the CLI's help)
    help: str = ""
    #: why the evaluator fixes its ``options`` (shown next to them, greyed, in the app)
    why: str = ""
    options: Mapping[str, object] = field(default_factory=dict)
    reader: Mapping[str, object] = field(default_factory=dict)
    scored: Callable = _no_queries_left_out
    included: Callable = _all_included
    overrides: Mapping[str, Callable] = field(default_factory=dict)
    curve_rows: Mapping[str, Callable] = field(default_factory=dict)
    empty_levels_zero: tuple[str, ...] = ()
    undefined_is_zero: bool = False
    native: NativeWriter | None = None
    curves: tuple = ()
    query_data: Callable | None = None
    group: Callable = lambda result: result.run_name
    #: the columns of the printed table and the ranking measure, when the
    #: evaluator reports its own (else the project's headline)
    headline: tuple[str, ...] = ()
    rank_key: str | None = None
    native_files: tuple[str, ...] = ()

    def forced(self, options) -> dict[str, object]:
        """The options the evaluator sets to other values than ``options``
        has (name -> the evaluator's value)."""
        return {k: v for k, v in self.options.items() if getattr(options, k) != v}

    def apply(self, options):
        """The options with the evaluator's fixed values: what a result
        scored under this profile carries (``RunResult.options``)."""
        fixed = self.forced(options)
        return replace(options, **fixed) if fixed else options
