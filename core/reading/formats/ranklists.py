"""Rank-list folders: one file per query, named after the query id (no
extension, or ``.txt``), in one of the variants of real contests."""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from ...choices import RANKLIST_VARIANTS
from ...errors import FileAccessError, FormatError
from ...model.assessment import Assessment, make_warning
from ...model.number_text import is_number
from ...model.runs import RankedRun
from .ids import IdNormalizer
from .source import default_name, open_source, watch_step
from .tokens import read_lines

VARIANTS = RANKLIST_VARIANTS
SAMPLE_FILES = 5
SAMPLE_LINES = 50


def _looks_like_distance(tok: str) -> bool:
    return is_number(tok) and any(c in tok for c in ".eE") and not tok.isdigit()


def list_files(folder, skip_names: Collection[str] = ()) -> list[Path]:
    """The rank-list files of a folder, by name; hidden files and the names
    ``skip_names`` (an evaluator's own output files) are not lists."""
    folder = Path(folder)
    try:
        entries = sorted(
            p
            for p in folder.iterdir()
            if p.is_file() and not p.name.startswith(".") and p.name not in skip_names
        )
    except OSError as exc:
        raise FileAccessError.wrap(folder, exc) from exc
    if not entries:
        raise FormatError(
            folder,
            "the folder holds no rank-list file; one file per query, "
            "named after the query id, was expected",
        )
    return entries


def query_id_of(path: Path) -> str:
    return path.stem if path.suffix.lower() == ".txt" else path.name


def detect_variant(
    folder, assessment: Assessment, normalize_ids: bool = True, skip_names: Collection[str] = ()
) -> str:
    """Tell the variant from the content of the first files: a lone first
    line is a query line; of two columns, the id column is the one whose
    tokens the assessment knows (else the one that does not look like
    distances)."""
    norm = IdNormalizer(normalize_ids)
    col_known = [0, 0]
    col_dist = [0, 0]
    query_line = two_cols = 0
    files = list_files(folder, skip_names)[:SAMPLE_FILES]
    for f in files:
        lines = read_lines(open_source(f, "rank-list file"), "rank-list file")
        rows = [toks for i, toks in lines.rows() if i < SAMPLE_LINES]
        if len(rows) >= 2 and len(rows[0]) == 1 and len(rows[1]) == 2:
            query_line += 1
            rows = rows[1:]
        for toks in rows:
            if len(toks) == 2:
                two_cols += 1
                for c in (0, 1):
                    col_known[c] += assessment.item_index(norm(toks[c])) is not None
                    col_dist[c] += _looks_like_distance(toks[c])
    if query_line:
        return "query-line"
    if not two_cols or col_known[0] > col_known[1]:
        return "id-distance"
    if col_known[1] > col_known[0]:
        return "distance-id"
    if col_dist[1] > col_dist[0]:
        return "id-distance"
    if col_dist[0] > col_dist[1]:
        return "distance-id"
    raise FormatError(
        folder,
        "cannot tell which column holds the target ids and which the "
        "distances; choose the rank-list variant (id-distance or distance-id)",
    )


