"""What each ``shrec-eval`` command does, once :mod:`shrec_eval.cli.parser` has
parsed its arguments: the contest the arguments name (:func:`contest_of`),
reading and scoring with a progress bar, the table and the files asked for.
Every command is ``cmd_NAME(args, out) -> exit code``; errors meant for the
user are ShrecEvalErrors, which :func:`shrec_eval.cli.parser.main` reports.
"""

from __future__ import annotations

import contextlib
import sys
import textwrap
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from .. import __version__
from ..contest import AssessmentSource, Contest, RunSource
from ..errors import ContestFileError, OutputError, ShrecEvalError, UsageError
from ..model.values import text_grid
from ..options import EvalOptions
from ..outputs.atomic import Output, gate_outputs, stream_fd, write_bytes, write_pieces
from ..outputs.gallery import gallery_files, run_lists, thumb_names
from ..outputs.native import NativeError, check_native, write_native
from ..outputs.report import (
    Summary,
    to_json,
    write_csv_dir,
    write_json,
    write_report,
)
from ..profiles import REGISTRY, get_profile
from ..reading.formats.embeddings import distances_matrix, is_embeddings, matrix_pieces
from ..reading.formats.source import classify_path, open_source
from ..resources import demo_manifest
from ..scoring.measures import (
    UnknownMeasureError,
    all_aliases,
    expand,
    holds_under,
    measure_by_key,
    owner,
    rank_of,
    resolve,
)
from ..scoring.stats import CORRECTIONS, TESTS, compare
from ..service import PROBLEMS, load_assessment, score_contest, score_runs
from ..shapes.index import ShapesSource
from ..shapes.thumbnails import ThumbnailCache, shape_warning, thumbnail_png

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


def _profile_options(args) -> dict:
    """The evaluator profile's options (every command that scores has them)."""
    return {
        "profile": args.profile,
        "average": args.average,
        "max_rank": args.max_rank,
        "relevance_level": args.relevance_level,
        "complete_queries": args.complete_queries,
    }


def _asked_keys(args) -> list[str]:
    """The registry keys of the measures the command line names (--columns,
    --rank-by, compare's --measure), each name resolved once (aliases such
    as ``map`` or ``P_10`` included)."""
    names = []
    if getattr(args, "columns", None):
        names += [k for k in args.columns.split(",") if k.strip()]
    for opt in ("rank_by", "measure"):
        if getattr(args, opt, None):
            names.append(getattr(args, opt))
    try:
        return [resolve(n, args.profile, args.ranks) for n in names]
    except UnknownMeasureError as exc:
        raise UsageError(str(exc)) from None


def _options(args) -> EvalOptions:
    """The engine options of the command line (evaluate, compare, demo): the
    ranks of --ranks plus those of the measures asked for by name (``P_20``
    or ``p@20`` adds 20); a note when the profile fixes an option the command
    line asked for."""
    extra = {k for k in map(rank_of, _asked_keys(args)) if k is not None}
    profile = get_profile(args.profile)
    if getattr(args, "format", "table") != "table":
        extra |= set(_text_profile(args).text_ranks)
    if args.keep_self and profile.options.get("remove_self") is True:
        sys.stderr.write(
            f"note: the {profile.name} profile always leaves a query out of its own list "
            f"(as {profile.label} does): --keep-self is ignored\n"
        )
    return EvalOptions(
        ranks=tuple(args.ranks) + tuple(sorted(extra - set(args.ranks))),
        curve_length=args.curve_length,
        pr_levels=args.pr_levels,
        pr_interpolation=args.pr_interpolation,
        remove_self=not args.keep_self,
        psb_class_cutoff=args.psb_cutoff,
        f_beta=args.f_beta,
        **_profile_options(args),
    )


