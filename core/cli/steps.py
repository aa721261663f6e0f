"""The steps the scoring commands share: a progress bar on a terminal, reading
and scoring a contest (locally or on a Dask cluster), and the table and the
files asked for (JSON, CSV, report folder with its gallery, native files),
and compare's text (comparison_text).

For the commands: run_scoring, dask_client, figure_drawers, write_outputs,
native_files, no_own_reader."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Sequence

import numpy as np

from ..contest import Contest
from ..errors import UsageError
from ..model.values import text_grid
from ..options import EvalOptions
from ..outputs.figure_jobs import start_drawers
from ..outputs.gallery import gallery_files, run_lists
from ..outputs.native import write_native
from ..outputs.palette import result_looks
from ..outputs.report import (
    Summary,
    to_json,
    write_csv_dir,
    write_json,
    write_report,
)
from ..scoring.distributed import connect
from ..scoring.measures import (
    all_aliases,
    measure_by_key,
)
from ..scoring.stats import CORRECTIONS, TESTS, average_note
from ..service import score_contest
from ..shapes.thumbnails import ThumbnailCache, shape_warning
from .arguments import (
    contest_inputs,
    guard_shapes,
    table_keys,
    text_profile,
)

PROG = "shrec-eval"


class Progress:
    """A progress bar on stderr, only when stderr is a terminal."""

    def __init__(self, stream=None, label: str = "") -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.on = bool(getattr(self.stream, "isatty", lambda: False)())
        self.label = label
        self._last = 0.0

    def __call__(self, done: int, total: int) -> None:
        if not self.on or (time.monotonic() - self._last < 0.1 and done < total):
            return
        self._last = time.monotonic()
        width = 30
        frac = done / total if total else 1.0
        bar = "#" * int(frac * width)
        self.stream.write(f"\r{self.label[:30]:30s} [{bar:<{width}}] {frac:5.0%}")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def legend(keys: Sequence[str], ranks: Sequence[int], profile=None) -> list[str]:
    """Lines under a table saying what each column key is (with the
    evaluator's own name of it under its profile, a Profile: ``ap_trec_r``
    is ``map``)."""
    tool = profile.legend_tool if profile is not None else None
    items = []
    for k in dict.fromkeys(keys):
        m = measure_by_key(k, ranks)
        names = [
            a.name.replace("{k}", str(m.k))
            for a in all_aliases()
            if tool and a.tool.startswith(tool) and a.key in (k, m.measure.key)
        ]
        items.append(f"{k} = {m.label}" + (f" [{names[0]}]" if names else ""))
    lines, line = [], "columns: "
    for i, item in enumerate(items):
        piece = item + (";" if i < len(items) - 1 else "")
        if len(line) + len(piece) > 100 and line.strip() != "columns:":
            lines.append(line.rstrip())
            line = " " * 9
        line += piece + " "
    return lines + [line.rstrip()]


def run_scoring(contest: Contest, assessment=None, runs: list | None = None, client=None) -> tuple:
    """Read and score every run of the contest, in order, through the
    scoring service (the app scores through it too): the assessment and
    the results (the runs read are appended to ``runs`` when given;
    ``client``: on that Dask cluster)."""
    return score_contest(
        contest,
        assessment=assessment,
        progress=lambda name: Progress(label=name),
        runs=runs,
        client=client,
    )


@contextlib.contextmanager
def figure_drawers(args):
    """The processes that draw the report's figures (with --report; None
    without, or where none can start), started now, before the contest is
    scored, so that they are ready when it is; ended when the command ends
    (at once on an error or a signal)."""
    drawers = None
    if getattr(args, "report", None):
        # forked from a server that imports matplotlib once, not twice (the
        # command's process ends it)
        drawers = start_drawers(from_server=True)
    if drawers is None:
        yield None
        return
    with drawers:
        yield drawers


@contextlib.contextmanager
def dask_client(args):
    """The Dask client of ``--dask SCHEDULER`` (None without it)."""
    scheduler = getattr(args, "dask", None)
    if scheduler is None:
        yield None
        return
    with connect(scheduler) as client:
        yield client


def write_outputs(
    args, contest: Contest, assessment, results, out, base=None, runs=(), shapes=None, drawers=None
) -> None:
    """The table, the notes and the files the output options ask for; paths
    in the JSON are relative to ``base`` when given (else as named).  With
    more results than runs (shapenet17: one per dataset of a method), each
    result's own source is its path in the JSON.  ``drawers``: the report's
    figure processes (:func:`figure_drawers`)."""
    per_run = len(results) == len(contest.runs)
    keys, rank_key = table_keys(args, assessment, contest.options)
    if getattr(args, "format", "table") != "table":
        # standard output is the evaluator's alone; the notes go to stderr; ids
        # as the bytes of the files (trec_eval prints them so)
        write = text_profile(args, contest.options).text_writer
        emit = getattr(out, "write_exact", out.write)
        for run, r in zip(runs, results):
            emit(write(assessment, run, r, per_query=args.per_query))
        for r in results:
            for w in r.warnings:
                sys.stderr.write(f"note: {r.run_name}: {w}\n")
    else:
        out.write(Summary.build(results, keys, rank_key).text() + "\n")
        o = contest.options
        out.write("".join(line + "\n" for line in legend(keys, o.ranks, o.rules)))
        for r in results:
            for w in r.warnings:
                out.write(f"note: {r.run_name}: {w}\n")
    if args.json:
        source = contest.assessment.to_dict(base)
        doc = to_json(
            assessment,
            results,
            assessment_path=source.pop("path"),
            run_paths=[r.to_dict(base)["path"] for r in contest.runs]
            if per_run
            else [r.run_source for r in results],
            assessment_reader=source,
            run_readers=[r.reader_dict() for r in contest.runs] if per_run else None,
        )
        write_json(args.json, doc)
    if args.csv:
        write_csv_dir(args.csv, results, rank_key)
    if args.report:
        write_report(
            args.report,
            assessment,
            results,
            keys=keys,
            rank_key=rank_key,
            figure_preset=args.figure_preset,
            looks=result_looks(results, [r.colour for r in contest.runs]),
            # made while the figures are drawn
            extra=lambda: _gallery(
                args, contest, assessment, results, keys, rank_key, out, runs, shapes
            ),
            drawers=drawers,
        )
    native_files(args, assessment, results, contest)


def _gallery(
    args, contest: Contest, assessment, results, keys, rank_key, out, runs=(), shapes=None
):
    """The gallery's files for --report when the contest has shapes (None
    without), from the runs the scoring service read (their lists); the
    thumbnails come from the per-user cache.  ``shapes``: the folders'
    indexes made before scoring (:func:`guard_shapes`)."""
    if contest.shapes is None and contest.query_shapes is None:
        return None
    if len(results) != len(contest.runs) or len(runs) != len(results):
        out.write("note: no gallery: the runs' datasets have different queries\n")
        return None
    indexes = shapes if shapes is not None else guard_shapes(contest, report=True)
    shapes, query_shapes = indexes.get("shapes"), indexes.get("query_shapes")
    files, problems = gallery_files(
        assessment,
        results,
        run_lists(assessment, list(runs), contest.options),
        shapes,
        query_shapes,
        keys=keys,
        rank_key=rank_key,
        mode=getattr(args, "gallery", None) or "all",
        n=getattr(args, "gallery_queries", None) or 5,
        k=getattr(args, "gallery_k", None) or 10,
        size=getattr(args, "thumbnail_size", None) or 128,
        cache=ThumbnailCache(),
        progress=Progress(label="gallery thumbnails"),
    )
    w = shape_warning(problems)
    if w is not None:
        out.write(f"note: shapes: {w}\n")
    return files


def native_files(args, assessment, results, contest: Contest | None = None) -> None:
    """--native DIR: the evaluator's own files (one folder per run when
    there are several), each checked against the inputs before the first
    is written (the folder passed the gate before scoring)."""
    if args.native:  # every command with results has the profile options
        inputs = contest_inputs(contest) if contest is not None else ()
        write_native(args.native, assessment, results, inputs=inputs)


def no_own_reader(options: EvalOptions, command: str) -> None:
    profile = options.rules
    if profile.contest_reader is not None:
        raise UsageError(
            f"the {profile.name} profile reads its contests itself and scores them with "
            f"'evaluate'; '{command}' does not take it"
        )


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
