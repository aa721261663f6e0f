"""A report's figures as data: what a figure shows of a run's results
(:class:`FigureRun`, its curves :class:`FigureCurve`) and one figure to
draw (:class:`FigureJob`: a drawing function of :mod:`.figure_plots` and
what it draws from, with the measures and curves it names as text:
:class:`FigureMeasure`, :class:`FigureAxes`).  Small and picklable, and
nothing of the registry: :mod:`.figures` makes the jobs, the drawing
processes of :mod:`.figure_jobs` receive them."""

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
    the same way): its name, measure keys, its means, class means and the
    mean of each curve.  No per-query values and no options (the measures
    named come as :class:`FigureMeasure`): sending it to a drawing process
    costs little whatever the number of queries, and what the process
    imports to read it is numpy and this module."""

    run_name: str
    keys: list[str]
    means: dict[str, float | None]
    per_class: dict[str, dict]
    curves: dict[str, FigureCurve] = field(default_factory=dict)

    @classmethod
    def of(cls, result) -> FigureRun:
        return cls(
            result.run_name,
            list(result.keys),
            dict(result.means),
            result.per_class,
            {k: FigureCurve(c.x, c.mean) for k, c in result.curves.items()},
        )

    def mean(self, key: str) -> float | None:
        return self.means[key]


@dataclass(frozen=True)
class FigureJob:
    """One figure of a report: ``figures/NAME.FMT`` in each of ``formats``,
    drawn by ``draw(*args, **kwargs)`` (a function of :mod:`.figure_plots`)."""

    name: str
    draw: Callable
    args: tuple
    kwargs: dict
    formats: tuple[str, ...]
    #: about how long it draws (the heaviest are started first)
    weight: float = 1.0


@dataclass(frozen=True)
class FigureMeasure:
    """What a figure writes of a measure (a registry measure, read the same
    way): its key, label, short head, and which way is better."""

    key: str
    label: str
    short: str = ""
    higher_is_better: bool = True
    is_count: bool = False

    @classmethod
    def of(cls, measure) -> FigureMeasure:
        return cls(
            measure.key, measure.label, measure.short, measure.higher_is_better, measure.is_count
        )


@dataclass(frozen=True)
class FigureAxes:
    """What a figure writes of a curve of the registry: its key, label and
    axis labels."""

    key: str
    label: str
    x_label: str
    y_label: str

    @classmethod
    def of(cls, curve) -> FigureAxes:
        return cls(curve.key, curve.label, curve.x_label, curve.y_label)