def read_ranklist_folder(
    folder,
    assessment: Assessment,
    *,
    variant: str | None = None,
    name: str | None = None,
    normalize_ids: bool = True,
    skip_names: Collection[str] = (),
    nonfinite_distances: bool = False,
) -> RankedRun:
    """Read a folder of rank lists; the variant is detected unless given.
    ``skip_names``: files of the folder that are not lists (the SHREC
    toolkits write Stats_test.txt and PR_test.txt there; skipped with a
    note); ``nonfinite_distances``: NaN and infinite distances are accepted
    (file order ranks; noted) instead of being an error.  ``folder`` may
    be a :class:`~.source.Source`: its watch follows the files read."""
    source, folder = folder, Path(folder)
    files = list_files(folder, skip_names)
    skipped = sorted(p.name for p in folder.iterdir() if p.name in skip_names and p.is_file())
    nonfinite: list[str] = []
    detected = variant is None
    if variant is None:
        variant = detect_variant(folder, assessment, normalize_ids, skip_names)
    if variant not in VARIANTS:
        raise FormatError(
            folder, f"unknown rank-list variant {variant!r}; expected one of {', '.join(VARIANTS)}"
        )
    norm = IdNormalizer(normalize_ids)
    lists: dict[str, list[str]] = {}
    lines: dict[str, tuple[str, list[int]]] = {}
    mismatched: list[str] = []
    unsorted: list[str] = []
    for done, f in enumerate(files):
        watch_step(source, done, len(files))
        qid = norm(query_id_of(f))
        if qid in lists:
            raise FormatError(
                f, f"two files hold the list of query {qid}; one file per query was expected"
            )
        ids, where, dists = [], [], []
        first = True
        text = read_lines(open_source(f, "rank-list file"), "rank-list file")
        for i, toks in text.rows():
            n = int(text.number[i])
            if first and variant == "query-line":
                first = False
                if len(toks) != 1:
                    raise FormatError(
                        f,
                        "the first line must hold the query id alone "
                        "(rank-list variant query-line)",
                        line=n,
                        token=text.text(i),
                    )
                if norm(toks[0]) != qid:
                    mismatched.append(f"file {f.name} says {toks[0]}")
                continue
            first = False
            tid, dist, dcol = _line_fields(f, text, i, n, toks, variant)
            if dist is not None:
                d = _distance(f, text, i, n, dist, dcol)
                if d != d or d in (float("inf"), float("-inf")):
                    if not nonfinite_distances:
                        raise FormatError(
                            f,
                            "the distance must be a finite number",
                            line=n,
                            column=text.column(i, dcol),
                            token=dist,
                        )
                    nonfinite.append(f"file {f.name}, line {n}")
                dists.append(d)
            ids.append(norm(tid))
            where.append(n)
        if any(b < a for a, b in zip(dists, dists[1:])):
            unsorted.append(f.name)
        lists[qid] = ids
        lines[qid] = (f.name, where)
    watch_step(source, len(files), len(files))
    how = "detected" if detected else "chosen"
    found = _folder_warnings(skipped, nonfinite, mismatched, unsorted)
    return RankedRun.from_lists(
        name or default_name(folder),
        lists,
        assessment,
        source=str(folder),
        format=f"rank-list folder, variant {variant} ({how})",
        where=lambda q, rank: f"file {lines[q][0]}, line {lines[q][1][rank - 1]}",
        warnings=found + list(norm.note(f"run {Path(folder).name}")),
    )


def _line_fields(f, text, i: int, n: int, toks, variant: str) -> tuple:
    """A list line's target id, its distance (None: not given) and the
    distance's field, as the variant writes them."""
    if variant == "distance-id":
        if len(toks) != 2:
            raise FormatError(
                f,
                f"a line 'distance targetId' was expected; this one has {len(toks)} fields",
                line=n,
                token=text.text(i),
            )
        return toks[1], toks[0], 0
    if len(toks) > 2:
        raise FormatError(
            f,
            f"a line 'targetId distance' was expected; this one has {len(toks)} fields",
            line=n,
            token=text.text(i),
        )
    dist = toks[1] if len(toks) == 2 else None
    if variant == "query-line" and dist is None:
        raise FormatError(
            f,
            "a line 'targetId distance' was expected; the distance is missing",
            line=n,
            token=text.text(i),
        )
    return toks[0], dist, 1


def _distance(f, text, i: int, n: int, dist, dcol: int) -> float:
    """The distance of a line, a FormatError at its column if no number."""
    try:
        return float(dist)
    except ValueError:
        raise FormatError(
            f,
            "the distance must be a number",
            line=n,
            column=text.column(i, dcol),
            token=dist,
        ) from None


def _folder_warnings(skipped, nonfinite, mismatched, unsorted) -> list:
    """The data checks of a folder read: files skipped, non-finite
    distances accepted, query lines naming another query, unsorted lists."""
    found = []
    if skipped:
        found.append(
            make_warning(
                "skipped_files",
                "files of the folder that are an evaluator's own output, not rank lists (skipped)",
                skipped,
            )
        )
    if nonfinite:
        found.append(
            make_warning(
                "nonfinite_distances",
                "NaN or infinite distances (accepted: the file order ranks)",
                nonfinite,
            )
        )
    if mismatched:
        found.append(
            make_warning(
                "query_line_mismatch",
                "files whose first line names another query than the file name (file name used)",
                mismatched,
            )
        )
    if unsorted:
        found.append(
            make_warning(
                "unsorted_distances",
                "lists whose distances are not ascending (file order used as the ranking)",
                unsorted,
            )
        )
    return found
