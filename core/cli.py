"""``shrec-eval``: batch scoring, submission checks, reports and the demo.

Never imports Qt.  Exit codes: 0 success, 1 submission problems (``check``),
2 usage or format error (one line on stderr; ``--debug`` shows the
traceback).
"""

from __future__ import annotations

import argparse
import signal
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np

from . import __version__
from .atomic import check_outputs
from .contest import AssessmentSource, Contest, RunSource
from .engine import evaluate
from .errors import ContestFileError, OptionsError, ShrecEvalError, UsageError
from .measures import expand
from .options import AVERAGES, PR_INTERPOLATIONS, PROFILES, EvalOptions
from .profiles import get_profile
from .profiles.native import write_native
from .readers import ASSESSMENT_FORMATS, RANKLIST_VARIANTS, RUN_FORMATS
from .report import (
    Summary,
    default_rank_key,
    headline_keys,
    to_json,
    write_csv_dir,
    write_json,
    write_report,
)
from .resources import demo_manifest
from .stats import CORRECTIONS, TESTS, UNITS, compare
from .values import parse_positive, parse_ranks, text_grid

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


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one clear line instead of usage + error
        raise UsageError(f"{message} (see {self.prog} --help)")


def _argument_type(parse):
    """An argparse ``type`` from a parser of :mod:`shrec_eval.values`."""

    def convert(text: str):
        try:
            return parse(text)
        except OptionsError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = parse.__name__
    return convert


_ranks = _argument_type(parse_ranks)
_positive = _argument_type(parse_positive)


def _reading_parser() -> argparse.ArgumentParser:
    """The files of a contest and how to read them (evaluate, check, compare)."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("assessment", metavar="ASSESSMENT")
    p.add_argument("runs", nargs="+", metavar="RUN")
    g = p.add_argument_group("reading the files")
    g.add_argument(
        "--queries",
        metavar="QUERY.cla",
        help="query classification: external queries, relevant = same class name",
    )
    g.add_argument(
        "--sister-classes",
        action="store_true",
        help="graded relevance from the .cla: same class 2, sister classes 1",
    )
    g.add_argument(
        "--collection-size",
        "-N",
        type=_positive,
        metavar="N",
        help="collection size (TREC qrels do not know it; also changes TN)",
    )
    g.add_argument("--collection", metavar="FILE", help="collection ids, one per line (qrels)")
    g.add_argument(
        "--assessment-format",
        choices=sorted(ASSESSMENT_FORMATS),
        help="override the detected assessment format",
    )
    g.add_argument(
        "--run-format",
        choices=sorted(RUN_FORMATS),
        help="override the detected run format (all runs)",
    )
    g.add_argument(
        "--variant",
        choices=sorted(RANKLIST_VARIANTS),
        help="rank-list variant (detected from content by default)",
    )
    g.add_argument(
        "--trec-order",
        action="store_true",
        help="sort TREC runs as trec_eval does (score desc, docno desc)",
    )
    g.add_argument(
        "--no-normalize-ids",
        action="store_true",
        help="keep ids as written (no m/model_ prefix or zero-padding removal)",
    )
    g.add_argument(
        "--names",
        metavar="N1,N2,...",
        help="run names, comma separated, in the order of the run files",
    )
    return p


def _engine_parser() -> argparse.ArgumentParser:
    """The engine options (evaluate, compare, demo)."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("measures")
    g.add_argument(
        "--ranks",
        type=_ranks,
        default=EvalOptions().ranks,
        metavar="K1,K2,...",
        help="the K of p@K, r@K, (n)(d)cg@K (default 5,10,25,50,100)",
    )
    g.add_argument(
        "--curve-length",
        type=_positive,
        default=100,
        metavar="N",
        help="ranks of the (N)(D)CG and F curves (default 100)",
    )
    g.add_argument(
        "--pr-levels",
        type=int,
        choices=(11, 21),
        default=21,
        help="recall levels of the precision-recall curve (default 21)",
    )
    g.add_argument(
        "--pr-interpolation",
        choices=PR_INTERPOLATIONS,
        default="max",
        help="max: P(r) = max precision at recall >= r; psb: psbPlot/SHREC MATLAB",
    )
    g.add_argument(
        "--keep-self",
        action="store_true",
        help="do not remove a query from its own ranked list (leave-one-out)",
    )
    g.add_argument(
        "--psb-cutoff",
        action="store_true",
        help="leave queries of classes with at most 2 members out of the means",
    )
    g.add_argument("--f-beta", type=float, default=1.0, help="weight of the F-measure curve")
    return p


