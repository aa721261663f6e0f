"""Each command's parser: its own options, its help text (what ASSESSMENT and
RUN may be, the measure names) and its examples.

For the parser: one NAME_args per command (check_args, compare_args,
demo_args, distances_args, evaluate_args, examples_args, measures_args,
profiles_args, thumbnails_args) and examples_text, an epilog's examples."""

from __future__ import annotations

import argparse

# Only light modules here: --help and --version answer without numpy (the
# commands, the engine and the readers are imported once a command runs).
from ..choices import (
    ASSESSMENT_FORMATS,
    CORRECTIONS,
    RANKLIST_VARIANTS,
    RUN_FORMATS,
    TESTS,
    UNITS,
)
from ..option_args import DEFAULTS, profile_arg
from .option_groups import (
    embeddings_group,
    figure_preset_option,
    probability_arg,
    ranks_arg,
    resamples_arg,
    seed_arg,
    thumbnail_size_arg,
)


def _formats(title: str, formats: dict) -> str:
    return title + "\n" + "".join(f"  {k:14s} {v}\n" for k, v in formats.items())


def inputs_help() -> str:
    """What ASSESSMENT and RUN may be (the help of every command that reads
    a contest), from the formats' tables as they are when the parser is made."""
    return (
        _formats(
            "ASSESSMENT (format detected from the content, or --assessment-format):",
            ASSESSMENT_FORMATS,
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


def examples_text(*lines: tuple[str, str]) -> str:
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


def evaluate_args(sub, common, reading, engine, profile, output, shapes) -> None:
    _command(
        sub,
        "evaluate",
        "score runs and print the summary table",
        [common, reading, engine, profile, output, shapes],
        epilog=inputs_help()
        + "\n"
        + MEASURE_NAMES
        + "\n\n"
        + examples_text(
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


def check_args(sub, common, reading, profile) -> None:
    ch = _command(
        sub,
        "check",
        "check submissions before scoring (exit 1 on problems)",
        [common, reading, profile],
        epilog=inputs_help()
        + "\n"
        + examples_text(
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


def compare_args(sub, common, reading, engine, profile) -> None:
    co = _command(
        sub,
        "compare",
        "which differences are real: paired tests, confidence intervals, corrected p-values",
        [common, reading, engine, profile],
        epilog=inputs_help()
        + "\n"
        + MEASURE_NAMES
        + "\n\n"
        + examples_text(
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
        default=None,
        help="pair the runs' values per query or per class (class means); default: as the "
        "contest's --average (per class under macro, else per query)",
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
    g.add_argument("--alpha", type=probability_arg, default=0.05, help="significance level (0.05)")
    g.add_argument(
        "--resamples",
        type=resamples_arg,
        default=10000,
        help="randomization and bootstrap resamples (10000)",
    )
    g.add_argument("--seed", type=seed_arg, default=0, help="random seed (0)")
    g.add_argument(
        "--confidence",
        type=probability_arg,
        default=0.95,
        help="confidence level of the intervals (0.95)",
    )
    g.add_argument("--json", metavar="FILE", help="means, intervals, raw and corrected p-values")
    g.add_argument(
        "--report", metavar="DIR", help="the report files with significance markers on the measure"
    )
    figure_preset_option(g)


def measures_args(sub, common) -> None:
    me = _command(
        sub,
        "measures",
        "list the measures (key, label, other tools' names, definition)",
        [common],
        epilog=examples_text(
            ("shrec-eval measures", "every measure of the registry at ranks 5,10,25,50,100"),
            (
                "shrec-eval measures --profile trec_eval",
                "what the trec_eval profile computes, trec_eval's names for it, and its table",
            ),
            ("shrec-eval measures --ranks 1,20", "the @K measures at ranks 1 and 20"),
            (
                "shrec-eval measures --params",
                "the measure families, their parameters (allowed values, defaults) and "
                "the keys that are measures with parameters",
            ),
        ),
    )
    me.add_argument("--ranks", type=ranks_arg, default=DEFAULTS["ranks"], metavar="K1,K2,...")
    me.add_argument(
        "--profile",
        type=profile_arg,
        metavar="NAME|FILE.toml",
        help="only the measures this profile computes, the names that hold there, "
        "and its table columns and ranking measure",
    )
    me.add_argument(
        "--params",
        action="store_true",
        help="the measure families and their parameters (ndcg(gain=exp2)@10), instead of the keys",
    )


def profiles_args(sub, common) -> None:
    pr = _command(
        sub,
        "profiles",
        "list the evaluator profiles, check evaluator files, print one",
        [common],
        epilog=examples_text(
            ("shrec-eval profiles", "every profile, where it comes from (built in, a file...)"),
            (
                "shrec-eval profiles check mytrack.toml",
                "every problem of an evaluator file, with its line",
            ),
            (
                "shrec-eval profiles show sipiran21 > mytrack.toml",
                "a built-in's evaluator file, to start a new contest's from",
            ),
        ),
    )
    pr.add_argument(
        "words",
        nargs="*",
        metavar="[check FILE... | show NAME...]",
        help="nothing: list them; check FILE...: the problems of evaluator files (exit 1 if "
        "any); show NAME...: print a profile's evaluator file (a name or a FILE.toml)",
    )


def demo_args(sub, common, engine, profile, output, shapes) -> None:
    _command(
        sub,
        "demo",
        "score the bundled demo contest and print its table",
        [common, engine, profile, output, shapes],
        epilog=examples_text(
            ("shrec-eval demo", "7 runs of a synthetic graded contest, ranked by ADR"),
            (
                "shrec-eval demo --profile psbtable --columns NN,FT,ST,E,DCG",
                "the same runs with psbTable's numbers",
            ),
            ("shrec-eval demo --report demo_report/", "the report files of the demo"),
        ),
    )


def examples_args(sub, common) -> None:
    ex = _command(
        sub,
        "examples",
        "copy the example contests the documentation's commands use into a folder",
        [common],
        epilog=examples_text(
            (
                "shrec-eval examples shrec-examples",
                "a PSB contest with matrices, rank lists and features, a qrels with TREC "
                "runs, a contest indexed by id (its README.md says what each file is)",
            ),
            (
                "shrec-eval examples ex && shrec-eval evaluate ex/psb_test.cla ex/alice.matrix",
                "copy them, then score a run",
            ),
        ),
    )
    ex.add_argument("out", metavar="DIR", help="a new folder (or one of an earlier copy)")


def distances_args(sub, common) -> None:
    di = _command(
        sub,
        "distances",
        "write the distance matrix of feature vectors (PSB binary float32)",
        [common],
        epilog=examples_text(
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
    embeddings_group(di, top_k=False)
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


def thumbnails_args(sub, common) -> None:
    th = _command(
        sub,
        "thumbnails",
        "render a shapes folder's thumbnails (PNG) for a contest site",
        [common],
        epilog=examples_text(
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
    th.add_argument(
        "--size", type=thumbnail_size_arg, default=128, metavar="PX", help="side in pixels (128)"
    )
    th.add_argument(
        "--no-normalize-ids", action="store_true", help="name the files by the ids as written"
    )
    th.add_argument("--no-cache", action="store_true", help="draw every shape (no per-user cache)")
