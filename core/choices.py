"""The names the command line offers as choices (formats, rank-list variants,
paired tests, corrections), declared here without importing numpy so that
``shrec-eval --help`` answers at once; :mod:`shrec_eval.reading.readers`,
:mod:`shrec_eval.reading.formats.ranklists` and :mod:`shrec_eval.scoring.stats` re-export
them and are where they take effect."""

from __future__ import annotations

#: every profile, in the order the command line and the app list them (the
#: registry, :mod:`shrec_eval.profiles`, loads a module of each name)
PROFILE_NAMES: tuple[str, ...] = (
    "shrec",
    "boli",
    "psbtable",
    "shapenet17",
    "trec_eval",
    "sipiran21",
)
#: the profile of a contest that names none
DEFAULT_PROFILE = "shrec"

ASSESSMENT_FORMATS = {
    "cla": "PSB classification file (.cla)",
    "qrels": "TREC qrels (qid iter docno rel)",
}
RUN_FORMATS = {
    "ascii-matrix": "ASCII dissimilarity matrix (one row per query)",
    "binary-matrix": "PSB binary float32 dissimilarity matrix (.matrix)",
    "ranklists": "folder of rank-list files, one per query",
    "trec": "TREC run (qid iter docno rank sim run_id)",
    "embeddings": "feature vectors (.npy, or .npz with ids), ranked by distance",
}
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
