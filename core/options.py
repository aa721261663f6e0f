"""Options of the metric engine, with the defaults of the sources."""

from __future__ import annotations

import math
import numbers
from dataclasses import asdict, dataclass, field

from .choices import DEFAULT_PROFILE, PROFILE_NAMES
from .errors import OptionsError
from .model.limits import MAX_BETA, MAX_COLLECTION, MAX_GRADE, MAX_RANK, PR_LEVELS
from .profiles.own_options import check_own_options

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
]

PR_INTERPOLATIONS = ("max", "psb", "psbplot")
#: the profiles' names (:mod:`shrec_eval.profiles` is their registry)
PROFILES = PROFILE_NAMES
#: how query values become one run figure (profiles.md, last section)
AVERAGES = ("micro", "macro", "proportional", "reciprocal")


def _whole(name: str, value, least: int, most: int) -> int:
    """A whole-number option (not a bool, not a fraction) in its range."""
    name = name.replace("_", " ")
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or value != int(value):
        raise OptionsError(f"{name} must be a whole number, not {value!r}")
    if not least <= value <= most:
        what = "positive integers" if name == "ranks" else f"from {least}"
        raise OptionsError(f"{name} must be {what} up to {most}, not {value}")
    return int(value)


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

    def __post_init__(self) -> None:
        ranks = tuple(sorted({_whole("ranks", k, 1, MAX_RANK) for k in self.ranks}))
        if not ranks:
            raise OptionsError("ranks must be positive integers, e.g. 5,10,25,50,100")
        object.__setattr__(self, "ranks", ranks)
        _whole("curve_length", self.curve_length, 1, MAX_RANK)
        if self.max_rank is not None:
            _whole("max_rank", self.max_rank, 1, MAX_RANK)
        if self.collection_size is not None:
            _whole("collection_size", self.collection_size, 1, MAX_COLLECTION)
        for name in ("remove_self", "psb_class_cutoff", "complete_queries"):
            if not isinstance(getattr(self, name), bool):
                value = getattr(self, name)
                raise OptionsError(f"{name.replace('_', ' ')} must be true or false, not {value!r}")
        beta = self.f_beta
        if not (
            isinstance(beta, numbers.Real) and not isinstance(beta, bool) and math.isfinite(beta)
        ):
            raise OptionsError(f"the F-measure weight beta must be a positive number, not {beta!r}")
        if beta > MAX_BETA:
            raise OptionsError(f"the F-measure weight beta must be at most {MAX_BETA:g}")
        if isinstance(self.pr_levels, bool) or self.pr_levels not in PR_LEVELS:
            raise OptionsError(
                f"the precision-recall curve has {' or '.join(map(str, PR_LEVELS))} "
                f"recall levels, not {self.pr_levels!r}"
            )
        _whole("relevance_level", self.relevance_level, 1, MAX_GRADE)
        if self.pr_interpolation not in PR_INTERPOLATIONS:
            raise OptionsError(
                f"unknown precision-recall interpolation {self.pr_interpolation!r}; "
                f"expected one of {', '.join(PR_INTERPOLATIONS)}"
            )
        if self.collection_size is not None and int(self.collection_size) < 1:
            raise OptionsError("the collection size must be a positive integer")
        if not (self.f_beta > 0 and math.isfinite(self.f_beta)):
            raise OptionsError("the F-measure weight beta must be a positive number")

        for name, value, known in (
            ("profile", self.profile, PROFILE_NAMES),
            ("average", self.average, AVERAGES),
        ):
            if value not in known:
                raise OptionsError(f"unknown {name} {value!r}; expected one of {', '.join(known)}")
        if self.max_rank is not None and int(self.max_rank) < 1:
            raise OptionsError("the maximum rank (-M) must be a positive integer")
        if int(self.relevance_level) < 1:
            raise OptionsError("the relevance level (-l) must be a positive integer")
        check_own_options(self)
        if self.measures:
            object.__setattr__(self, "measures", _measures(self.measures))

    def to_dict(self) -> dict:
        d = asdict(self)
        d.pop("memory_budget")
        d["ranks"] = list(self.ranks)
        if self.measures:
            d["measures"] = list(self.measures)
        else:  # the files of options without them stay as they were
            d.pop("measures")
        return d


def _measures(names) -> tuple[str, ...]:
    """The canonical names of ``measures``, each once, in their order."""
    from .scoring.measures import canonical

    if isinstance(names, str) or not all(isinstance(n, str) for n in names):
        raise OptionsError(
            f"measures must be a list of measure names (ndcg(gain=exp2)@10), not {names!r}"
        )
    return tuple(dict.fromkeys(canonical(n) for n in names))
