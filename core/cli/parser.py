"""``shrec-eval``: batch scoring, submission checks, reports and the demo.

This module is what the command line accepts (the commands and their
options, shared through parent parsers) and :func:`main`, the one place
where a user error (:class:`~shrec_eval.errors.ShrecEvalError`) becomes one
line on stderr; what each command does is :mod:`shrec_eval.cli.commands`.

Never imports Qt.  Exit codes: 0 success, 1 submission problems (``check``),
2 usage or format error (one line on stderr; ``--debug`` shows the
traceback), 130 interrupted, 143 terminated, 141 output pipe closed.
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import signal
import sys
from collections.abc import Sequence

# Only light modules here: --help and --version answer without numpy (the
# commands, the engine and the readers are imported once a command runs).
from .._version import __version__
from ..choices import (
    ASSESSMENT_FORMATS,
    CORRECTIONS,
    DEFAULT_PROFILE,
    FIGURE_PRESETS,
    GALLERY_MODES,
    MATRIX_ORDERS,
    METRICS,
    RANKLIST_VARIANTS,
    RUN_FORMATS,
    TESTS,
    UNITS,
)
from ..choices import PROFILE_NAMES as PROFILES
from ..errors import OptionsError, ShrecEvalError, UsageError, shown
from ..model.names import name_bytes
from ..options import (
    AVERAGES,
    MAX_BETA,
    MAX_COLLECTION,
    MAX_RANK,
    PR_INTERPOLATIONS,
    EvalOptions,
)
from ..outputs.atomic import stream_fd
from ..scoring.memory import keep_freed_blocks

PROG = "shrec-eval"
COMMAND_NAMES = ("evaluate", "distances", "check", "compare", "measures", "demo", "thumbnails")


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one clear line instead of usage + error
        raise UsageError(f"{message}{_nearest_choice(message)} (see {self.prog} --help)")


def _nearest_choice(message: str) -> str:
    """'; did you mean ...?' for argparse's "invalid choice: 'X' (choose
    from 'A', 'B')" when one choice is close to X (trec-eval, evalute)."""
    m = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
    if not m:
        return ""
    choices = re.findall(r"'([^']*)'", m.group(2))
    near = difflib.get_close_matches(m.group(1), choices, n=1, cutoff=0.6)
    return f"; did you mean {near[0]}?" if near else ""


def _argument_type(name: str):
    """An argparse ``type`` from a parser of :mod:`shrec_eval.model.values`
    (imported when an option is read: values needs numpy)."""

    def convert(text: str):
        from ..model import values

        try:
            return getattr(values, name)(text)
        except OptionsError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = name
    return convert


def _bounded(name: str, *bounds, **kw):
    """An argparse ``type`` for a number in a range (the error names the option)."""

    def convert(text: str):
        from ..model import values

        try:
            return getattr(values, name)(text, *bounds, **kw)
        except OptionsError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    convert.__name__ = "number"
    return convert


def _not_zero(convert, why: str):
    """``convert`` (a whole number from 0 up) refusing 0 with ``why``: what
    trec_eval makes of 0 for the option, and why shrec-eval does not take it."""

    def checked(text: str):
        value = convert(text)
        if value == 0:
            raise argparse.ArgumentTypeError(f"0 is not taken: {why}")
        return value

    checked.__name__ = "number"
    return checked


_ranks = _argument_type("parse_ranks")
_rank = _bounded("parse_whole", 1, MAX_RANK)
_collection = _bounded("parse_whole", 1, MAX_COLLECTION)
#: randomization and bootstrap resamples: 1,000,000 is about 8 bytes x
#: queries x resamples of working memory at once
_resamples = _bounded("parse_whole", 1, 1_000_000)
_seed = _bounded("parse_whole", 0, 2**63 - 1)
_level = _not_zero(
    _bounded("parse_whole", 0, 2**31 - 1),
    "trec_eval -l 0 counts every judged document relevant, grade-0 lines too, while "
    "shrec-eval keeps grade 0 for 'judged not relevant'; for trec_eval's default measures, "
    "raise the qrels' grade 0 to 1 and give -l 1 (the same numbers)",
)
_max_rank = _not_zero(
    _bounded("parse_whole", 0, MAX_RANK),
    "trec_eval -M 0 keeps no document of any list (every value 0, and its "
    "iprec_at_recall printed as -nan); give -M 1 or more",
)
_beta = _bounded("parse_real", 0.0, MAX_BETA)
_probability = _bounded("parse_real", 0.0, 0.999999)