#: command-line option (argparse dest) -> the EvalOptions field it sets
OPTION_FIELDS = {
    "ranks": "ranks",
    "curve_length": "curve_length",
    "pr_levels": "pr_levels",
    "pr_interpolation": "pr_interpolation",
    "keep_self": "remove_self",
    "psb_cutoff": "psb_class_cutoff",
    "f_beta": "f_beta",
    "profile": "profile",
    "average": "average",
    "max_rank": "max_rank",
    "relevance_level": "relevance_level",
    "complete_queries": "complete_queries",
    "collection_size": "collection_size",
}


def is_contest_file(path) -> bool:
    """A contest file (a session saved by the app, the demo's contest.json)
    is told by its name, as the app tells it."""
    return str(path).lower().endswith(".json")


def contest_of(args, options: EvalOptions) -> Contest:
    """The contest a command line names (evaluate, check, compare): the
    sources with their reader options, and ``options`` with the collection
    size, which sets Ds in the engine whatever the assessment's format.
    ASSESSMENT alone as a contest file (.json): that contest, with the
    options given on the command line over the file's."""
    if not args.runs:
        if not is_contest_file(args.assessment):
            raise UsageError(
                "at least one RUN is needed after ASSESSMENT "
                "(or a contest file, CONTEST.json, alone)"
            )
        return _contest_file(args, options)
    names = [None] * len(args.runs)
    if args.names:
        names = [t.strip() for t in args.names.split(",")]
        if len(names) != len(args.runs):
            raise UsageError(f"--names gives {len(names)} names for {len(args.runs)} runs")
    normalize = not args.no_normalize_ids
    return Contest(
        AssessmentSource(
            args.assessment,
            format=args.assessment_format,
            queries=args.queries,
            graded=args.sister_classes,
            collection=args.collection,
            normalize_ids=normalize,
            matrix_order=args.matrix_order,
        ),
        tuple(
            RunSource(
                path,
                format=args.run_format,
                variant=args.variant,
                trec_order=args.trec_order,
                normalize_ids=normalize,
                name=name,
                **_embedding_options(args),
            )
            for path, name in zip(args.runs, names)
        ),
        replace(options, collection_size=args.collection_size),
        name=Path(args.save_contest).stem if getattr(args, "save_contest", None) else "",
        **_shapes_args(args),
    )


def _shapes_args(args, contest: Contest | None = None) -> dict:
    """``shapes`` and ``query_shapes`` of a command line (--shapes DIR,
    --query-shapes DIR, with their layouts), else the contest's."""
    out = {}
    for key in ("shapes", "query_shapes"):
        folder = getattr(args, key, None)
        if folder is not None:
            out[key] = ShapesSource(folder, getattr(args, f"{key}_layout", None))
        elif contest is not None:
            out[key] = getattr(contest, key)
    return out


def _embedding_options(args) -> dict:
    """How embedding runs are read (--metric, --ids, --top-k), for every
    run of the command line (other runs refuse --ids and --top-k)."""
    return {
        "metric": getattr(args, "metric", None),
        "ids": getattr(args, "ids", None),
        "top_k": getattr(args, "top_k", None),
    }


def _embedding_kind(path) -> str | None:
    """``npy`` or ``npz`` for a file whose first bytes are numpy's or a
    zip's, else None (a pipe or a folder is not read here)."""
    if classify_path(path) != "file":
        return None
    head = open_source(path, "run").head(8)
    if not is_embeddings(head):
        return None
    return "npz" if head.startswith(b"PK") else "npy"


#: command-line option (argparse dest) -> (RunSource field, the runs it fits, what they are)
_EMBEDDING_OPTIONS = {
    "metric": ("--metric", {"npy", "npz"}, "embedding runs (.npy, .npz)"),
    "ids": ("--ids", {"npy"}, ".npy runs (an .npz names its rows itself)"),
}


