"""``shrec-eval``: batch scoring, submission checks, reports and the demo.

This module is what the command line accepts (the commands and their
options, shared through parent parsers) and :func:`main`, the one place
where a user error (:class:`~shrec_eval.errors.ShrecEvalError`) becomes one
line on stderr; what each command does is :mod:`shrec_eval.commands`.

Never imports Qt.  Exit codes: 0 success, 1 submission problems (``check``),
2 usage or format error (one line on stderr; ``--debug`` shows the
traceback), 130 interrupted, 143 terminated, 141 output pipe closed.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Sequence

from . import __version__
from .commands import COMMANDS, PROG
from .errors import OptionsError, ShrecEvalError, UsageError
from .gallery import GALLERY_MODES
from .memory import keep_freed_blocks
from .options import (
    AVERAGES,
    MAX_BETA,
    MAX_COLLECTION,
    MAX_RANK,
    PR_INTERPOLATIONS,
    PROFILES,
    EvalOptions,
)
from .readers import ASSESSMENT_FORMATS, RANKLIST_VARIANTS, RUN_FORMATS
from .stats import CORRECTIONS, TESTS, UNITS
from .values import parse_ranks, parse_real, parse_whole


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


def _bounded(parse, *bounds, **kw):
    """An argparse ``type`` for a number in a range (the error names the option)."""
    f = _argument_type(lambda text: parse(text, *bounds, **kw))
    f.__name__ = "number"
    return f


_ranks = _argument_type(parse_ranks)
_rank = _bounded(parse_whole, 1, MAX_RANK)
_collection = _bounded(parse_whole, 1, MAX_COLLECTION)
#: randomization and bootstrap resamples: 1,000,000 is about 8 bytes x
#: queries x resamples of working memory at once
_resamples = _bounded(parse_whole, 1, 1_000_000)
_seed = _bounded(parse_whole, 0, 2**63 - 1)
_grade = _bounded(parse_whole, 1, 2**31 - 1)
_beta = _bounded(parse_real, 0.0, MAX_BETA)
_probability = _bounded(parse_real, 0.0, 0.999999)


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
        type=_collection,
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
        type=_rank,
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
    g.add_argument("--f-beta", type=_beta, default=1.0, help="weight of the F-measure curve")
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
        type=_rank,
        metavar="N",
        help="only the first N entries of each list count (trec_eval -M)",
    )
    g.add_argument(
        "--relevance-level",
        "-l",
        type=_grade,
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


_size = _bounded(parse_whole, 16, 1024)
_k = _bounded(parse_whole, 1, 100)
_n = _bounded(parse_whole, 1, 1000)


def _shapes_parser() -> argparse.ArgumentParser:
    """The shapes of a contest and the report's gallery (evaluate, demo)."""
    p = argparse.ArgumentParser(add_help=False)
    g = p.add_argument_group("shapes and the report's gallery (docs/shapes.md)")
    g.add_argument(
        "--shapes",
        metavar="DIR",
        help="the collection's shapes (PSB db/, ShapeNet synsets, or <id>.off/.obj/... files); "
        "with --report, gallery.html and thumbs/ are written",
    )
    g.add_argument(
        "--shapes-layout",
        metavar="LAYOUT",
        help="psb, shapenet, flat or a pattern such as models/{id}/mesh.ply (default: detected)",
    )
    g.add_argument(
        "--query-shapes",
        metavar="DIR",
        help="the queries' shapes or images (sketch and image queries); default: --shapes",
    )
    g.add_argument("--query-shapes-layout", metavar="LAYOUT", help="as --shapes-layout")
    g.add_argument(
        "--gallery",
        choices=GALLERY_MODES,
        default="all",
        help="the gallery's queries: all, or the N worst / best of each run (default all)",
    )
    g.add_argument(
        "--gallery-queries",
        type=_n,
        default=5,
        metavar="N",
        help="N of --gallery worst|best (default 5)",
    )
    g.add_argument(
        "--gallery-k", type=_k, default=10, metavar="K", help="results shown per run (default 10)"
    )
    g.add_argument(
        "--thumbnail-size", type=_size, default=128, metavar="PX", help="thumbnail side (128)"
    )
    return p


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show tracebacks")
    reading, engine, output = _reading_parser(), _engine_parser(), _output_parser()
    shapes = _shapes_parser()
    profile = _profile_parser()
    p = _Parser(
        prog=PROG, description="Score 3D shape retrieval contests (SHREC, PSB).", parents=[common]
    )
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.add_parser(
        "evaluate",
        help="score runs and print the summary table",
        parents=[common, reading, engine, profile, output, shapes],
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
    g.add_argument("--alpha", type=_probability, default=0.05, help="significance level (0.05)")
    g.add_argument(
        "--resamples",
        type=_resamples,
        default=10000,
        help="randomization and bootstrap resamples (10000)",
    )
    g.add_argument("--seed", type=_seed, default=0, help="random seed (0)")
    g.add_argument(
        "--confidence",
        type=_probability,
        default=0.95,
        help="confidence level of the intervals (0.95)",
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
        parents=[common, engine, profile, output, shapes],
    )
    th = sub.add_parser(
        "thumbnails",
        help="render a shapes folder's thumbnails (PNG) for a contest site",
        parents=[common],
    )
    th.add_argument("--shapes", required=True, metavar="DIR", help="the shapes folder")
    th.add_argument("out", metavar="OUT", help="the folder of the thumbnails (<id>.png)")
    th.add_argument(
        "--layout",
        metavar="LAYOUT",
        help="psb, shapenet, flat or a pattern such as {id}.obj (default: detected)",
    )
    th.add_argument("--size", type=_size, default=128, metavar="PX", help="side in pixels (128)")
    th.add_argument(
        "--no-normalize-ids", action="store_true", help="name the files by the ids as written"
    )
    th.add_argument("--no-cache", action="store_true", help="draw every shape (no per-user cache)")
    return p


def main(argv: Sequence[str] | None = None, out=None) -> int:
    out = out if out is not None else sys.stdout
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    keep_freed_blocks()  # chunked reading without refaulting its arrays (core/memory.py)
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
    except BrokenPipeError:  # whoever read the output went away (| head): stop quietly
        return _output_closed(out)
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


def _output_closed(out) -> int:
    """Exit status 141 (128 + SIGPIPE, as a shell reports a command its pipe
    killed), with stdout pointed at the null device so that Python's own
    flush at exit does not fail again."""
    if out is sys.stdout:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return 141


def entry_point() -> None:
    """The ``shrec-eval`` command: SIGINT and SIGTERM become exceptions, so
    that no temporary file is left behind (exit 130 and 143); a closed
    output pipe ends it quietly (141)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _terminate)
    code = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = _output_closed(sys.stdout)
    sys.exit(code)
