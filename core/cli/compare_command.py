"""``shrec-eval compare``: the runs' paired tests on one measure (their
ranking with intervals, the corrected p-values), as text, JSON and a report
folder.  Its own module: the tests (:mod:`shrec_eval.scoring.stats`) are
imported when compare runs, not by the other commands."""

from __future__ import annotations

import numpy as np

from .. import __version__
from ..model.number_text import text_grid
from ..outputs.json_pieces import write_json
from ..outputs.palette import result_looks
from ..outputs.report import write_report
from ..scoring.stats import CORRECTIONS, TESTS, average_note, compare
from ..service import load_assessment
from .arguments import check_keys, guarded_contest, options_of_args, write_contest_file
from .steps import (
    PROG,
    Progress,
    dask_client,
    figure_drawers,
    native_files,
    no_own_reader,
    run_scoring,
)

__all__ = ["cmd_compare", "comparison_text"]


def cmd_compare(args, out) -> int:
    contest = guarded_contest(
        args, options_of_args(args), "json", "report", "native", "save_contest"
    )
    no_own_reader(contest.options, "compare")
    args.measure = check_keys([args.measure], contest.options)[0]
    assessment = load_assessment(contest)
    with figure_drawers(args) as drawers:
        return _compared(args, out, contest, assessment, drawers)


def _compared(args, out, contest, assessment, drawers) -> int:
    """compare once its report's figure processes start (``drawers``)."""
    with dask_client(args) as client:
        _, results = run_scoring(contest, assessment, client=client)
    write_contest_file(args, contest)  # once its runs were read
    tests = tuple(dict.fromkeys(args.tests or ("t", "wilcoxon", "randomization")))
    c = compare(
        results,
        args.measure,
        tests=tests,
        correction=args.correction,
        alpha=args.alpha,
        resamples=args.resamples,
        seed=args.seed,
        confidence=args.confidence,
        unit=args.unit,
        progress=Progress(label="comparing"),
    )
    out.write(comparison_text(c, contest.options.average))
    native_files(args, assessment, results, contest)
    if args.json:
        write_json(
            args.json,
            {
                "tool": {"name": PROG, "version": __version__},
                "profile": contest.options.profile,
                "assessment": str(contest.assessment.path),
                "comparison": c.to_dict(),
            },
        )
    if args.report:
        write_report(
            args.report,
            assessment,
            results,
            rank_key=args.measure,
            comparison=c,
            test=tests[0],
            figure_preset=args.figure_preset,
            looks=result_looks(results, [r.colour for r in contest.runs]),
            drawers=drawers,
        )
    return 0


def comparison_text(c, average: str = "micro") -> str:
    """The ranking with intervals, then a matrix of corrected p-values per
    test; which average the means are, unless the contest's micro one
    (``average``: the contest's)."""

    pct = f"{c.confidence:.0%}"
    unit = "queries" if c.unit == "query" else "classes"
    lines = [
        f"profile {c.profile}; {c.label} [{c.measure}] paired over {unit}: "
        f"{', '.join(TESTS[t] for t in c.tests)}; "
        f"{CORRECTIONS[c.correction]} correction over {len(c.pairs)} pairs; "
        f"alpha {c.alpha}; {c.resamples} resamples, seed {c.seed}",
        "",
    ]
    if (average, c.unit) != ("micro", "query"):
        lines.insert(1, f"average: {average_note(average, c.unit)}")
    rows = [["Rank", "Run", "Mean", f"{pct} CI", unit.capitalize()]]
    for i, r in enumerate(c.ranking(), start=1):
        ci = f"[{r.ci[0]:.4f}, {r.ci[1]:.4f}]" if r.ci else ""
        rows.append(
            [
                str(i),
                r.name,
                f"{r.mean:.4f}" if r.mean is not None else "",
                ci,
                f"{r.n}" + (f" ({r.n_undefined} undefined)" if r.n_undefined else ""),
            ]
        )
    lines += text_grid(rows)
    order = [r.name for r in c.ranking()]
    index = [r.name for r in c.runs]
    for t in c.tests:
        m = c.matrix(t)
        lines += ["", f"Corrected p-values, {TESTS[t]} (* < {c.alpha}):"]
        grid = [[""] + order]
        for a in order:
            row = [a]
            for b in order:
                v = m[index.index(a), index.index(b)]
                row.append(
                    "-"
                    if a == b
                    else ""
                    if np.isnan(v)
                    else f"{v:.4f}" + ("*" if v < c.alpha else " ")
                )
            grid.append(row)
        lines += text_grid(grid)
    left = [p for p in c.pairs if p.n_left_out]
    if left:
        lines += [
            "",
            f"{unit.capitalize()} left out (measure undefined for a run of the pair): "
            + ", ".join(f"{p.a} vs {p.b}: {p.n_left_out}" for p in left),
        ]
    return "\n".join(lines) + "\n"