def _fit_embedding_options(args, contest: Contest) -> Contest:
    """--metric and --ids, given on the command line, go to the runs they
    fit (--metric to .npy and .npz runs, --ids to .npy runs): an error when
    no run fits, a note naming the runs left alone when some do not (a
    matrix's or a list's distances are scored as they are)."""
    given = getattr(args, "given", set())
    fields = {}
    for dest, (option, fits, what) in _EMBEDDING_OPTIONS.items():
        if dest not in given or getattr(args, dest, None) is None:
            continue
        kinds = [_embedding_kind(r.path) for r in contest.runs]
        # a pipe cannot be looked at before it is read: it takes the option
        takes = [k in fits or classify_path(r.path) == "pipe" for k, r in zip(kinds, contest.runs)]
        if not any(takes):
            raise UsageError(
                f"{option} applies to {what}; none of the runs is one "
                "(a matrix's or a list's distances are scored as they are)"
            )
        left = [str(r.path) for r, t in zip(contest.runs, takes) if not t]
        if left:
            sys.stderr.write(
                f"note: {option} applies to {what}: not to {', '.join(left[:3])}"
                + (f" and {len(left) - 3} more" if len(left) > 3 else "")
                + "\n"
            )
        fields[dest] = takes
    if not fields:
        return contest
    runs = tuple(
        replace(r, **{d: getattr(r, d) if takes[i] else None for d, takes in fields.items()})
        for i, r in enumerate(contest.runs)
    )
    return replace(contest, runs=runs)


#: gallery options (argparse dest -> option) that need shapes and --report
_GALLERY_OPTIONS = {
    "gallery": "--gallery",
    "gallery_queries": "--gallery-queries",
    "gallery_k": "--gallery-k",
    "thumbnail_size": "--thumbnail-size",
}


def _check_gallery_options(args, contest: Contest) -> None:
    """The gallery's options without a gallery (no shapes, or no --report)
    are refused rather than ignored; --shapes without --report (nor
    --save-contest, which keeps them) is said in a note."""
    written = getattr(args, "given", set())
    given = [o for d, o in _GALLERY_OPTIONS.items() if d in written]
    shapes = contest.shapes is not None or contest.query_shapes is not None
    if given and not shapes:
        raise UsageError(
            f"{', '.join(given)} set the report's gallery, which needs the shapes: "
            "give --shapes DIR (and --report DIR)"
        )
    if given and not getattr(args, "report", None):
        raise UsageError(f"{', '.join(given)} set the report's gallery: give --report DIR")
    asked = [o for o in ("shapes", "query_shapes") if getattr(args, o, None) is not None]
    if asked and not getattr(args, "report", None) and not getattr(args, "save_contest", None):
        sys.stderr.write(
            f"note: {', '.join('--' + o.replace('_', '-') for o in asked)} draw the gallery of "
            "--report (or go into --save-contest's file): without either they are not used\n"
        )


def _contest_file(args, options: EvalOptions) -> Contest:
    """A contest file, with what the command line gives explicitly (the
    options ``args.given`` names) over the file's settings."""
    contest = Contest.read(args.assessment)
    given = getattr(args, "given", set())
    fields = {OPTION_FIELDS[d] for d in given if d in OPTION_FIELDS}
    try:
        merged = replace(contest.options, **{f: getattr(options, f) for f in fields})
        if "profile" in fields:  # another profile's own options (trec_eval's -c) reset
            merged = get_profile(merged.profile).fit(merged)
    except ShrecEvalError as exc:
        raise UsageError(f"{args.assessment}: {exc}") from None
    a = contest.assessment
    reading = {
        "assessment_format": ("format", args.assessment_format),
        "queries": ("queries", args.queries),
        "sister_classes": ("graded", args.sister_classes),
        "collection": ("collection", args.collection),
        "no_normalize_ids": ("normalize_ids", not args.no_normalize_ids),
        "matrix_order": ("matrix_order", args.matrix_order),
    }
    a = replace(a, **{f: v for d, (f, v) in reading.items() if d in given})
    runs = list(contest.runs)
    run_reading = {
        "run_format": ("format", args.run_format),
        "variant": ("variant", args.variant),
        "trec_order": ("trec_order", args.trec_order),
        "no_normalize_ids": ("normalize_ids", not args.no_normalize_ids),
        **{d: (d, v) for d, v in _embedding_options(args).items()},
    }
    override = {f: v for d, (f, v) in run_reading.items() if d in given}
    runs = [replace(r, **override) for r in runs]
    if args.names:
        names = [t.strip() for t in args.names.split(",")]
        if len(names) != len(runs):
            raise UsageError(
                f"--names gives {len(names)} names for the {len(runs)} runs of {args.assessment}"
            )
        runs = [replace(r, name=n) for r, n in zip(runs, names)]
    if not runs:
        raise UsageError(f"{args.assessment}: the contest has no runs to score")
    return replace(contest, assessment=a, runs=tuple(runs), options=merged, view={})


