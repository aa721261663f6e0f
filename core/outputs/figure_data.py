"""A report's figures as data: what a figure shows of a run's results
(:class:`FigureRun`, its curves :class:`FigureCurve`) and one figure to
draw (:class:`FigureJob`: a figure function of :mod:`.figures` and what it
draws from).  Small and picklable: :mod:`.figures` makes the jobs, the
drawing processes of :mod:`.figure_jobs` receive them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np


@dataclass(frozen=True)
class FigureCurve:
    """A curve as the report's figures draw it: its x values and its mean."""

    x: np.ndarray
    mean: np.ndarray


@dataclass(frozen=True)
class FigureRun:
    """What the report's figures show of a run's results (a RunResult, read
    the same way): its name, measure keys and options, its means, class
    means and the mean of each curve.  No per-query values: sending it to a
    drawing process costs little whatever the number of queries."""

    run_name: str
    keys: list[str]
    options: object
    means: dict[str, float | None]
    per_class: dict[str, dict]
    curves: dict[str, FigureCurve] = field(default_factory=dict)

    @classmethod
    def of(cls, result) -> FigureRun:
        return cls(
            result.run_name,
            list(result.keys),
            result.options,
            dict(result.means),
            result.per_class,
            {k: FigureCurve(c.x, c.mean) for k, c in result.curves.items()},
        )

    def mean(self, key: str) -> float | None:
        return self.means[key]


@dataclass(frozen=True)
class FigureJob:
    """One figure of a report: ``figures/NAME.FMT`` in each of ``formats``,
    drawn by ``draw(*args, **kwargs)`` (a figure function of :mod:`.figures`)."""

    name: str
    draw: Callable
    args: tuple
    kwargs: dict
    formats: tuple[str, ...]
    #: about how long it draws (the heaviest are started first)
    weight: float = 1.0
