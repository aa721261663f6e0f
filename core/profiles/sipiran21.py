"""``sipiran21``: the evaluator of SHREC 2021 "Retrieval of Cultural
Heritage Objects" (Sipiran et al., ``experiments.py`` of the contest's public
repository), as read from its source line by line (docs/profiles.md gives
the line numbers).

* Reading: ids are matrix indices, row r = the query of id r and column c =
  the target of id c (matrix order ``id``, which needs ids 0..N-1); a query
  class is the target class at the same place in its file (classes are
  matched by position, not by name); matrix rows past the queries are
  ignored, with a note (the script loops over the queries of the query file).
* Ranking: Python's stable sort by distance, ties to the lower target id:
  the engine's ranking of a matrix row over the assessment in id order.  No
  query is taken out of its own list.
* NN: 1 if the first target is relevant (the project's ``nn``).
* FT = (hits in the first C + 1) / C and ST = (hits in the first 2C + 1) /
  (2C), left at 1.0 when every hit falls before rank 2C (``ft_s21``,
  ``st_s21``; ``ft_psb`` and ``st_psb`` stay the corrected figures).
* mAP = the precisions at the hits / C: the project's ``ap_trec_r``, bit for
  bit (the same divisions, added in rank order).
* NDCG = sum over the whole list of (2^rel - 1) / log2(i + 2), over the same
  sum of the list sorted (``ndcg_s21``), added in rank order.
* Averages: the script's ``all`` is the micro average, ``avg_class`` the macro
  average (the classes of the query file), ``class`` the class means.

Native files (``--native DIR``): ``table.txt`` and ``table.tex`` as the
script writes them, one line per run named ``METHOD (RUN)`` from its file
``METHOD.RUN.EXT``, runs ordered as the script orders them (methods sorted,
then each method's files sorted); ``--average macro`` gives the
``avg_class`` tables; ``table_<class>.txt`` and ``.tex`` are each class's
(the script's ``--granularity class``).  The averages are added one query
after the other in the script's order, so that the tables are the script's
to the last digit.

Not reproduced, documented: the precision-recall plots and the confusion
matrix figures; the script's crashes (a matrix with fewer rows than queries,
a query class without targets, a file named otherwise) are errors here.
"""

from __future__ import annotations

from pathlib import Path

from ..errors import NativeError
from ..model.assessment import Assessment
from ..scoring.base_measures import Bound, Measure
from .base import Profile

FAMILY = "SHREC 2021 (experiments.py)"
COLUMNS = ("nn", "ft_s21", "st_s21", "ap_trec_r", "ndcg_s21")
HEADS = ("NN", "FT", "ST", "mAP", "NDCG")
#: the script's tables for each average (its --granularity all / avg_class)
TABLES = {"micro": "all", "macro": "avg_class"}


MEASURES = (
    Measure(
        "ft_s21",
        "First Tier (SHREC 2021 script, +1)",
        FAMILY,
        "(relevant in the first C + 1) / C, as experiments.py computes it (ft_psb is the "
        "corrected figure)",
        Bound("ft(plus_one=true)"),
        short="FT-21",
    ),
    Measure(
        "st_s21",
        "Second Tier (SHREC 2021 script, +1)",
        FAMILY,
        "(relevant in the first 2C + 1) / (2C), 1 when every relevant item comes before rank "
        "2C, as experiments.py computes it (st_psb is the corrected figure)",
        Bound("st(divide=2T,plus_one=true,early_exit=1)"),
        short="ST-21",
    ),
    Measure(
        "ndcg_s21",
        "NDCG (SHREC 2021 script)",
        FAMILY,
        "sum over the whole list of (2^rel - 1) / log2(i + 1) at rank i, over the same sum "
        "of the ideal list",
        # the script's rel is 1 or 0 (same class or not): 2^rel - 1 is binary
        Bound("ndcg(gain=binary,discount=log2_from_1)"),
        short="NDCG-21",
    ),
)


# -- native files ---------------------------------------------------------------------------


def _method_run(result) -> tuple[str, str]:
    """``METHOD`` and ``RUN`` of a run file ``METHOD.RUN.EXT``, as the script
    splits its file names."""
    name = Path(result.run_source).name
    parts = name.split(".")
    if len(parts) != 3 or not all(parts):
        raise NativeError(
            f"{name}: experiments.py reads a run from a file named METHOD.RUN.EXT "
            "(DNE.run1.txt); name the run files so, or score without --native"
        )
    return parts[0], parts[1]


def _mean(values) -> float:
    """The script's mean: a running sum in the given order, over the count."""
    total = 0.0
    for v in values:
        total = total + float(v)
    return total / len(values)


