"""The steps the scoring commands share: a progress bar on a terminal, reading
and scoring a contest (locally or on a Dask cluster), and the table and the
files asked for (JSON, CSV, native files; the report folder with its
gallery through :mod:`.report_step`, imported once a report is asked for).

For the commands: run_scoring, dask_client, figure_drawers, write_outputs,
native_files, no_own_reader."""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Sequence

from ..contest import Contest
from ..errors import UsageError
from ..options import EvalOptions
from ..outputs.json_pieces import to_json, write_json
from ..outputs.native import write_native
from ..outputs.summary import Summary
from ..outputs.tables import write_csv_dir
from ..scoring.distributed import connect
from ..scoring.measures import (
    all_aliases,
    measure_by_key,
)
from ..service import score_contest
from .arguments import (
    contest_inputs,
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
    if not getattr(args, "report", None):
        yield None
        return
    with _report_step().figure_drawers() as drawers:
        yield drawers


def _report_step():
    """The report's step (:mod:`.report_step`), once a command asks for a report."""
    # late: the report's figures' processes and its gallery, of no use without --report
    from . import report_step

    return report_step


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
        _report_step().write_report_folder(
            args, contest, assessment, results, keys, rank_key, out, runs, shapes, drawers
        )
    native_files(args, assessment, results, contest)


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
