"""From parsed arguments to what a command works on: the options (EvalOptions)
and the contest the arguments name (contest_of: a contest file, or an
assessment and runs), its embedding and gallery settings, the outputs
checked by the gate before anything is read (and --dask's scheduler), the
measures asked for and the profile whose text output --format names.

For the commands and their steps: options_of_args, contest_inputs,
guard_outputs, guard_shapes, shapes_args, check_gallery_options, check_keys,
table_keys, text_profile, write_contest_file."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..contest import AssessmentSource, Contest, RunSource
from ..errors import ShrecEvalError, UsageError
from ..option_args import (  # noqa: F401  (the commands take them from here)
    OPTION_FIELDS,
    command_line_words,
    eval_options,
    given_fields,
    settings_given,
)
from ..options import EvalOptions
from ..outputs.atomic import Output, gate_outputs
from ..outputs.native import NativeError, check_native
from ..profiles import listed, options_given
from ..reading.contest_fields import contest_roles, is_contest_file  # noqa: F401
from ..reading.formats.embeddings import is_embeddings
from ..reading.formats.source import classify_path, open_source
from ..scoring.distributed import parse_scheduler
from ..scoring.measures import (
    UnknownMeasureError,
    canonical,
    columns,
    is_registry_key,
    rank_of,
    resolve,
)
from ..scoring.params import split_names
from ..shapes.index import ShapesSource


def _asked_keys(args) -> list[str]:
    """The registry keys of the measures the command line names (--columns,
    --rank-by, compare's --measure), each name resolved once (aliases such
    as ``map`` or ``P_10`` included)."""
    names = []
    if getattr(args, "columns", None):
        names += split_names(args.columns)
    for opt in ("rank_by", "measure"):
        if getattr(args, opt, None):
            names.append(getattr(args, opt))
    try:
        return [resolve(n, args.profile, args.ranks) for n in names]
    except UnknownMeasureError as exc:
        raise UsageError(str(exc)) from None


def options_of_args(args) -> EvalOptions:
    """The engine options of the command line (evaluate, compare, demo): the
    ranks of --ranks plus those of the measures asked for by name (``P_20``
    or ``p@20`` adds 20), and those of --format's text; the measures with
    parameters asked for that no registry key names
    (``ndcg(discount=log2_from_1)@10`` under the shrec profile)."""
    keys = _asked_keys(args)
    extra = {k for k in map(rank_of, keys) if k is not None}
    measures = [canonical(k) for k in keys if not is_registry_key(k)]
    try:
        options = eval_options(args, extra, getattr(args, "given", None), measures=measures)
    except ShrecEvalError as exc:
        raise UsageError(str(exc)) from None
    if getattr(args, "format", "table") != "table":  # the ranks its text output prints
        options = replace(options, ranks=options.ranks + text_profile(args, options).text_ranks)
    return options


def _refuse_fixed(args, profile) -> None:
    """A setting the command line wrote (--keep-self, --matrix-order
    listing...) that ``profile`` (a Profile) fixes otherwise: a usage error
    naming the profile's value and the one asked for."""
    given = settings_given(args, getattr(args, "given", None))
    try:
        profile.refuse_others(given, command_line_words)
    except ShrecEvalError as exc:
        raise UsageError(str(exc)) from None