def _contest_file_of(args):
    """The contest file the command line names (ASSESSMENT alone), or None."""
    return None if args.runs else args.assessment


def _save_contest(args, contest: Contest) -> None:
    """--save-contest FILE: the contest this command line describes, for the
    app to open (File > Open session) or for ``evaluate CONTEST.json``."""
    if getattr(args, "save_contest", None):
        contest.write(args.save_contest)


def _inputs(contest: Contest) -> list:
    return contest.inputs()


def _guard_outputs(contest: Contest, contest_file=None, *, save_contest=None, **outputs) -> None:
    """Before any work, every output through the one gate
    (:meth:`shrec_eval.contest.Contest.gate_outputs`); the ``contest_file``
    read (ASSESSMENT alone) is an input too, and ``--save-contest`` an output."""
    if outputs.get("native"):
        try:
            check_native(contest.profile)
        except NativeError as exc:
            raise UsageError(str(exc)) from None
    more = [Output("--save-contest", save_contest)] if save_contest else []
    gated = contest.gate_outputs(**outputs, more=more)
    if contest_file is not None:
        gate_outputs(gated, [*contest.inputs(), contest_file])


def _guard_shapes(contest: Contest, report=None) -> dict:
    """Before any scoring: the shapes folders exist, and with ``report``
    (the gallery's only use of them) each one is indexed, so that a folder
    holding no shapes or a layout finding none is refused now, not after
    the scoring.  (The output gate keeps every output out of them: they are
    inputs of the contest.)  Returns the indexes by key."""
    indexes = {}
    for key in ("shapes", "query_shapes"):
        source = getattr(contest, key)
        if source is None:
            continue
        if not Path(source.path).is_dir():
            raise UsageError(
                f"{source.path}: the shapes folder does not exist (or is not a folder)"
            )
        if report is not None:
            indexes[key] = source.index()
    return indexes


def _check_keys(keys: Sequence[str], options: EvalOptions) -> list[str]:
    """The registry keys of measure names (keys or aliases), each one a
    measure the profile computes with these ranks."""
    known = {m.key for m in expand(options.ranks, options.profile)}
    out = []
    for name in keys:
        try:
            key = resolve(name, options.profile, options.ranks)
        except UnknownMeasureError as exc:
            raise UsageError(str(exc)) from None
        if key not in known:  # a rank the options do not have
            raise UsageError(
                f"measure {name!r} ({key}) needs rank {rank_of(key)} in --ranks "
                f"({','.join(map(str, options.ranks))})"
            )
        out.append(key)
    return out


def _table_keys(args, assessment, options: EvalOptions) -> tuple[list[str], str]:
    """The printed columns and the ranking measure (registry keys), checked
    before scoring."""
    keys, rank_key = get_profile(options.profile).table(assessment, options)
    if args.rank_by:
        rank_key = _check_keys([args.rank_by], options)[0]
    if args.columns:
        keys = _check_keys([k for k in args.columns.split(",") if k.strip()], options)
    _check_keys(keys + [rank_key], options)
    return keys, rank_key


def legend(keys: Sequence[str], ranks: Sequence[int], profile: str | None = None) -> list[str]:
    """Lines under a table saying what each column key is (with the
    evaluator's own name of it under its profile: ``ap_trec_r`` is ``map``)."""
    tool = get_profile(profile).legend_tool if profile is not None else None
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