def _reading_parser() -> argparse.ArgumentParser:
    """The files of a contest and how to read them (evaluate, check, compare)."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument(
        "assessment",
        metavar="ASSESSMENT",
        help="who is relevant to which query: a PSB .cla or TREC qrels (formats below); "
        "or, alone, a contest file (CONTEST.json: a session saved by the app; options "
        "given here override its own)",
    )
    p.add_argument(
        "runs",
        nargs="*",
        metavar="RUN",
        help="the runs to score: matrices, rank-list folders, TREC runs (formats below)",
    )
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
        "--matrix-order",
        choices=tuple(MATRIX_ORDERS),
        default="listing",
        help="how a dissimilarity matrix maps onto the assessment: listing (row i / column j = "
        "the i-th query / j-th model as the .cla lists them, psbTable's reading; the default) "
        "or id (row r / column c = the query / model of id r / c; ids 0..N-1, as SHREC 2021's "
        "matrices); when the ids are 0..N-1 listed out of order a note gives the NN of both",
    )
    g.add_argument(
        "--names",
        metavar="N1,N2,...",
        help="run names, comma separated, in the order of the run files",
    )
    g.add_argument(
        "--save-contest",
        metavar="FILE",
        help="write the contest this command line describes (a .json the app opens)",
    )
    _embeddings_group(p)
    g = p.add_argument_group("scale")
    g.add_argument(
        "--dask",
        metavar="SCHEDULER",
        help="score on a Dask cluster (same results): local:N starts N worker processes "
        "here, tcp://HOST:PORT joins a running scheduler (pip install 'shrec-eval[dask]')",
    )
    return p


def _embeddings_group(p: argparse.ArgumentParser, top_k: bool = True) -> None:
    """How feature vectors are read and ranked (embedding runs, distances)."""
    g = p.add_argument_group("embedding runs (.npy, .npz)")
    g.add_argument(
        "--metric",
        choices=tuple(METRICS),
        help="distance between feature vectors (default cosine)",
    )
    g.add_argument(
        "--ids", metavar="FILE", help="ids of a .npy's rows, one per line (default: item order)"
    )
    if top_k:
        g.add_argument(
            "--top-k",
            type=_rank,
            metavar="K",
            help="keep each query's first K results (partial selection; measures past "
            "rank K become bounds, see the note)",
        )


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
        help="max: P(r) = max precision at recall >= r; psb: psbPlot/SHREC MATLAB; "
        "psbplot: psbPlot's own curve (the query counted as relevant, float32)",
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
        default=DEFAULT_PROFILE,
        help="follow the rules of an official evaluator: its list handling, definitions, "
        "averages, table columns and ranking measure (default shrec; 'shrec-eval measures "
        "--profile NAME' shows what it computes)",
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
        type=_max_rank,
        metavar="N",
        help="only the first N entries of each list count (trec_eval -M)",
    )
    g.add_argument(
        "--relevance-level",
        "-l",
        type=_level,
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
        help="measure that ranks the runs (default: the profile's; shrec: adr for sister-class "
        "grades of a .cla, else ap_trec_r)",
    )
    g.add_argument(
        "--format",
        default="table",
        metavar="{table,PROFILE}",
        help="what goes to standard output: the summary table (default), or a profile's own "
        "text output: with --profile trec_eval, --format trec_eval prints exactly what the "
        "trec_eval binary prints for its default measures",
    )
    g.add_argument(
        "--per-query",
        "-q",
        action="store_true",
        help="--format trec_eval: every query's values before the summary (trec_eval -q)",
    )
    g.add_argument(
        "--columns",
        metavar="K1,K2,...",
        help="measures of the printed table (keys or other tools' names: map,P_10,NN)",
    )
    g.add_argument(
        "--json",
        metavar="FILE",
        help="write every number as JSON (means, per-query values, curves, data checks)",
    )
    g.add_argument("--csv", metavar="DIR", help="write summary.csv and per_query.csv")
    g.add_argument(
        "--report",
        metavar="DIR",
        help="write summary.csv, per_query.csv, summary.md, summary.tex (one column), "
        "summary-wide.tex, index.html and figures/ (PDF, SVG, PNG)",
    )
    _figure_preset_option(g)
    return p


def _figure_preset_option(g) -> None:
    g.add_argument(
        "--figure-preset",
        choices=FIGURE_PRESETS,
        default="column",
        help="size and text of the report's figures: column (8.5 cm, 8 pt; the default), "
        "two-columns (17.5 cm, 8 pt), slide (16:9, 14 pt)",
    )


_size = _bounded("parse_whole", 16, 1024)
_k = _bounded("parse_whole", 1, 100)
_n = _bounded("parse_whole", 1, 1000)


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


def _formats(title: str, formats: dict) -> str:
    return title + "\n" + "".join(f"  {k:14s} {v}\n" for k, v in formats.items())


#: what ASSESSMENT and RUN may be (the help of every command that reads a contest)
INPUTS = (
    _formats(
        "ASSESSMENT (format detected from the content, or --assessment-format):", ASSESSMENT_FORMATS
    )
    + "  a .cla alone: every model is a query (leave-one-out); --queries Q.cla: external\n"
    "  queries; qrels: give --collection-size N (or --collection FILE) for TN and E.\n\n"
    + _formats("RUN (any number; detected from the content, or --run-format):", RUN_FORMATS)
    + _formats("  rank-list folder variants (--variant):", RANKLIST_VARIANTS)
)
MEASURE_NAMES = (
    "Measure names (--columns, --rank-by, compare --measure): the keys of 'shrec-eval\n"
    "measures', or trec_eval's, ir_measures' and the SHREC toolkits' names (map, P_10,\n"
    "nDCG@10, recip_rank, NN, FT); 'shrec-eval measures --profile NAME' lists them."
)


def _examples(*lines: tuple[str, str]) -> str:
    return "examples:\n" + "".join(f"  {cmd}\n      {what}\n" for cmd, what in lines)


def _command(sub, name: str, help: str, parents, *, epilog: str, description: str = ""):
    return sub.add_parser(
        name,
        help=help,
        description=description or help[0].upper() + help[1:] + ".",
        parents=parents,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def _evaluate_args(sub, common, reading, engine, profile, output, shapes) -> None:
    _command(
        sub,
        "evaluate",
        "score runs and print the summary table",
        [common, reading, engine, profile, output, shapes],
        epilog=INPUTS
        + "\n"
        + MEASURE_NAMES
        + "\n\n"
        + _examples(
            (
                "shrec-eval evaluate psb_test.cla alice.matrix bob.txt carol/",
                "a PSB contest: a binary matrix, an ASCII matrix and a rank-list folder",
            ),
            (
                "shrec-eval evaluate target.cla --queries queries.cla --sister-classes "
                "run.trec --report out/",
                "SHREC 2006 style graded relevance, with a report folder (CSV, Markdown, "
                "LaTeX, HTML)",
            ),
            (
                "shrec-eval evaluate qrels.txt run.trec --profile trec_eval --format trec_eval -q",
                "prints what 'trec_eval -q qrels.txt run.trec' prints, byte for byte",
            ),
            (
                "shrec-eval evaluate datasetShape.cla --queries queryShape.cla testShape/* "
                "--profile sipiran21 --native tables/",
                "SHREC 2021's script (matrices indexed by model id): its table.txt and table.tex",
            ),
        ),
    )


def _check_args(sub, common, reading, profile) -> None:
    ch = _command(
        sub,
        "check",
        "check submissions before scoring (exit 1 on problems)",
        [common, reading, profile],
        epilog=INPUTS
        + "\n"
        + _examples(
            (
                "shrec-eval check psb_test.cla team1.matrix team2/",
                "unknown or repeated ids, missing queries, unreadable files: exit 1",
            ),
            (
                "shrec-eval check qrels.txt run.trec --strict --json checks.json",
                "notices (ties, truncated lists) count as problems too; every finding as JSON",
            ),
        ),
    )
    ch.add_argument("--keep-self", action="store_true", help=argparse.SUPPRESS)
    ch.add_argument(
        "--strict",
        action="store_true",
        help="count notices (truncated lists, ties, ...) as problems too",
    )
    ch.add_argument("--json", metavar="FILE", help="write the checks as JSON")


def _compare_args(sub, common, reading, engine, profile) -> None:
    co = _command(
        sub,
        "compare",
        "which differences are real: paired tests, confidence intervals, corrected p-values",
        [common, reading, engine, profile],
        epilog=INPUTS
        + "\n"
        + MEASURE_NAMES
        + "\n\n"
        + _examples(
            (
                "shrec-eval compare target.cla a.txt b.txt c.txt --measure ap_trec_r",
                "t-test, Wilcoxon and randomization test per pair, Holm-corrected",
            ),
            (
                "shrec-eval compare qrels.txt a.trec b.trec --profile trec_eval --measure map "
                "--test t",
                "trec_eval's MAP, the paired t-test only",
            ),
            (
                "shrec-eval compare psb.cla a.matrix b.matrix --measure NN --unit class",
                "pairs the runs' class means of the nearest-neighbour score",
            ),
        ),
    )
    g = co.add_argument_group("comparison")
    g.add_argument(
        "--unit",
        choices=UNITS,
        default="query",
        help="pair the runs' values per query (default) or per class (class means)",
    )
    g.add_argument(
        "--measure",
        required=True,
        metavar="KEY",
        help="the measure to compare on (a key or another tool's name: map, P_10)",
    )
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
    _figure_preset_option(g)


def _measures_args(sub, common) -> None:
    me = _command(
        sub,
        "measures",
        "list the measures (key, label, other tools' names, definition)",
        [common],
        epilog=_examples(
            ("shrec-eval measures", "every measure of the registry at ranks 5,10,25,50,100"),
            (
                "shrec-eval measures --profile trec_eval",
                "what the trec_eval profile computes, trec_eval's names for it, and its table",
            ),
            ("shrec-eval measures --ranks 1,20", "the @K measures at ranks 1 and 20"),
        ),
    )
    me.add_argument("--ranks", type=_ranks, default=EvalOptions().ranks, metavar="K1,K2,...")
    me.add_argument(
        "--profile",
        choices=PROFILES,
        help="only the measures this profile computes, the names that hold there, "
        "and its table columns and ranking measure",
    )


def _demo_args(sub, common, engine, profile, output, shapes) -> None:
    _command(
        sub,
        "demo",
        "score the bundled demo contest and print its table",
        [common, engine, profile, output, shapes],
        epilog=_examples(
            ("shrec-eval demo", "7 runs of a synthetic graded contest, ranked by ADR"),
            (
                "shrec-eval demo --profile psbtable --columns NN,FT,ST,E,DCG",
                "the same runs with psbTable's numbers",
            ),
            ("shrec-eval demo --report demo_report/", "the report files of the demo"),
        ),
    )


def _distances_args(sub, common) -> None:
    di = _command(
        sub,
        "distances",
        "write the distance matrix of feature vectors (PSB binary float32)",
        [common],
        epilog=_examples(
            (
                "shrec-eval distances feats.npy --metric cosine -o feats.matrix",
                "the N x N cosine distances of a .npy's rows (item order)",
            ),
            (
                "shrec-eval distances feats.npz --assessment test.cla -o test.matrix",
                "the distances in the order scoring the features against test.cla ranks them",
            ),
        ),
    )
    di.add_argument("features", metavar="FEATURES", help=".npy or .npz feature vectors")
    di.add_argument("-o", "--output", required=True, metavar="OUT.matrix", help="the matrix file")
    _embeddings_group(di, top_k=False)
    g = di.add_argument_group("the order of rows and columns")
    g.add_argument(
        "--assessment",
        metavar="ASSESSMENT",
        help="its queries x its items, as scoring the features ranks them "
        "(default: the file's rows, or query rows x gallery rows, in file order)",
    )
    g.add_argument("--queries", metavar="QUERY.cla", help="query classification of --assessment")
    g.add_argument("--collection", metavar="FILE", help="collection ids of qrels, one per line")
    g.add_argument(
        "--no-normalize-ids", action="store_true", help="keep ids as written (see evaluate)"
    )


def _thumbnails_args(sub, common) -> None:
    th = _command(
        sub,
        "thumbnails",
        "render a shapes folder's thumbnails (PNG) for a contest site",
        [common],
        epilog=_examples(
            (
                "shrec-eval thumbnails --shapes psb/db thumbs/",
                "a PNG per model of the Princeton Shape Benchmark's db/ folder",
            ),
            (
                "shrec-eval thumbnails --shapes models/ --layout '{id}.obj' --size 256 out/",
                "256 px thumbnails of <id>.obj files",
            ),
        ),
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


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show tracebacks")
    reading, engine, output = _reading_parser(), _engine_parser(), _output_parser()
    profile, shapes = _profile_parser(), _shapes_parser()
    p = _Parser(
        prog=PROG,
        description="Score 3D shape retrieval contests (SHREC, PSB, ShapeNet) and TREC runs.",
        parents=[common],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_examples(
            ("shrec-eval demo", "score the bundled demo contest and print its table"),
            (
                "shrec-eval evaluate psb_test.cla alice.matrix bob/ --report out/",
                "score two runs of a PSB contest and write a report folder",
            ),
            (
                "shrec-eval evaluate qrels.txt run.trec --profile trec_eval --columns map,P_10",
                "score a TREC run as trec_eval does, with trec_eval's names",
            ),
            ("shrec-eval evaluate --help", "a command's options, inputs and examples"),
        ),
    )
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    _evaluate_args(sub, common, reading, engine, profile, output, shapes)
    _distances_args(sub, common)
    _check_args(sub, common, reading, profile)
    _compare_args(sub, common, reading, engine, profile)
    _measures_args(sub, common)
    _demo_args(sub, common, engine, profile, output, shapes)
    _thumbnails_args(sub, common)
    assert tuple(sub.choices) == COMMAND_NAMES
    return p


def _option_strings(parser: argparse.ArgumentParser) -> list[str]:
    return [o for a in parser._actions for o in a.option_strings if o.startswith("--")]


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    """The command line parsed; an unknown option names the command's help
    and the nearest option of that command."""
    parser = build_parser()
    args, rest = parser.parse_known_args(argv)
    if rest and hasattr(args, "runs") and not any(r.startswith("-") for r in rest):
        # RUN... may be empty (ASSESSMENT alone is a contest file), so argparse
        # gives RUN nothing from the first group of file names when options
        # follow ASSESSMENT (evaluate A.cla --queries Q.cla R1 R2): the file
        # names it left over are the runs, in order
        args.runs = list(args.runs) + rest
        rest = []
    if rest:
        command = getattr(args, "command", None)
        sub = parser._subparsers._group_actions[0].choices.get(command) if command else None
        where = f"{PROG} {command}" if sub is not None else PROG
        unknown = next((r for r in rest if r.startswith("-")), rest[0])
        near = difflib.get_close_matches(
            unknown.split("=", 1)[0], _option_strings(sub or parser), n=1, cutoff=0.6
        )
        hint = f"; did you mean {near[0]}?" if near else ""
        what = "option" if unknown.startswith("-") else "argument"
        raise UsageError(f"unknown {what} {unknown!r}{hint} (see {where} --help)")
    return args


def main(argv: Sequence[str] | None = None, out=None) -> int:
    out = out if out is not None else sys.stdout
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    keep_freed_blocks()  # chunked reading without refaulting its arrays (core/scoring/memory.py)
    try:
        args = parse_args(argv)
        if not args.command:
            raise UsageError(f"a command is needed: {', '.join(COMMAND_NAMES)} (see {PROG} --help)")
        args.given = given_options(argv)
        from .commands import COMMANDS  # the engine and readers, with numpy

        if out is sys.stdout and stream_fd(getattr(args, "json", None)) == 1:
            out = sys.stderr  # --json - : the JSON alone on standard output, the table beside
        guarded = _ClosablePipe(out)
        code = COMMANDS[args.command](args, guarded)
        return _output_closed(out) if guarded.gone else code
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
        sys.stderr.write(f"{PROG}: error: {shown(msg)}\n")
        return 2


def given_options(argv: Sequence[str]) -> set[str]:
    """The options written on the command line (argparse dests), told from
    those left at their defaults: a contest file's settings give way to
    the former only."""
    parser = build_parser()
    stack = [parser]
    while stack:
        p = stack.pop()
        for action in p._actions:  # argparse keeps no public list of them
            if isinstance(action, argparse._SubParsersAction):
                stack.extend(action.choices.values())
            elif action.dest not in ("help", "version"):
                action.default = argparse.SUPPRESS
    return set(vars(parser.parse_known_args(argv)[0])) - {"command", "assessment", "runs"}


class _ClosablePipe:
    """The stream the table goes to, as the commands see it: when whoever
    reads it has gone (``| head``, ``| true``), what is printed after is
    dropped and the command goes on, so that the files it was asked for
    are still written; it then ends with 141."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:  # names and ids that are not UTF-8 shown with U+FFFD
                return self.stream.write(shown(text))
            except BrokenPipeError:
                self._close()
        return len(text)

    def write_exact(self, text: str) -> int:
        """``text`` as the bytes it was read from (names and ids that are not
        UTF-8 as their own bytes, not U+FFFD): what ``--format trec_eval``
        prints, as trec_eval prints the bytes of its files."""
        if self.gone:
            return len(text)
        buffer = getattr(self.stream, "buffer", None)
        try:
            if buffer is None:  # a text stream only (io.StringIO): the text as it is
                return self.stream.write(text)
            self.stream.flush()
            buffer.write(name_bytes(text))
            buffer.flush()
        except BrokenPipeError:
            self._close()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._close()

    def _close(self) -> None:
        self.gone = True
        if self.stream is sys.stdout:
            _output_closed(self.stream)

    def __getattr__(self, name):
        return getattr(self.stream, name)


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
