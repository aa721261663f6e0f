"""Opening contest files: format detection from content (with an override)
and one entry point for assessments and one for runs.

Every function here raises :class:`~shrec_eval.errors.FormatError` for bad content
and :class:`~shrec_eval.errors.FileAccessError` for a file the system cannot read;
nothing else for anything a file may contain.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Collection, Mapping
from dataclasses import replace
from pathlib import Path

from ..choices import (
    ASSESSMENT_FORMATS,
    MATRIX_ORDERS,
    RANKLIST_VARIANTS,
    RUN_FORMATS,
    run_format_row,
)
from ..errors import AmbiguousFormatError, ContestFileError, FileAccessError, FormatError
from ..model.assessment import Assessment
from ..model.runs import Run
from .detect import (  # noqa: F401
    HEAD,
    HEAD_MAX,
    SAMPLE,
    detect_assessment_format,
    detect_run_format,
    sniff,
    sniff_all,
)
from .formats.cla import assessment_from_cla, read_cla
from .formats.embeddings import METRICS, read_embeddings, top_k_of_matrix
from .formats.matrix import read_ascii_matrix, read_binary_matrix
from .formats.order import by_id, with_other_order
from .formats.ranklists import read_ranklist_folder
from .formats.rules import RULES, applicable, resolved
from .formats.source import PIPE_LIMIT, ReadWatch, Source, a, classify_path, open_source
from .formats.trec import read_collection_list, read_qrels
from .formats.trec_run import read_trec_run

__all__ = [
    "ASSESSMENT_FORMATS",
    "METRICS",
    "RUN_FORMATS",
    "RANKLIST_VARIANTS",
    "AmbiguousFormatError",
    "ContestFileError",
    "FormatError",
    "FileAccessError",
    "classify_path",
    "distinct_names",
    "detect_assessment_format",
    "detect_run_format",
    "load_assessment",
    "load_run",
    "sniff",
    "sniff_all",
]


def load_assessment(
    path,
    *,
    format: str | None = None,
    queries=None,
    graded: bool = False,
    collection_size: int | None = None,
    collection=None,
    normalize_ids: bool | None = None,
    c_numbers: bool | None = None,
    matrix_order: str | None = None,
    class_match: str | None = None,
    rules: Mapping | None = None,
) -> Assessment:
    """Read the relevance side of a contest.

    * a ``.cla``: leave-one-out (every model a query), or with ``queries``
      (a query ``.cla``) external queries; ``graded`` adds sister classes as
      marginally relevant;
    * TREC qrels: graded as given; ``collection_size`` or ``collection`` (a
      file with one item id per line) says what the qrels cannot.

    The reading rules (:data:`~shrec_eval.reading.formats.rules.RULES`):
    ``normalize_ids``; ``c_numbers``: grades read as C's ``atol`` reads them
    (trec_eval); ``matrix_order``: ``listing`` or ``id``
    (:mod:`~shrec_eval.reading.formats.order`); ``class_match``: query classes
    matched to target classes by ``name`` or ``position``.  A rule left None
    takes the value ``rules`` (a profile's fixed rules, which runs read
    against the assessment then follow too) gives, else its default.  The
    profiles call this with their rules (:meth:`Profile.load_assessment
    <shrec_eval.profiles.base.Profile.load_assessment>`).
    """
    rules = dict(rules or {})
    values = {
        k: resolved(k, v, rules)
        for k, v in (
            ("normalize_ids", normalize_ids),
            ("c_numbers", c_numbers),
            ("matrix_order", matrix_order),
            ("class_match", class_match),
        )
    }
    normalize_ids, c_numbers = values["normalize_ids"], values["c_numbers"]
    if values["matrix_order"] not in MATRIX_ORDERS:
        raise FormatError(
            path,
            f"unknown matrix order {values['matrix_order']!r}; "
            f"expected one of {', '.join(MATRIX_ORDERS)}",
        )
    if format is not None and format not in ASSESSMENT_FORMATS:
        raise FormatError(
            path,
            f"unknown assessment format {format!r}; "
            f"expected one of {', '.join(ASSESSMENT_FORMATS)}",
        )
    path = open_source(path, "assessment")
    _no_folder(path, "an assessment file")
    fmt = format or detect_assessment_format(path)
    if fmt == "cla":
        if collection_size is not None or collection is not None:
            raise FormatError(
                path,
                "a .cla file lists its whole collection; the collection "
                "size or list applies to TREC qrels only",
            )
        target = read_cla(path, normalize_ids=normalize_ids)
        qcla = read_cla(queries, normalize_ids=normalize_ids) if queries is not None else None
        a = assessment_from_cla(
            target, graded=graded, queries=qcla, class_match=values["class_match"]
        )
    elif fmt == "qrels":
        if queries is not None:
            raise FormatError(path, "a query .cla goes with a target .cla, not with qrels")
        items = (
            read_collection_list(collection, normalize_ids=normalize_ids)
            if collection is not None
            else None
        )
        a = read_qrels(
            path,
            collection_size=collection_size,
            collection=items,
            normalize_ids=normalize_ids,
            c_numbers=c_numbers,
        )
    a = replace(
        a,
        normalize_ids=normalize_ids,
        reading=applicable(fmt, values),
        rules={k: v for k, v in rules.items() if k in RULES},
    )
    return by_id(a, path) if values["matrix_order"] == "id" else with_other_order(a)


def _no_folder(src: Source, what: str) -> None:
    if src.kind == "folder":
        raise FileAccessError(src.path, f"this is a folder; {what} was expected")


def load_run(
    path,
    assessment: Assessment,
    *,
    format: str | None = None,
    variant: str | None = None,
    trec_order: bool | None = None,
    name: str | None = None,
    normalize_ids: bool | None = None,
    chunk_size: int | None = None,
    skip_names: Collection[str] | None = None,
    nonfinite_distances: bool | None = None,
    c_numbers: bool | None = None,
    extra_rows: str | None = None,
    metric: str | None = None,
    ids=None,
    top_k: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    formats: Collection[str] | None = None,
) -> Run:
    """Read one participant's run against an assessment (whose collection
    order the matrices follow).  ``chunk_size`` (bytes) is how much of a
    text file (TREC run, ASCII matrix) is parsed at a time (the result does
    not depend on it; tests pass small sizes).  ``metric`` (default cosine),
    ``ids`` (a file naming a ``.npy``'s rows) and ``top_k`` (keep each
    query's first K results) apply to embedding runs
    (:func:`~shrec_eval.reading.formats.embeddings.read_embeddings`).

    The reading rules (:data:`~shrec_eval.reading.formats.rules.RULES`), each left
    None to follow the profile the assessment was read under (its
    ``rules``), else its default: ``normalize_ids`` (default: as the
    assessment's ids were read); ``trec_order`` and ``c_numbers`` (a TREC
    run's ties ordered by docno, its scores read as C's ``atof`` reads
    them: trec_eval); ``skip_names`` and ``nonfinite_distances`` (rank-list
    folders: :func:`~shrec_eval.reading.formats.ranklists.read_ranklist_folder`);
    ``extra_rows`` (``refuse`` or ``ignore`` matrix rows past the queries).
    The run records the rules that applied to its format (``Run.reading``).

    ``progress(done, total)`` follows the reading (bytes of a text file,
    files of a rank-list folder, rows of a binary matrix checked) and
    ``should_stop()`` is asked at the same points (True:
    :class:`~shrec_eval.errors.Cancelled`): a front end's progress bar and
    Cancel (:class:`~shrec_eval.reading.formats.source.ReadWatch`).
    ``formats``: the run formats read (a profile's: an evaluator that reads
    nothing else); a run of another format is a FormatError before it is read."""
    if not isinstance(assessment, Assessment):
        raise TypeError(f"load_run needs an Assessment, not {type(assessment).__name__}")
    if format is not None and format not in RUN_FORMATS:
        raise FormatError(
            path, f"unknown run format {format!r}; expected one of {', '.join(RUN_FORMATS)}"
        )
    fixed = assessment.rules
    if normalize_ids is None:
        normalize_ids = fixed.get("normalize_ids", assessment.normalize_ids)
    values = {
        "normalize_ids": normalize_ids,
        **{
            k: resolved(k, v, fixed)
            for k, v in (
                ("trec_order", trec_order),
                ("c_numbers", c_numbers),
                ("skip_names", None if skip_names is None else tuple(skip_names)),
                ("nonfinite_distances", nonfinite_distances),
                ("extra_rows", extra_rows),
            )
        },
    }
    watch = None if progress is None and should_stop is None else ReadWatch(progress, should_stop)
    run, fmt = _load_run(
        path,
        assessment,
        format,
        variant,
        name,
        chunk_size,
        metric,
        ids,
        top_k,
        values,
        watch,
        tuple(formats or ()),
    )
    run.reading = applicable(fmt, values)
    return run


def _load_run(
    path,
    assessment,
    format,
    variant,
    name,
    chunk_size,
    metric,
    ids,
    top_k,
    values,
    watch=None,
    formats=(),
):
    trec_order, norm, c_numbers = values["trec_order"], values["normalize_ids"], values["c_numbers"]
    skip_names, nonfinite_distances = values["skip_names"], values["nonfinite_distances"]
    q, t = assessment.n_queries, assessment.n_items
    # a pipe is read once, at most what the format can need (rows past the
    # queries, when they are ignored: any number)
    binary = format == "binary-matrix"
    src = open_source(
        path,
        f"binary float32 matrix of {q} x {t}" if binary else "run",
        limit=4 * q * t if binary and values["extra_rows"] != "ignore" else PIPE_LIMIT,
    )
    if watch is not None:  # the reader reports to it (never the caller's Source changed)
        src = replace(src, watch=watch)
    fmt = format or detect_run_format(src, assessment, c_numbers=c_numbers)
    if formats and fmt not in formats:
        raise FormatError(
            src.path,
            f"this run is {a(RUN_FORMATS[fmt])}; the profile reads runs of "
            f"{' or '.join(formats)} only (its evaluator reads nothing else)",
        )
    row = run_format_row(fmt)
    if row.module is not None:  # a registered format: its module reads it
        if not row.folder:
            _no_folder(src, a(f"{row.description} file"))
        elif src.kind != "folder":
            raise FormatError(src.path, f"{a(row.description)} is a folder; this is a file")
        for option, value in (("--ids", ids), ("--top-k", top_k), ("--variant", variant)):
            if value is not None:
                raise FormatError(src.path, f"{option} does not apply to {a(row.description)}")
        run = importlib.import_module(row.module).read(
            src, assessment, name=name, normalize_ids=norm
        )
        return run, fmt
    if fmt == "embeddings":
        _no_folder(src, "an embeddings file (.npy, .npz)")
        run = read_embeddings(
            src, assessment, metric=metric, ids=ids, top_k=top_k, name=name, normalize_ids=norm
        )
        return run, fmt
    if fmt == "binary-matrix" and top_k is not None and ids is None:
        _no_folder(src, a(f"{RUN_FORMATS[fmt]} file"))
        m = read_binary_matrix(src, assessment, name=name, extra_rows=values["extra_rows"])
        return top_k_of_matrix(m, assessment, top_k), fmt
    for option, value in (("--ids", ids), ("--top-k", top_k)):
        if value is not None:
            raise FormatError(
                src.path,
                f"{option} applies to embedding runs (.npy, .npz)"
                + (" and binary float32 matrices" if option == "--top-k" else "")
                + f"; this run is {a(RUN_FORMATS[fmt])}"
                + (" (--max-rank cuts ranked lists)" if option == "--top-k" else ""),
            )
    if fmt == "ranklists":
        if src.kind != "folder":
            raise FormatError(src.path, "a folder of rank-list files was expected, this is a file")
        run = read_ranklist_folder(
            src,
            assessment,
            variant=variant,
            name=name,
            normalize_ids=norm,
            skip_names=skip_names,
            nonfinite_distances=nonfinite_distances,
        )
        return run, fmt
    _no_folder(src, a(f"{RUN_FORMATS[fmt]} file"))
    chunks = {} if chunk_size is None else {"chunk_size": chunk_size}
    if fmt == "ascii-matrix":
        run = read_ascii_matrix(
            src, assessment, name=name, extra_rows=values["extra_rows"], **chunks
        )
        return run, fmt
    if fmt == "binary-matrix":
        return read_binary_matrix(src, assessment, name=name, extra_rows=values["extra_rows"]), fmt
    run = read_trec_run(
        src,
        assessment,
        trec_order=trec_order,
        name=name,
        normalize_ids=norm,
        c_numbers=c_numbers,
        **chunks,
    )
    return run, fmt


def _one_line(name: str) -> str:
    return "".join(" " if ord(c) < 32 or ord(c) == 127 else c for c in name)


def distinct_names(names: list[str], sources: list[str]) -> list[str]:
    """Run names made distinct for tables and JSON: where names clash (two
    TREC files with the same run tag), the file name is added
    (``tag (alice.trec)``), then a number if that still clashes."""
    # a name holding a line break or a tab would break every table
    names = [_one_line(n) for n in names]
    count = {n: names.count(n) for n in names}
    out = [n if count[n] == 1 else f"{n} ({Path(src).name})" for n, src in zip(names, sources)]
    seen: dict[str, int] = {}
    for i, n in enumerate(out):
        k = seen[n] = seen.get(n, 0) + 1
        if k > 1 or out.count(n) > 1:
            out[i] = f"{n} #{k}"
    return out