def _score(contest: Contest, assessment=None, runs: list | None = None, client=None) -> tuple:
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
def _cluster(args):
    """The Dask client of ``--dask SCHEDULER`` (None without it)."""
    scheduler = getattr(args, "dask", None)
    if not scheduler:
        yield None
        return
    from ..scoring.distributed import connect

    with connect(scheduler) as client:
        yield client


def _outputs(
    args, contest: Contest, assessment, results, out, base=None, runs=(), shapes=None
) -> None:
    """The table, the notes and the files the output options ask for; paths
    in the JSON are relative to ``base`` when given (else as named).  With
    more results than runs (shapenet17: one per dataset of a method), each
    result's own source is its path in the JSON."""
    per_run = len(results) == len(contest.runs)
    keys, rank_key = _table_keys(args, assessment, contest.options)
    if getattr(args, "format", "table") != "table":
        # standard output is the evaluator's alone; the notes go to stderr; ids
        # as the bytes of the files (trec_eval prints them so)
        write = _text_profile(args).text_writer
        emit = getattr(out, "write_exact", out.write)
        for run, r in zip(runs, results):
            emit(write(assessment, run, r, per_query=args.per_query))
        for r in results:
            for w in r.warnings:
                sys.stderr.write(f"note: {r.run_name}: {w}\n")
    else:
        out.write(Summary.build(results, keys, rank_key).text() + "\n")
        o = contest.options
        out.write("".join(line + "\n" for line in legend(keys, o.ranks, o.profile)))
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
        gallery = _gallery(args, contest, assessment, results, keys, rank_key, out, runs, shapes)
        write_report(
            args.report,
            assessment,
            results,
            keys=keys,
            rank_key=rank_key,
            figure_preset=args.figure_preset,
            extra=gallery,
        )
    _native(args, assessment, results, contest)


def _gallery(
    args, contest: Contest, assessment, results, keys, rank_key, out, runs=(), shapes=None
):
    """The gallery's files for --report when the contest has shapes (None
    without), from the runs the scoring service read (their lists); the
    thumbnails come from the per-user cache.  ``shapes``: the folders'
    indexes made before scoring (:func:`_guard_shapes`)."""
    if contest.shapes is None and contest.query_shapes is None:
        return None
    if len(results) != len(contest.runs) or len(runs) != len(results):
        out.write("note: no gallery: the runs' datasets have different queries\n")
        return None
    indexes = shapes if shapes is not None else _guard_shapes(contest, report=True)
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


def _native(args, assessment, results, contest: Contest | None = None) -> None:
    """--native DIR: the evaluator's own files (one folder per run when
    there are several), each checked against the inputs as it is written."""
    if args.native:  # every command with results has the profile options
        inputs = _inputs(contest) if contest is not None else ()
        write_native(args.native, assessment, results, inputs=inputs)


# -- commands ------------------------------------------------------------------------


def _text_profile(args):
    """The profile whose own text output ``--format NAME`` asks for: the
    command's profile, when its text output is NAME (a UsageError else)."""
    formats = [p.text_format for p in REGISTRY.values() if p.text_format]
    if args.format not in formats:
        raise UsageError(
            f"unknown --format {args.format!r}; expected table or a profile's own text "
            f"output: {', '.join(formats)}"
        )
    profile = get_profile(args.profile)
    if profile.text_format != args.format:
        home = next(p for p in REGISTRY.values() if p.text_format == args.format)
        raise UsageError(
            f"--format {args.format} needs --profile {home.name} ({home.label}'s rules)"
        )
    return profile