def _profile_parser() -> argparse.ArgumentParser:
    """The evaluator profile and the averaging (evaluate, check, compare, demo)."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("evaluator profile and averaging")
    g.add_argument(
        "--profile",
        choices=PROFILES,
        default="shrec",
        help="follow the rules of an official evaluator (default shrec = measures.md; "
        "see README, Profiles)",
    )
    g.add_argument(
        "--average",
        choices=AVERAGES,
        default="micro",
        help="what the run mean is: micro (over queries), macro (over classes), "
        "proportional or reciprocal (queries weighted by n_q or 1/n_q)",
    )
    g.add_argument(
        "--native",
        metavar="DIR",
        help="write the evaluator's own output files (DIR/<run name>/ with several runs)",
    )
    g.add_argument(
        "--max-rank",
        "-M",
        type=_positive,
        metavar="N",
        help="only the first N entries of each list count (trec_eval -M)",
    )
    g.add_argument(
        "--relevance-level",
        "-l",
        type=_positive,
        default=1,
        metavar="L",
        help="judgments below grade L count as not relevant (trec_eval -l; default 1)",
    )
    g.add_argument(
        "--complete-queries",
        "-c",
        action="store_true",
        help="trec_eval profile: average over every query of the qrels, a missing one "
        "scoring 0 (trec_eval -c; -N is --collection-size)",
    )
    return p


def _output_parser() -> argparse.ArgumentParser:
    """The tables and files of a scored contest (evaluate, demo)."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("output")
    g.add_argument(
        "--rank-by",
        metavar="KEY",
        help="measure that ranks the runs (default adr if graded, else ap_trec_r)",
    )
    g.add_argument("--columns", metavar="K1,K2,...", help="measures of the printed table")
    g.add_argument("--json", metavar="FILE", help="write every number as JSON (see README)")
    g.add_argument("--csv", metavar="DIR", help="write summary.csv and per_query.csv")
    g.add_argument(
        "--report",
        metavar="DIR",
        help="write summary.csv, per_query.csv, summary.md, summary.tex, index.html",
    )
    return p


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show tracebacks")
    reading, engine, output = _reading_parser(), _engine_parser(), _output_parser()
    profile = _profile_parser()
    p = _Parser(
        prog=PROG, description="Score 3D shape retrieval contests (SHREC, PSB).", parents=[common]
    )
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.add_parser(
        "evaluate",
        help="score runs and print the summary table",
        parents=[common, reading, engine, profile, output],
    )
    ch = sub.add_parser(
        "check",
        help="check submissions before scoring (exit 1 on problems)",
        parents=[common, reading, profile],
    )
    ch.add_argument("--keep-self", action="store_true", help=argparse.SUPPRESS)
    ch.add_argument(
        "--strict",
        action="store_true",
        help="count notices (truncated lists, ties, ...) as problems too",
    )
    ch.add_argument("--json", metavar="FILE", help="write the checks as JSON")
    co = sub.add_parser(
        "compare",
        help="which differences are real: paired tests, confidence intervals, corrected p-values",
        parents=[common, reading, engine, profile],
    )
    g = co.add_argument_group("comparison")
    g.add_argument(
        "--unit",
        choices=UNITS,
        default="query",
        help="pair the runs' values per query (default) or per class (class means)",
    )
    g.add_argument("--measure", required=True, metavar="KEY", help="the measure to compare on")
    g.add_argument(
        "--test",
        action="append",
        choices=sorted(TESTS),
        dest="tests",
        help="paired test (repeat for several; default all three)",
    )
    g.add_argument(
        "--correction",
        choices=sorted(CORRECTIONS),
        default="holm",
        help="multiple-comparison correction across the pairs (default holm)",
    )
    g.add_argument("--alpha", type=float, default=0.05, help="significance level (0.05)")
    g.add_argument(
        "--resamples",
        type=_positive,
        default=10000,
        help="randomization and bootstrap resamples (10000)",
    )
    g.add_argument("--seed", type=int, default=0, help="random seed (0)")
    g.add_argument(
        "--confidence", type=float, default=0.95, help="confidence level of the intervals (0.95)"
    )
    g.add_argument("--json", metavar="FILE", help="means, intervals, raw and corrected p-values")
    g.add_argument(
        "--report", metavar="DIR", help="the report files with significance markers on the measure"
    )
    me = sub.add_parser(
        "measures", help="list the measures (key, label, definition)", parents=[common]
    )
    me.add_argument("--ranks", type=_ranks, default=EvalOptions().ranks, metavar="K1,K2,...")
    sub.add_parser(
        "demo",
        help="score the bundled demo contest and print its table",
        parents=[common, engine, profile, output],
    )
    return p