def _class_models(assessment: Assessment) -> list[tuple[str, list[int]]]:
    """The query classes as the query file lists them, each with its
    queries' places (this assessment's order) in the file's order."""
    cla = assessment.query_classification
    if cla is None:
        raise NativeError("the sipiran21 tables need the classes of a query .cla")
    out = []
    for c in cla.classes:
        rows = [assessment.query_index(m) for m in c.models]
        if not rows:
            raise NativeError(
                f"class {c.name!r} of {cla.path} has no query: experiments.py divides by zero "
                "there (avg_class and its class table)"
            )
        out.append((c.name, rows))
    return out


def _figures(result, rows=None) -> list[float]:
    """The five figures of one run over the queries ``rows`` (all: in this
    assessment's order, the script's query ids 0..Q-1)."""
    cols = [result.column(k) for k in COLUMNS]
    if rows is None:
        rows = range(len(cols[0]))
    return [_mean([col[q] for q in rows]) for col in cols]


def _macro(result, classes) -> list[float]:
    per_class = [_figures(result, rows) for _, rows in classes]
    return [_mean([f[j] for f in per_class]) for j in range(len(COLUMNS))]


def _tables(lines: list[tuple[str, list[float]]]) -> tuple[str, str]:
    """table.txt and table.tex, written as the script writes them."""
    txt = ["Methods \t NN \t FT \t ST \t mAP \t NDCG\n"]
    tex = [
        "\\begin{table}\n",
        "\\centering\n",
        "\\begin{tabular}{| c | c | c | c | c | c |}\n",
        "\\hline\n",
        "Methods & NN & FT & ST & mAP & NDCG\\\\ \\hline\n",
    ]
    for name, (nn, ft, st, ap, ndcg) in lines:
        tex.append(
            f"{name} & {nn:.4f} & {ft:.4f} & {st:.4f} & {ap:.4f} & {ndcg:.4f} \\\\ \\hline\n"
        )
        txt.append(f"{name} \t {nn:.4f} \t {ft:.4f} \t {st:.4f} \t {ap:.4f} \t {ndcg:.4f} \n")
    tex += ["\\end{tabular}\n", "\\caption{Table}\n", "\\end{table}\n"]
    return "".join(txt), "".join(tex)


def native(results: list, assessment: Assessment) -> dict:
    """table.txt and table.tex of every run (the script's ``all``, or with
    the macro average its ``avg_class``), and each query class's tables."""
    average = results[0].options.average
    if average not in TABLES:
        raise NativeError(
            f"experiments.py has no {average} average: its tables are all (--average micro) "
            "and avg_class (--average macro)"
        )
    for r in results:
        empty = [q for q, v in zip(r.query_ids, r.column("nn")) if v != v]
        if empty:
            raise NativeError(
                f"queries without any relevant target ({', '.join(empty[:5])}): "
                "experiments.py divides by zero there"
            )
    runs = sorted(results, key=lambda r: (_method_run(r)[0], Path(r.run_source).name))
    names = [f"{m} ({run})" for m, run in map(_method_run, runs)]
    classes = _class_models(assessment)
    if average == "micro":
        lines = [(n, _figures(r)) for n, r in zip(names, runs)]
    else:
        lines = [(n, _macro(r, classes)) for n, r in zip(names, runs)]
    txt, tex = _tables(lines)
    out = {"table.txt": txt, "table.tex": tex}
    for cname, rows in classes:
        txt, tex = _tables([(n, _figures(r, rows)) for n, r in zip(names, runs)])
        # the class name made one file name where the names are made (outputs.native)
        out[("table_*.txt", cname)], out[("table_*.tex", cname)] = txt, tex
    return out


PROFILE = Profile(
    name="sipiran21",
    label="SHREC 2021 cultural heritage evaluator (experiments.py)",
    source="ivansipiran/shrec2021-cultural-heritage, experiments.py",
    help="SHREC 2021's cultural heritage track (experiments.py): matrices indexed by id, its "
    "FT, ST and NDCG, its tables",
    why="experiments.py never takes a query out of its own list and averages every query",
    options={"remove_self": False, "psb_class_cutoff": False},
    reading={"matrix_order": "id", "class_match": "position", "extra_rows": "ignore"},
    measures=MEASURES,
    native=native,
    native_files=("table.txt", "table.tex", "table_*.txt", "table_*.tex"),
    group=lambda result: "",
    native_groups=lambda runs: [""],
    headline=COLUMNS,
    rank_key="ap_trec_r",
)
