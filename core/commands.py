"""What each ``shrec-eval`` command does, once :mod:`shrec_eval.cli` has
parsed its arguments: the contest the arguments name (:func:`contest_of`),
reading and scoring with a progress bar, the table and the files asked for.
Every command is ``cmd_NAME(args, out) -> exit code``; errors meant for the
user are ShrecEvalErrors, which :func:`shrec_eval.cli.main` reports.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from . import __version__
from .atomic import check_outputs, write_bytes, write_folder
from .contest import AssessmentSource, Contest, RunSource
from .engine import evaluate
from .errors import ContestFileError, OutputError, UsageError
from .gallery import gallery_files, run_lists, thumb_name
from .measures import expand
from .options import EvalOptions
from .profiles import get_profile, shapenet17
from .profiles.native import write_native
from .readers import distinct_names
from .report import (
    REPORT_FILES,
    Summary,
    default_rank_key,
    headline_keys,
    report_files,
    to_json,
    write_csv_dir,
    write_json,
    write_report,
)
from .resources import demo_manifest
from .shapes import ShapesSource
from .stats import CORRECTIONS, TESTS, compare
from .thumbnails import ThumbnailCache, encode_png, shape_warning, thumbnail
from .values import text_grid

PROG = "shrec-eval"
#: data checks that make ``check`` fail; the others are reported as notices
PROBLEMS = {
    "unknown_ids",
    "duplicate_ids",
    "missing_queries",
    "extra_queries",
    "query_line_mismatch",
    "unreadable",
}


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


def _options(args) -> EvalOptions:
    """The engine options of the command line (evaluate, compare, demo)."""
    return EvalOptions(
        ranks=args.ranks,
        curve_length=args.curve_length,
        pr_levels=args.pr_levels,
        pr_interpolation=args.pr_interpolation,
        remove_self=not args.keep_self,
        psb_class_cutoff=args.psb_cutoff,
        f_beta=args.f_beta,
        **_profile_options(args),
    )


def contest_of(args, options: EvalOptions) -> Contest:
    """The contest a command line names (evaluate, check, compare): the
    sources with their reader options, and ``options`` with the collection
    size, which sets Ds in the engine whatever the assessment's format."""
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
        ),
        tuple(
            RunSource(
                path,
                format=args.run_format,
                variant=args.variant,
                trec_order=args.trec_order,
                normalize_ids=normalize,
                name=name,
            )
            for path, name in zip(args.runs, names)
        ),
        replace(options, collection_size=args.collection_size),
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


def _guard_outputs(contest: Contest, **outputs) -> None:
    """Before any work: no output (``json=`` a file, the others folders, as
    the command has them) may replace an input or go inside one."""
    a = contest.assessment
    check_outputs(
        [(f"--{k}", v, "file" if k == "json" else "folder") for k, v in outputs.items()],
        [a.path, a.queries, a.collection, *(r.path for r in contest.runs)],
    )
    profile = get_profile(contest.options.profile)
    if outputs.get("native") and profile.native is None:
        raise UsageError(
            f"the {profile.name} profile has no native output files; "
            "--native needs --profile boli, psbtable or shapenet17"
        )


def _guard_shapes(contest: Contest, **outputs) -> None:
    """No output in or onto a shapes folder."""
    folders = [s.path for s in (contest.shapes, contest.query_shapes) if s is not None]
    for f in folders:
        if not Path(f).is_dir():
            raise UsageError(f"{f}: the shapes folder does not exist (or is not a folder)")
    if folders:
        check_outputs([(f"--{k}", v, "folder") for k, v in outputs.items()], folders)


def _check_keys(keys: Sequence[str], options: EvalOptions) -> None:
    known = [m.key for m in expand(options.ranks, options.profile)]
    for k in keys:
        if k not in known:
            raise UsageError(f"unknown measure {k!r}; run '{PROG} measures' for the keys")


def default_table(assessment, options: EvalOptions) -> tuple[list[str], str]:
    """The columns and the ranking measure of a summary when none are asked
    for (the profile's, else the headline measures and the default rank key);
    the desktop app's Summary and report use the same."""
    profile = get_profile(options.profile)
    rank_key = profile.rank_key or default_rank_key(assessment)
    keys = list(profile.headline) or headline_keys(
        [m.key for m in expand(options.ranks, options.profile)]
    )
    return keys, rank_key


