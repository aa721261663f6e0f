"""The options the commands share, as argparse parent parsers (reading, engine,
profile, output, shapes and gallery), with the value types that name the
option in their errors; light: --help answers without numpy.

For the parsers: Parser (its errors one line, with the nearest choice),
reading_parser, output_parser, shapes_parser, embeddings_group,
figure_preset_option and the value types probability_arg, resamples_arg,
seed_arg, thumbnail_size_arg."""

from __future__ import annotations

import argparse
import difflib
import re

# Only light modules here: --help and --version answer without numpy (the
# commands, the engine and the readers are imported once a command runs).
from ..choices import (
    ASSESSMENT_FORMATS,
    FIGURE_PRESETS,
    GALLERY_MODES,
    MATRIX_ORDERS,
    METRICS,
    RANKLIST_VARIANTS,
    RUN_FORMATS,
)
from ..errors import UsageError
from ..option_args import (  # noqa: F401  (the command line's parsers use them)
    add_option,
    bounded_arg,
    rank_arg,
    ranks_arg,
)
from ..options import (
    MAX_COLLECTION,
)


class Parser(argparse.ArgumentParser):
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


_collection = bounded_arg("parse_whole", 1, MAX_COLLECTION)
#: randomization and bootstrap resamples: 1,000,000 is about 8 bytes x
#: queries x resamples of working memory at once
resamples_arg = bounded_arg("parse_whole", 1, 1_000_000)
seed_arg = bounded_arg("parse_whole", 0, 2**63 - 1)
probability_arg = bounded_arg("parse_real", 0.0, 0.999999)


def reading_parser() -> argparse.ArgumentParser:
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
    add_option(g, "collection_size", type=_collection)
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
    embeddings_group(p)
    g = p.add_argument_group("scale")
    g.add_argument(
        "--dask",
        metavar="SCHEDULER",
        help="score on a Dask cluster (same results): local:N starts N worker processes "
        "here, tcp://HOST:PORT joins a running scheduler (the extra [dask])",
    )
    return p


def embeddings_group(p: argparse.ArgumentParser, top_k: bool = True) -> None:
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
            type=rank_arg,
            metavar="K",
            help="keep each query's first K results (partial selection; measures past "
            "rank K become bounds, see the note)",
        )


def output_parser() -> argparse.ArgumentParser:
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
    figure_preset_option(g)
    return p


def figure_preset_option(g) -> None:
    g.add_argument(
        "--figure-preset",
        choices=FIGURE_PRESETS,
        default="column",
        help="size and text of the report's figures: column (8.5 cm, 8 pt; the default), "
        "two-columns (17.5 cm, 8 pt), slide (16:9, 14 pt)",
    )


thumbnail_size_arg = bounded_arg("parse_whole", 16, 1024)
_k = bounded_arg("parse_whole", 1, 100)
_n = bounded_arg("parse_whole", 1, 1000)


def shapes_parser() -> argparse.ArgumentParser:
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
        "--thumbnail-size",
        type=thumbnail_size_arg,
        default=128,
        metavar="PX",
        help="thumbnail side (128)",
    )
    return p