def cmd_evaluate(args, out) -> int:
    if args.format != "table":
        _text_profile(args)
    elif args.per_query:
        formats = " or ".join(p.text_format for p in REGISTRY.values() if p.text_format)
        raise UsageError(f"--per-query (-q) goes with --format {formats}")
    contest = _fit_embedding_options(args, contest_of(args, _options(args)))
    _check_gallery_options(args, contest)
    _guard_outputs(
        contest,
        _contest_file_of(args),
        json=args.json,
        csv=args.csv,
        report=args.report,
        native=args.native,
        save_contest=args.save_contest,
    )
    shapes = _guard_shapes(contest, report=args.report)
    assessment = None
    runs: list = []
    if contest.profile.contest_reader is None:  # shapenet17: an assessment per dataset
        assessment = load_assessment(contest)
        _table_keys(args, assessment, contest.options)
    with _cluster(args) as client:
        assessment, results = _score(contest, assessment, runs, client)
    # the contest file once its runs were read: never one that cannot be scored
    _save_contest(args, contest)
    _outputs(args, contest, assessment, results, out, runs=runs, shapes=shapes)
    return 0


def _no_own_reader(options: EvalOptions, command: str) -> None:
    profile = get_profile(options.profile)
    if profile.contest_reader is not None:
        raise UsageError(
            f"the {profile.name} profile reads its contests itself and scores them with "
            f"'evaluate'; '{command}' does not take it"
        )


def cmd_demo(args, out) -> int:
    if args.format != "table" or args.per_query:
        raise UsageError("demo prints its table; --format trec_eval and -q go with evaluate")
    manifest = demo_manifest()
    contest = Contest.read(manifest)
    contest = replace(contest, options=_options(args), **_shapes_args(args, contest))
    _no_own_reader(contest.options, "demo")
    _check_gallery_options(args, contest)
    _guard_outputs(contest, json=args.json, csv=args.csv, report=args.report, native=args.native)
    shapes = _guard_shapes(contest, report=args.report)
    assessment = load_assessment(contest)
    _table_keys(args, assessment, contest.options)
    runs: list = []
    _, results = _score(contest, assessment, runs)
    out.write(
        f"{contest.name}: {assessment.n_queries} queries, collection of "
        f"{assessment.collection_size}, {assessment.kind}\n\n"
    )
    _outputs(
        args,
        contest,
        assessment,
        results,
        out,
        base=Path(manifest).parent,
        runs=runs,
        shapes=shapes,
    )
    return 0


def _alias_names(cm, profile: str | None) -> list[str]:
    """The other tools' names of a concrete measure (those that hold under
    ``profile`` when one is given)."""
    out = []
    for a in all_aliases():
        if a.key != cm.measure.key and a.key != cm.key:
            continue
        if not holds_under(a, profile):
            continue
        out.append(a.name.replace("{k}", str(cm.k)) if cm.k is not None else a.name)
    return out


def cmd_measures(args, out) -> int:
    profile = args.profile
    own = get_profile(profile).overrides if profile is not None else {}
    rows = [("KEY", "LABEL", "ALSO KNOWN AS", "DEFINITION")]
    for m in expand(args.ranks, profile):
        only = owner(m.measure)
        definition = m.definition + (f" [profile {only.name} only]" if only else "")
        if m.key in own or m.measure.key in own:
            definition += f" [computed as {profile} does: see docs/profiles.md]"
        rows.append((m.key, m.label, ", ".join(_alias_names(m, profile)), definition))
    out.write("".join(line + "\n" for line in text_grid(rows, left=4)))
    note = (
        "Also known as: trec_eval's and ir_measures' names give trec_eval's numbers under "
        "--profile trec_eval; NN, FT, ST, E, DCG are the SHREC toolkits' and psbTable's "
        "columns. Any name is accepted by --columns, --rank-by and compare --measure; an @K "
        "name of another rank (P_20, p@20) adds that rank. Definitions and sources: "
        "docs/measures.md."
    )
    out.write("\n" + textwrap.fill(note, 100) + "\n")
    if profile is not None:
        p = get_profile(profile)
        opts = EvalOptions(ranks=args.ranks, profile=profile)
        keys, rank_key = get_profile(opts.profile).table(None, opts)
        rank = rank_key if p.rank_key else f"{rank_key} (adr for sister-class grades of a .cla)"
        out.write(f"Profile {profile}:\n  table columns: {', '.join(keys)}\n  ranked by: {rank}\n")
    return 0