def _table_keys(args, assessment, options: EvalOptions) -> tuple[list[str], str]:
    """The printed columns and the ranking measure, checked before scoring."""
    keys, rank_key = default_table(assessment, options)
    rank_key = args.rank_by or rank_key
    if args.columns:
        keys = [k.strip() for k in args.columns.split(",")]
    _check_keys(keys + [rank_key], options)
    return keys, rank_key


def _score(contest: Contest, assessment) -> list:
    """Read and score every run of the contest, in order."""
    results = []
    for source in contest.runs:
        run = source.load(assessment, **get_profile(contest.options.profile).reader)
        results.append(
            evaluate(assessment, run, contest.options, progress=Progress(label=run.name))
        )
    names = distinct_names([r.run_name for r in results], [r.run_source for r in results])
    return [r if r.run_name == n else replace(r, run_name=n) for r, n in zip(results, names)]


def _outputs(args, contest: Contest, assessment, results, out, base=None) -> None:
    """The table, the notes and the files the output options ask for; paths
    in the JSON are relative to ``base`` when given (else as named).  With
    more results than runs (shapenet17: one per dataset of a method), each
    result's own source is its path in the JSON."""
    per_run = len(results) == len(contest.runs)
    keys, rank_key = _table_keys(args, assessment, contest.options)
    out.write(Summary.build(results, keys, rank_key).text() + "\n")
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
        gallery = _gallery(args, contest, assessment, results, keys, rank_key, out)
        if gallery is None:
            write_report(args.report, assessment, results, keys=keys, rank_key=rank_key)
        else:
            files = {**report_files(assessment, results, keys=keys, rank_key=rank_key), **gallery}
            write_folder(args.report, files, replaces=REPORT_FILES)
    _native(args, assessment, results)