# -- helpers ----------------------------------------------------------------------


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
        profile=args.profile,
        average=args.average,
        max_rank=args.max_rank,
        relevance_level=args.relevance_level,
        complete_queries=args.complete_queries,
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
    )


def _guard_outputs(args, contest: Contest) -> None:
    """Before any work: no output may replace an input or go inside one."""
    a = contest.assessment
    check_outputs(
        [
            (f"--{k}", getattr(args, k, None), "file" if k == "json" else "folder")
            for k in ("json", "csv", "report", "native")
        ],
        [a.path, a.queries, a.collection, *(r.path for r in contest.runs)],
    )


def _check_keys(keys: Sequence[str], options: EvalOptions) -> None:
    known = [m.key for m in expand(options.ranks, options.profile)]
    for k in keys:
        if k not in known:
            raise UsageError(f"unknown measure {k!r}; run '{PROG} measures' for the keys")


def _table_keys(args, assessment, options: EvalOptions) -> tuple[list[str], str]:
    """The printed columns and the ranking measure, checked before scoring."""
    rank_key = args.rank_by or default_rank_key(assessment)
    keys = (
        [k.strip() for k in args.columns.split(",")]
        if args.columns
        else headline_keys([m.key for m in expand(options.ranks, options.profile)])
    )
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
    return results


def _outputs(args, contest: Contest, assessment, results, out, base=None) -> None:
    """The table, the notes and the files the output options ask for; paths
    in the JSON are relative to ``base`` when given (else as named)."""
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
            run_paths=[r.to_dict(base)["path"] for r in contest.runs],
            assessment_reader=source,
            run_readers=[r.reader_dict() for r in contest.runs],
        )
        write_json(args.json, doc)
    if args.csv:
        write_csv_dir(args.csv, results, rank_key)
    if args.report:
        write_report(args.report, assessment, results, keys=keys, rank_key=rank_key)
    _native(args, assessment, results)


def _native(args, assessment, results) -> None:
    """--native DIR: the evaluator's own files (one folder per run when
    there are several)."""
    if args.native:  # every command with results has the profile options
        write_native(args.native, assessment, results)


# -- commands ------------------------------------------------------------------------


def cmd_evaluate(args, out) -> int:
    contest = contest_of(args, _options(args))
    _guard_outputs(args, contest)
    assessment = contest.assessment.load()
    _table_keys(args, assessment, contest.options)
    _outputs(args, contest, assessment, _score(contest, assessment), out)
    return 0


def cmd_demo(args, out) -> int:
    manifest = demo_manifest()
    contest = replace(Contest.read(manifest), options=_options(args))
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
        args,
        EvalOptions(
            remove_self=not args.keep_self,
            profile=args.profile,
            average=args.average,
            max_rank=args.max_rank,
            relevance_level=args.relevance_level,
            complete_queries=args.complete_queries,
        ),
    )
    _guard_outputs(args, contest)
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
    _guard_outputs(args, contest)
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


COMMANDS = {
    "evaluate": cmd_evaluate,
    "check": cmd_check,
    "compare": cmd_compare,
    "measures": cmd_measures,
    "demo": cmd_demo,
}


def main(argv: Sequence[str] | None = None, out=None) -> int:
    out = out if out is not None else sys.stdout
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    try:
        args = build_parser().parse_args(argv)
        if not args.command:
            raise UsageError(f"a command is needed: {', '.join(COMMANDS)} (see {PROG} --help)")
        return COMMANDS[args.command](args, out)
    except SystemExit as exc:  # --help and --version
        return int(exc.code or 0)
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted\n")
        return 130
    except Terminated:
        sys.stderr.write(f"{PROG}: terminated\n")
        return 143
    except Exception as exc:
        if debug:
            raise
        if isinstance(exc, ShrecEvalError):  # the one place user errors are caught
            msg = str(exc)
        elif isinstance(exc, OSError):
            msg = f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": ")
        else:
            msg = f"unexpected {type(exc).__name__}: {exc} (run with --debug for details)"
        sys.stderr.write(f"{PROG}: error: {msg}\n")
        return 2


class Terminated(BaseException):
    """SIGTERM, raised where the program is so that every ``finally`` and
    clean-up (temporary files, half-built report folders) runs."""


def _terminate(signum, frame) -> None:
    raise Terminated()


def entry_point() -> None:
    """The ``shrec-eval`` command: SIGINT and SIGTERM become exceptions, so
    that no temporary file is left behind (exit 130 and 143)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _terminate)
    sys.exit(main())
