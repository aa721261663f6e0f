"""A job's evaluator: the profile resolved once, the options it scores with
(the profile's fixed values over the user's) and the measures it computes.
The scoring service makes one per job and hands it to every run's scoring;
the app's worker scores through the service; a Dask worker receives it
pickled with its shard of queries; the library makes one when given
options.  Nothing looks the profile up again after it is made."""

from __future__ import annotations

from dataclasses import dataclass

from ..options import EvalOptions
from ..scoring.measures import columns
from .base import Profile

__all__ = ["Evaluator"]


@dataclass(frozen=True)
class Evaluator:
    """``options``: what a result scored by it carries (``RunResult.options``:
    its profile's fixed values applied); ``measures``: the table columns it
    computes (:func:`shrec_eval.scoring.measures.columns`)."""

    options: EvalOptions
    measures: tuple

    @classmethod
    def of(cls, options=None) -> Evaluator:
        """The evaluator of ``options`` (an EvalOptions; None: the defaults;
        an Evaluator: itself)."""
        if isinstance(options, Evaluator):
            return options

        o = options if options is not None else EvalOptions()
        o = o.rules.apply(o)
        return cls(o, tuple(columns(o)))

    @property
    def profile(self) -> Profile:
        """The profile (:class:`~shrec_eval.profiles.base.Profile`)."""
        return self.options.rules

    def table(self, assessment=None) -> tuple[list[str], str]:
        """The printed columns and the ranking measure when none are asked for."""
        return self.profile.table(assessment, self.options)
