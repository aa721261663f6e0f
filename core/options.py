"""Options of the metric engine, with the defaults of the sources.  Each
option is defined once, in :data:`shrec_eval.option_schema.OPTIONS` (its
kind, bounds, check and message); the profile an option set follows is
resolved once, when the options are made, and travels with them
(:attr:`EvalOptions.rules`)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING

from .choices import DEFAULT_PROFILE, PROFILE_NAMES
from .errors import OptionsError
from .model.limits import MAX_BETA, MAX_COLLECTION, MAX_GRADE, MAX_RANK, PR_LEVELS
from .option_schema import AVERAGES, OPTIONS, PR_INTERPOLATIONS, checked

if TYPE_CHECKING:  # annotations only (the profiles import this module)
    from .profiles.base import Profile

__all__ = [
    "AVERAGES",
    "MAX_BETA",
    "MAX_COLLECTION",
    "MAX_GRADE",
    "MAX_RANK",
    "PR_INTERPOLATIONS",
    "PR_LEVELS",
    "PROFILES",
    "EvalOptions",
    "OptionsError",
    "check_field",
]

#: the built-in profiles' names (:mod:`shrec_eval.profiles` is their registry)
PROFILES = PROFILE_NAMES


def check_field(name: str, value):
    """A value of the option ``name`` as :class:`EvalOptions` holds it (an
    evaluator file's fixed options are checked so); an OptionsError when it
    cannot be one."""
    return checked(name, value)


@dataclass(frozen=True)
class EvalOptions:
    """What to compute and how.

    * ``ranks``: the K of every @K measure (cg@K, p@K, ...).
    * ``curve_length``: ranks 1..curve_length of the (N)(D)CG and F curves.
    * ``pr_levels``: number of recall levels of the interpolated
      precision-recall curve with ``pr_interpolation="max"`` (21: 0, 0.05,
      ..., 1; 11: 0, 0.1, ..., 1).  ``"psb"`` is the psbPlot / SHREC MATLAB
      interpolation and always uses the 20 levels 0.05, ..., 1;
      ``"psbplot"`` is psbPlot's own curve (the query counted as relevant,
      first in its own list; float32; see :func:`shrec_eval.scoring.curves._pr_psbplot`).
    * ``remove_self``: a query that is a collection item is removed from its
      own ranked list and judgments (SHREC 2012 / PSB |C|-1).
    * ``psb_class_cutoff``: leave out of the means the queries with at most
      two relevant items in the collection, the query itself included
      (psbTable's averaging of classes with at most 2 members).
    * ``collection_size``: Ds, when it differs from the assessment's.
    * ``f_beta``: weight of the F-measure curve.
    * ``profile``: the evaluator whose rules are followed (``shrec`` =
      measures.md unchanged; ``boli``, ``psbtable``, ``shapenet17``,
      ``trec_eval``: see core/profiles/).
    * ``average``: what ``mean`` is: ``micro`` (over queries), ``macro``
      (over classes of the class means), ``proportional`` / ``reciprocal``
      (queries weighted by n_q / 1 / n_q, n_q = relevant targets).
    * ``max_rank``: only the first ``max_rank`` entries of each list count
      (trec_eval's ``-M``).
    * ``relevance_level``: judgments of a lower grade count as not relevant
      (trec_eval's ``-l``).
    * ``complete_queries``: trec_eval profile: average over every query of
      the assessment, a missing one scoring 0 (trec_eval's ``-c``); without
      it only the queries of the run count, as in trec_eval.  The other
      profiles always average over every query.
    * ``measures``: measures with parameters computed beside the profile's
      (``ndcg(discount=log2_from_1,ideal=retrieved)``, docs/measures.md),
      held by their canonical names (:func:`shrec_eval.scoring.measures.canonical`;
      a registry key or alias is taken as the binding it stands for).  A
      measure the profile computes under a key of its own is that column.
    * ``memory_budget``: bytes of working arrays per chunk of queries.
    """

    ranks: tuple[int, ...] = (5, 10, 25, 50, 100)
    curve_length: int = 100
    pr_levels: int = 21
    pr_interpolation: str = "max"
    remove_self: bool = True
    psb_class_cutoff: bool = False
    collection_size: int | None = None
    f_beta: float = 1.0
    profile: str = DEFAULT_PROFILE
    average: str = "micro"
    max_rank: int | None = None
    relevance_level: int = 1
    complete_queries: bool = False
    measures: tuple[str, ...] = ()
    memory_budget: int = field(default=96 * 2**20, compare=False)
    #: the profile itself (:class:`~shrec_eval.profiles.base.Profile`), resolved
    #: from ``profile`` when the options are made: a name, an evaluator file's
    #: path or a Profile may be given as ``profile``
    rules: Profile = field(default=None, repr=False)  # type: ignore[assignment]  # set in __post_init__

    def __post_init__(self) -> None:
        for option in OPTIONS:
            if option.name == "profile":
                continue
            value = getattr(self, option.name)
            if option.name == "measures" and not value:
                continue
            object.__setattr__(self, option.name, checked(option.name, value))
        self._resolve_profile()

    def _resolve_profile(self) -> None:
        """``profile`` as a name and ``rules`` as the Profile: resolved once
        (the options' copies keep it; a Dask worker receives it with them);
        then an option that belongs to another profile is refused."""
        from .profiles import check_own_options, options_profile  # late: they import this module

        name, rules = options_profile(self.profile, self.rules)
        object.__setattr__(self, "rules", rules)
        object.__setattr__(self, "profile", name)
        check_own_options(self)

    def to_dict(self) -> dict:
        d = {f.name: getattr(self, f.name) for f in fields(self)}
        d.pop("memory_budget")
        d.pop("rules")
        d["ranks"] = list(self.ranks)
        if self.measures:
            d["measures"] = list(self.measures)
        else:  # the files of options without them stay as they were
            d.pop("measures")
        return d