def check_run(
    assessment, source: RunSource, options: EvalOptions, strict: bool = False, client=None
) -> dict:
    """Read and check one submission; every finding as a dict (a notice is
    a problem too when ``strict``)."""
    entry = {
        "path": str(source.path),
        "name": source.name,
        "format": None,
        "problems": [],
        "notices": [],
    }
    # the engine runs every data check (coverage, truncation, ties) as it scores
    try:
        (outcome,) = score_runs(assessment, [source], options, client=client)
    except ContestFileError as exc:
        entry["problems"].append(
            {"code": "unreadable", "message": str(exc), "count": 1, "examples": []}
        )
        entry["verdict"] = "cannot be read"
        return entry
    run, result = outcome.run, outcome.result
    entry["result"] = result
    entry.update(
        name=run.name,
        format=run.format,
        queries=len(run.query_ids),
        assessment_queries=assessment.n_queries,
    )
    for w in result.warnings:
        if w.code in ("no_relevant", "no_highly_relevant", "psb_class_cutoff"):
            continue  # about the assessment, not the submission
        strict_problem = strict and w.code not in ("self_match", "top_k")  # what was asked
        kind = "problems" if w.code in PROBLEMS or strict_problem else "notices"
        entry[kind].append(w.to_dict())
    entry["verdict"] = "problems" if entry["problems"] else "ok"
    return entry


def cmd_check(args, out) -> int:
    contest = _fit_embedding_options(
        args,
        contest_of(args, EvalOptions(remove_self=not args.keep_self, **_profile_options(args))),
    )
    _guard_outputs(
        contest,
        _contest_file_of(args),
        json=args.json,
        native=args.native,
        save_contest=args.save_contest,
    )
    _no_own_reader(contest.options, "check")
    _save_contest(args, contest)
    assessment = load_assessment(contest)
    size = contest.options.collection_size or assessment.collection_size
    report = {
        "tool": {"name": PROG, "version": __version__},
        "profile": contest.options.profile,
        "assessment": {
            "path": str(contest.assessment.path),
            "kind": assessment.kind,
            "queries": assessment.n_queries,
            "collection_size": size,
        },
        "runs": [],
    }
    out.write(
        f"assessment {contest.assessment.path}: {assessment.kind}, "
        f"{assessment.n_queries} queries, collection of {size}; "
        f"profile {contest.options.profile}\n"
    )
    results = []
    paths = args.runs or [str(r.path) for r in contest.runs]
    with _cluster(args) as client:
        entries = [
            check_run(assessment, source, contest.options, args.strict, client)
            for source in contest.runs
        ]
    for path, e in zip(paths, entries):
        if "result" in e:
            results.append(e.pop("result"))
        report["runs"].append(e)
        out.write(f"\n{path}\n")
        if e["format"]:
            out.write(
                f"  format: {e['format']}\n  queries: {e['queries']} in the run, "
                f"{e['assessment_queries']} in the assessment\n"
            )
        for kind in ("problems", "notices"):
            for w in e[kind]:
                ex = f" (e.g. {', '.join(w['examples'])})" if w["examples"] else ""
                label = "problem" if kind == "problems" else "notice"
                text = (
                    w["message"]
                    if w["code"] == "unreadable"
                    else f"{w['message']}: {w['count']}{ex}"
                )
                out.write(f"  {label}: {text}\n")
        out.write(f"  verdict: {'OK' if e['verdict'] == 'ok' else e['verdict'].upper()}\n")
    if args.json:
        write_json(args.json, report)
    if results:
        _native(args, assessment, results, contest)
    return 1 if any(e["verdict"] != "ok" for e in report["runs"]) else 0


def cmd_compare(args, out) -> int:
    contest = _fit_embedding_options(args, contest_of(args, _options(args)))
    _guard_outputs(
        contest,
        _contest_file_of(args),
        json=args.json,
        report=args.report,
        native=args.native,
        save_contest=args.save_contest,
    )
    _no_own_reader(contest.options, "compare")
    args.measure = _check_keys([args.measure], contest.options)[0]
    assessment = load_assessment(contest)
    with _cluster(args) as client:
        _, results = _score(contest, assessment, client=client)
    _save_contest(args, contest)  # once its runs were read
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
    out.write(comparison_text(c))
    _native(args, assessment, results, contest)
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
        )
    return 0