def _gallery(args, contest: Contest, assessment, results, keys, rank_key, out) -> dict | None:
    """The gallery's files for --report when the contest has shapes (None
    without): the runs are read again for their lists (the scores keep no
    lists), the thumbnails come from the per-user cache."""
    if contest.shapes is None and contest.query_shapes is None:
        return None
    if len(results) != len(contest.runs):
        out.write("note: no gallery: the runs' datasets have different queries\n")
        return None
    shapes = contest.shapes.index() if contest.shapes is not None else None
    query_shapes = contest.query_shapes.index() if contest.query_shapes is not None else None
    reader = get_profile(contest.options.profile).reader
    runs = [source.load(assessment, **reader) for source in contest.runs]
    files, problems = gallery_files(
        assessment,
        results,
        run_lists(assessment, runs, contest.options),
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


def _native(args, assessment, results) -> None:
    """--native DIR: the evaluator's own files (one folder per run when
    there are several)."""
    if args.native:  # every command with results has the profile options
        write_native(args.native, assessment, results)


# -- commands ------------------------------------------------------------------------


def cmd_evaluate(args, out) -> int:
    contest = contest_of(args, _options(args))
    _guard_outputs(contest, json=args.json, csv=args.csv, report=args.report, native=args.native)
    _guard_shapes(contest, report=args.report)
    if contest.options.profile == "shapenet17":
        assessment, results = shapenet17.score_methods(
            contest.assessment.path,
            contest.runs,
            contest.options,
            progress=lambda name: Progress(label=name),
        )
    else:
        assessment = contest.assessment.load()
        _table_keys(args, assessment, contest.options)
        results = _score(contest, assessment)
    _outputs(args, contest, assessment, results, out)
    return 0


def _no_shapenet(options: EvalOptions, command: str) -> None:
    if options.profile == "shapenet17":
        raise UsageError(
            f"the shapenet17 profile scores method folders with 'evaluate'; "
            f"'{command}' does not take it"
        )


def cmd_demo(args, out) -> int:
    manifest = demo_manifest()
    contest = Contest.read(manifest)
    contest = replace(contest, options=_options(args), **_shapes_args(args, contest))
    _no_shapenet(contest.options, "demo")
    _guard_outputs(contest, json=args.json, csv=args.csv, report=args.report, native=args.native)
    _guard_shapes(contest, report=args.report)
    assessment = contest.assessment.load()
    _table_keys(args, assessment, contest.options)
    results = _score(contest, assessment)
    out.write(
        f"{contest.name}: {assessment.n_queries} queries, collection of "
        f"{assessment.collection_size}, {assessment.kind}\n\n"
    )
    _outputs(args, contest, assessment, results, out, base=Path(manifest).parent)
    return 0


def cmd_measures(args, out) -> int:
    rows = [
        (
            m.key,
            m.label,
            m.definition
            + (f" [profile {', '.join(m.measure.profiles)} only]" if m.measure.profiles else ""),
        )
        for m in expand(args.ranks, None)
    ]
    out.write("".join(line + "\n" for line in text_grid(rows, left=3)))
    return 0


def check_run(assessment, source: RunSource, options: EvalOptions, strict: bool = False) -> dict:
    """Read and check one submission; every finding as a dict (a notice is
    a problem too when ``strict``)."""
    entry = {
        "path": str(source.path),
        "name": source.name,
        "format": None,
        "problems": [],
        "notices": [],
    }
    try:
        run = source.load(assessment, **get_profile(options.profile).reader)
    except ContestFileError as exc:
        entry["problems"].append(
            {"code": "unreadable", "message": str(exc), "count": 1, "examples": []}
        )
        entry["verdict"] = "cannot be read"
        return entry
    # the engine runs every data check (coverage, truncation, ties) as it scores
    result = evaluate(assessment, run, options)
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
        kind = "problems" if w.code in PROBLEMS or strict else "notices"
        entry[kind].append(w.to_dict())
    entry["verdict"] = "problems" if entry["problems"] else "ok"
    return entry


def cmd_check(args, out) -> int:
    contest = contest_of(
        args, EvalOptions(remove_self=not args.keep_self, **_profile_options(args))
    )
    _guard_outputs(contest, json=args.json, native=args.native)
    _no_shapenet(contest.options, "check")
    assessment = contest.assessment.load()
    size = contest.options.collection_size or assessment.collection_size
    report = {
        "tool": {"name": PROG, "version": __version__},
        "profile": args.profile,
        "assessment": {
            "path": args.assessment,
            "kind": assessment.kind,
            "queries": assessment.n_queries,
            "collection_size": size,
        },
        "runs": [],
    }
    out.write(
        f"assessment {args.assessment}: {assessment.kind}, {assessment.n_queries} queries, "
        f"collection of {size}; profile {args.profile}\n"
    )
    results = []
    for path, source in zip(args.runs, contest.runs):
        e = check_run(assessment, source, contest.options, args.strict)
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
        _native(args, assessment, results)
    return 1 if any(e["verdict"] != "ok" for e in report["runs"]) else 0


def cmd_compare(args, out) -> int:
    contest = contest_of(args, _options(args))
    _guard_outputs(contest, json=args.json, report=args.report, native=args.native)
    _no_shapenet(contest.options, "compare")
    _check_keys([args.measure], contest.options)
    assessment = contest.assessment.load()
    results = _score(contest, assessment)
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
    _native(args, assessment, results)
    if args.json:
        write_json(
            args.json,
            {
                "tool": {"name": PROG, "version": __version__},
                "profile": args.profile,
                "assessment": args.assessment,
                "comparison": c.to_dict(),
            },
        )
    if args.report:
        write_report(
            args.report, assessment, results, rank_key=args.measure, comparison=c, test=tests[0]
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


def cmd_thumbnails(args, out) -> int:
    """Every shape of a folder as a PNG thumbnail in OUT (created when
    missing; thumbnails of the same names replaced, nothing else touched)."""
    source = ShapesSource(args.shapes, args.layout, normalize_ids=not args.no_normalize_ids)
    check_outputs([("OUT", args.out, "folder")], [source.path])
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
    for done, item in enumerate(ids, start=1):
        t = thumbnail(index.files(item), args.size, cache)
        if not t.ok:
            problems[item] = t.problem
        write_bytes(target / thumb_name(item).removeprefix("thumbs/"), encode_png(t.rgba))
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
    "check": cmd_check,
    "compare": cmd_compare,
    "measures": cmd_measures,
    "demo": cmd_demo,
    "thumbnails": cmd_thumbnails,
}