def contest_of(args, options: EvalOptions) -> Contest:
    """The contest a command line names (evaluate, check, compare): the
    sources with their reader options, and ``options`` with the collection
    size, which sets Ds in the engine whatever the assessment's format.
    ASSESSMENT alone as a contest file (.json): that contest, with the
    options given on the command line over the file's."""
    contest_file, _, runs = contest_roles([args.assessment, *args.runs])
    if contest_file is not None:
        return _contest_file(args, options)
    if not runs:
        raise UsageError(
            "at least one RUN is needed after ASSESSMENT (or a contest file, CONTEST.json, alone)"
        )
    names = [None] * len(args.runs)
    if args.names:
        names = [t.strip() for t in args.names.split(",")]
        if len(names) != len(args.runs):
            raise UsageError(f"--names gives {len(names)} names for {len(args.runs)} runs")
    normalize = not args.no_normalize_ids
    _refuse_fixed(args, options.rules)
    given = getattr(args, "given", None)
    return Contest(
        AssessmentSource(
            args.assessment,
            format=args.assessment_format,
            queries=args.queries,
            graded=args.sister_classes,
            collection=args.collection,
            normalize_ids=normalize,
            # not written: the profile's rule, else listing
            matrix_order=args.matrix_order if given is None or "matrix_order" in given else None,
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
        **shapes_args(args),
    )


def shapes_args(args, contest: Contest | None = None) -> dict:
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
    given: set[str] = getattr(args, "given", set())
    fields: dict[str, list[bool]] = {}
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
    runs = []
    for i, r in enumerate(contest.runs):
        kept: dict[str, Any] = {
            d: getattr(r, d) if takes[i] else None for d, takes in fields.items()
        }
        runs.append(replace(r, **kept))
    return replace(contest, runs=tuple(runs))


#: gallery options (argparse dest -> option) that need shapes and --report
_GALLERY_OPTIONS = {
    "gallery": "--gallery",
    "gallery_queries": "--gallery-queries",
    "gallery_k": "--gallery-k",
    "thumbnail_size": "--thumbnail-size",
}


def check_gallery_options(args, contest: Contest) -> None:
    """The gallery's options without a gallery (no shapes, or no --report)
    are refused rather than ignored; --shapes without --report (nor
    --save-contest, which keeps them) is said in a note."""
    written: set[str] = getattr(args, "given", set())
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
    given: set[str] = getattr(args, "given", set())
    try:
        merged = options_given(
            contest.options, options, given_fields(given), spell=command_line_words
        )
        if options.measures:  # the measures asked for beside the file's
            merged = replace(merged, measures=merged.measures + options.measures)
    except ShrecEvalError as exc:
        raise UsageError(f"{args.assessment}: {exc}") from None
    _refuse_fixed(args, merged.rules)
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
    contest = replace(contest, assessment=a, runs=tuple(runs), options=merged, view={})
    try:  # the file's own reading settings under the profile written
        contest.refuse_fixed()
    except ShrecEvalError as exc:
        raise UsageError(f"{args.assessment}: {exc}") from None
    return contest


def _contest_file_of(args):
    """The contest file the command line names (ASSESSMENT alone), or None."""
    return None if args.runs else args.assessment


def write_contest_file(args, contest: Contest) -> None:
    """--save-contest FILE: the contest this command line describes, for the
    app to open (File > Open session) or for ``evaluate CONTEST.json``."""
    if getattr(args, "save_contest", None):
        contest.write(args.save_contest)


def contest_inputs(contest: Contest) -> list:
    return contest.inputs()


def guard_outputs(contest: Contest, contest_file=None, *, save_contest=None, **outputs) -> None:
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


def guarded_contest(args, options: EvalOptions, *outputs: str, check=None) -> Contest:
    """The contest the arguments name, scored with ``options`` (the feature
    vectors' settings fitted), then ``check(contest)`` (a command's own
    checks of its options), then the files the command writes through the
    output gate before any work: ``outputs`` names those options of the
    command (``json``, ``csv``, ``report``, ``native``, ``save_contest``).
    ``--dask``'s scheduler is checked first."""
    if getattr(args, "dask", None) is not None:
        parse_scheduler(args.dask)  # before anything is read or connects
    contest = _fit_embedding_options(args, contest_of(args, options))
    if check is not None:
        check(contest)
    guard_outputs(contest, _contest_file_of(args), **{k: getattr(args, k) for k in outputs})
    return contest


def guard_shapes(contest: Contest, report=None) -> dict:
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


def check_keys(keys: Sequence[str], options: EvalOptions) -> list[str]:
    """The registry keys of measure names (keys or aliases), each one a
    measure the profile computes with these ranks."""
    known = {m.key for m in columns(options)}
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


def table_keys(args, assessment, options: EvalOptions) -> tuple[list[str], str]:
    """The printed columns and the ranking measure (registry keys), checked
    before scoring."""
    keys, rank_key = options.rules.table(assessment, options)
    if args.rank_by:
        rank_key = check_keys([args.rank_by], options)[0]
    if args.columns:
        keys = check_keys(split_names(args.columns), options)
    check_keys(keys + [rank_key], options)
    return keys, rank_key


def text_profile(args, options: EvalOptions):
    """The profile whose own text output ``--format NAME`` asks for: the
    options' profile, when its text output is NAME (a UsageError else; only
    then are the evaluators installed looked for)."""
    profile = options.rules
    if profile.text_format is not None and profile.text_format == args.format:
        return profile
    formats = list(dict.fromkeys(p.text_format for p in listed() if p.text_format))  # once each
    if args.format not in formats:
        raise UsageError(
            f"unknown --format {args.format!r}; expected table or a profile's own text "
            f"output: {', '.join(formats)}"
        )
    if profile.text_format != args.format:
        home = next(p for p in listed() if p.text_format == args.format)
        raise UsageError(
            f"--format {args.format} needs --profile {home.name} ({home.label}'s rules)"
        )
    return profile
