"""The names the command line offers as choices (formats, rank-list variants,
paired tests, corrections), declared here without importing numpy so that
``shrec-eval --help`` answers at once; :mod:`shrec_eval.reading.readers`,
:mod:`shrec_eval.reading.formats.ranklists` and :mod:`shrec_eval.scoring.stats` re-export
them and are where they take effect."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from pathlib import Path

#: the profile of a contest that names none
DEFAULT_PROFILE = "shrec"


@cache
def builtin_files() -> tuple[tuple[Path, str, dict], ...]:
    """Each evaluator file of ``profiles/builtin/`` (by name): its path, its
    text and its TOML as data, read and parsed once in a process: the
    built-ins' names below and the profiles made from them
    (:mod:`shrec_eval.profiles`) both read them here."""
    out = []
    for path in sorted((Path(__file__).resolve().parent / "profiles" / "builtin").glob("*.toml")):
        text = path.read_text(encoding="utf-8")
        out.append((path, text, tomllib.loads(text)))
    return tuple(out)


@cache
def builtin_profile_names() -> tuple[str, ...]:
    """The built-in profiles' names, in the order the command line and the
    app list them: each evaluator file of ``profiles/builtin/`` (its
    ``[evaluator] name``, by its ``position``), read with tomllib alone (a
    new built-in is its file, nothing to add here)."""
    found = []
    for path, _, doc in builtin_files():
        ev = doc.get("evaluator", {})
        found.append((ev.get("position", 1000), ev.get("name", path.stem)))
    return tuple(name for _, name in sorted(found))


def __getattr__(name: str):
    """``PROFILE_NAMES``: the built-in profiles' names (read from their files)."""
    if name == "PROFILE_NAMES":
        return builtin_profile_names()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class FormatRow:
    """One input format, as trec_eval's ``te_rel_info_format[]`` declares
    them: its name (``--run-format``, contest files), what it is (help, the
    app's Help and reader dialog), the file names the app's file dialog
    offers for it, and the module that reads it.

    The formats below are read by :mod:`shrec_eval.reading.readers` and told
    apart by :mod:`shrec_eval.reading.detect` (their rules weigh one against
    another: a file of numbers with a shared 6th field is a TREC run, not a
    matrix).  A format added with :func:`register_run_format` names its
    ``module``, imported when a file is read, which defines
    ``sniff(source) -> bool`` (from its first bytes: ``source.head(n)``) and
    ``read(source, assessment, *, name, normalize_ids) -> Run``; ``folder``:
    it reads folders, not files."""

    name: str
    description: str
    patterns: tuple[str, ...] = ()
    module: str | None = None
    folder: bool = False


#: the assessment formats, one row each
ASSESSMENT_FORMAT_TABLE: list[FormatRow] = [
    FormatRow("cla", "PSB classification file (.cla)", ("*.cla",)),
    FormatRow("qrels", "TREC qrels (qid iter docno rel)", ("*.qrels", "*.txt")),
]
#: the run formats, one row each (:func:`register_run_format` adds one)
RUN_FORMAT_TABLE: list[FormatRow] = [
    FormatRow(
        "ascii-matrix", "ASCII dissimilarity matrix (one row per query)", ("*.txt", "*.matrix")
    ),
    FormatRow("binary-matrix", "PSB binary float32 dissimilarity matrix (.matrix)", ("*.matrix",)),
    FormatRow("ranklists", "folder of rank-list files, one per query", folder=True),
    FormatRow("trec", "TREC run (qid iter docno rank sim run_id)", ("*.trec", "*.run", "*.res")),
    FormatRow(
        "embeddings",
        "feature vectors (.npy, or .npz with ids), ranked by distance",
        ("*.npy", "*.npz"),
    ),
]
#: name -> description of each format of the tables (what every face lists)
ASSESSMENT_FORMATS = {f.name: f.description for f in ASSESSMENT_FORMAT_TABLE}
RUN_FORMATS = {f.name: f.description for f in RUN_FORMAT_TABLE}


def register_run_format(row: FormatRow) -> FormatRow:
    """Add a run format: its row in :data:`RUN_FORMAT_TABLE` and
    :data:`RUN_FORMATS`, whence detection, ``--run-format``, the help,
    contest files and the app's dialogs know it."""
    if row.name in RUN_FORMATS or row.name in ASSESSMENT_FORMATS:
        raise ValueError(f"a format named {row.name!r} exists already")
    if not row.module:
        raise ValueError("a registered format names the module that reads it")
    RUN_FORMAT_TABLE.append(row)
    RUN_FORMATS[row.name] = row.description
    return row


def run_format_row(name: str) -> FormatRow:
    return next(f for f in RUN_FORMAT_TABLE if f.name == name)


def assessment_file_filters() -> str:
    """The app's Open assessment file filter: the assessment formats' names."""
    patterns = dict.fromkeys(p for f in ASSESSMENT_FORMAT_TABLE for p in f.patterns)
    return f"Assessments ({' '.join(patterns)});;All (*)"


def run_file_filters() -> str:
    """The app's Add runs file filter: any file first (rank lists often
    have no extension: a file's format is told from its content), then the
    usual names of every run format."""
    patterns = dict.fromkeys(p for f in RUN_FORMAT_TABLE for p in f.patterns)
    return f"Runs: any file (*);;Runs with a usual extension ({' '.join(patterns)})"


#: the distances between feature vectors (embedding runs)
METRICS = {
    "cosine": "1 - cos(q, g)",
    "euclidean": "|q - g|",
    "sqeuclidean": "|q - g|^2",
    "dot": "-(q . g) (the larger the inner product, the nearer)",
}
#: how a dissimilarity matrix's rows and columns map onto the assessment
MATRIX_ORDERS = {
    "listing": "row i / column j = the i-th query / j-th item as the files list them "
    "(psbTable's reading; the default)",
    "id": "row r / column c = the query / item whose id is r / c (ids 0..N-1: matrices "
    "indexed by model id, as SHREC 2021's)",
}
RANKLIST_VARIANTS = {
    "query-line": "first line = query id, then 'targetId distance' lines (SHREC 2011-2014)",
    "id-distance": "'targetId distance' lines, distance optional (SHREC 2013, ShapeNet)",
    "distance-id": "'distance targetId' lines (SHREC 2016 3D sketch, SceneIBR)",
}
TESTS = {
    "t": "paired t-test",
    "wilcoxon": "Wilcoxon signed-rank test",
    "randomization": "paired randomization (permutation) test",
}
CORRECTIONS = {
    "holm": "Holm step-down",
    "bonferroni": "Bonferroni",
    "bh": "Benjamini-Hochberg (false discovery rate)",
    "none": "no correction",
}
#: what the paired tests pair: the runs' values per query, or their class means
UNITS = ("query", "class")
#: the print presets of the report's figures (shrec_eval.outputs.figures.PRESETS less
#: "custom", which the app alone offers; a test holds the two equal)
FIGURE_PRESETS = ("column", "two-columns", "slide")
#: the queries of the report's gallery (shrec_eval.outputs.gallery): every one, or the
#: N worst / best of each run
GALLERY_MODES = ("all", "worst", "best")