def comparison_text(c) -> str:
    """The ranking with intervals, then a matrix of corrected p-values per test."""
    pct = f"{c.confidence:.0%}"
    unit = "queries" if c.unit == "query" else "classes"
    lines = [
        f"profile {c.profile}; {c.label} [{c.measure}] paired over {unit}: "
        f"{', '.join(TESTS[t] for t in c.tests)}; "
        f"{CORRECTIONS[c.correction]} correction over {len(c.pairs)} pairs; "
        f"alpha {c.alpha}; {c.resamples} resamples, seed {c.seed}",
        "",
    ]
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


def cmd_distances(args, out) -> int:
    """The distances of feature vectors as a PSB binary matrix (float32,
    written atomically a tile of rows at a time): exactly what scoring the
    features ranks, so scoring the matrix gives the same bits."""
    inputs = [args.features, args.ids, args.assessment, args.queries, args.collection]
    gate_outputs([Output("--output", args.output)], [p for p in inputs if p is not None])
    assessment = None
    if args.assessment is not None:
        assessment = AssessmentSource(
            args.assessment,
            queries=args.queries,
            collection=args.collection,
            normalize_ids=not args.no_normalize_ids,
        ).load()
    elif args.queries is not None or args.collection is not None:
        raise UsageError("--queries and --collection go with --assessment")
    dist = distances_matrix(
        args.features,
        metric=args.metric or "cosine",
        ids=args.ids,
        assessment=assessment,
        normalize_ids=not args.no_normalize_ids,
    )
    write_pieces(args.output, matrix_pieces(dist))
    q, n = dist.shape
    # the matrix alone on standard output when it is written there
    say = sys.stderr if stream_fd(args.output) == 1 else out
    say.write(f"{args.output}: {q} x {n} {dist.metric} distances (float32)\n")
    if dist.file_order:
        say.write(
            f"note: the rows and columns are those of {Path(args.features).name} in its own "
            "order (its ids are not written in a matrix), which an assessment's items may "
            "not follow; give --assessment to write its queries x its items, the order "
            "'evaluate' reads a matrix in\n"
        )
    return 0


def cmd_thumbnails(args, out) -> int:
    """Every shape of a folder as a PNG thumbnail in OUT (created when
    missing; thumbnails of the same names replaced, nothing else touched)."""
    source = ShapesSource(args.shapes, args.layout, normalize_ids=not args.no_normalize_ids)
    gate_outputs([Output("OUT", args.out, "tree")], [source.path])
    index = source.index()
    target = Path(args.out)
    if target.exists() and not target.is_dir():
        raise OutputError(target, "this is a file; a folder was expected for the thumbnails")
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(target, f"cannot make the folder: {exc.strerror or exc}") from exc
    cache = None if args.no_cache else ThumbnailCache()
    ids = index.ids()
    progress = Progress(label="thumbnails")
    problems = {}
    names = thumb_names(ids)
    for done, item in enumerate(ids, start=1):
        png, problem = thumbnail_png(index.files(item), args.size, cache)
        if problem is not None:
            problems[item] = problem
        # no flush to disk per file (thumbnails can be made again): a warm
        # cache writes at the speed of copying files
        write_bytes(target / names[item], png, sync=False)
        progress(done, len(ids))
    out.write(
        f"{len(ids)} thumbnails of {index.describe()} written to {target} "
        f"({args.size} x {args.size} px)\n"
    )
    w = shape_warning(problems)
    if w is not None:
        out.write(f"note: {w}\n")
    return 0


COMMANDS = {
    "evaluate": cmd_evaluate,
    "distances": cmd_distances,
    "check": cmd_check,
    "compare": cmd_compare,
    "measures": cmd_measures,
    "demo": cmd_demo,
    "thumbnails": cmd_thumbnails,
}
