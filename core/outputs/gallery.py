"""The report's gallery (``gallery.html`` and ``thumbs/*.png``): for each
query (every query, or the N worst / best of each run by the ranking
measure), the query's picture, each run's first K results framed in their
grade's colour (rank, id, class and grade in the tooltip) and the query's
measure values in every run: the qualitative figure of a contest paper.

The page is self-contained with its ``thumbs`` folder (no script, no
remote resource).  Each item's thumbnail is written once, whatever the
number of lists it appears in; the ranked lists come from the caller
(``lists(run_index, query_ids, k)``: each query's first K item ids and
their gains, all the gallery's queries of a run at once), so that this
module does not read runs or score anything.
"""

from __future__ import annotations

import hashlib
import html
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .. import __version__
from ..choices import GALLERY_MODES
from ..model.assessment import UNKNOWN, Assessment
from ..model.names import name_bytes
from ..scoring.confusion import item_classes
from ..scoring.list_views import top_lists
from ..scoring.measures import measure_by_key
from ..scoring.results import RunResult
from ..shapes.thumbnails import shape_warning, thumbnail_png
from .palette import GRADE_COLOURS, grade_colour, grade_words  # noqa: F401 - re-exported
from .report import fmt, source_names

__all__ = ["GRADE_COLOURS", "GALLERY_MODES", "gallery_files", "run_lists", "thumb_names"]

#: ``lists(run_index, query_ids, k)``: for each query, its first ``k`` item
#: ids and their gains, or the exception that says why it has none
ListsOf = Callable[[int, Sequence[str], int], list[tuple[list[str], np.ndarray] | Exception]]


_PLAIN = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
#: names Windows keeps for its devices, whatever the extension
_DEVICES = frozenset(
    ["con", "prn", "aux", "nul"] + [f"{d}{i}" for d in ("com", "lpt") for i in range(10)]
)


def thumb_names(ids, prefix: str = "") -> dict[str, str]:
    """Each id's thumbnail file name (``prefix`` + name + ``.png``): the id
    itself when it is plain (letters, digits, ``_`` and ``-``, at most 64),
    no other id of ``ids`` equals it but for case (a file system that
    ignores case would give both one file) and it is no Windows device
    name; else ``x.`` and the SHA-1 of the id's bytes (an id that is not
    UTF-8 hashed from its own bytes).  A plain name has no dot, so the two
    kinds never meet, and distinct ids get distinct files."""
    ids = list(dict.fromkeys(ids))
    folded: dict[str, int] = {}
    for i in ids:
        if _PLAIN.match(i):
            folded[i.casefold()] = folded.get(i.casefold(), 0) + 1
    out = {}
    for i in ids:
        plain = (
            _PLAIN.match(i) is not None
            and folded[i.casefold()] == 1
            and i.casefold() not in _DEVICES
        )
        name = i if plain else "x." + hashlib.sha1(name_bytes(i)).hexdigest()
        out[i] = f"{prefix}{name}.png"
    return out


def run_lists(assessment: Assessment, runs, options) -> ListsOf:
    """``lists`` for :func:`gallery_files` from read runs: the first ``k``
    item ids of queries' ranked lists and their gains in run ``i``, as the
    engine ranks them (:func:`shrec_eval.scoring.list_views.top_lists`, the
    queries of a run in one pass); a run that cannot be listed (read against
    another assessment or by other rules) raises its ValueError."""
    known = assessment.item_ids

    def name(j: int) -> str:
        return known[j] if 0 <= j < len(known) else "(unknown id)" if j == UNKNOWN else f"#{j}"

    def lists(i: int, query_ids: Sequence[str], k: int):
        where = [assessment.query_index(q) for q in query_ids]
        asked = [q for q in dict.fromkeys(where) if q is not None]
        items, gains, lengths = top_lists(assessment, runs[i], asked, k, options)
        row = {q: n for n, q in enumerate(asked)}
        out: list = []
        for query_id, q in zip(query_ids, where):
            if q is None:
                out.append(KeyError(f"query {query_id!r} is not in the assessment"))
                continue
            n = row[q]
            got = int(lengths[n])
            out.append(([name(j) for j in items[n, :got].tolist()], gains[n, :got]))
        return out

    return lists


@dataclass(frozen=True)
class _Pick:
    query: str
    why: tuple[str, ...] = ()


def _picks(results: Sequence[RunResult], rank_key: str, mode: str, n: int) -> list[_Pick]:
    queries = results[0].query_ids
    if mode == "all":
        return [_Pick(q) for q in queries]
    m = measure_by_key(rank_key, results[0].options.ranks)
    worst_first = m.higher_is_better == (mode == "worst")
    why: dict[str, list[str]] = {}
    for r in results:
        v = r.column(rank_key)
        ok = np.flatnonzero(~np.isnan(v))
        order = ok[np.argsort(v[ok] if worst_first else -v[ok], kind="stable")]
        for place, qi in enumerate(order[:n], start=1):
            why.setdefault(queries[qi], []).append(f"{mode} {place} of {r.run_name}")
    return [_Pick(q, tuple(w)) for q, w in why.items()]


def gallery_files(
    assessment: Assessment,
    results: Sequence[RunResult],
    lists: ListsOf,
    shapes,
    query_shapes=None,
    *,
    keys: Sequence[str],
    rank_key: str,
    mode: str = "all",
    n: int = 5,
    k: int = 10,
    size: int = 128,
    cache=None,
    progress=None,
) -> tuple[dict[str, bytes | str], dict[str, str]]:
    """(file name -> content of gallery.html and thumbs/*.png, id -> reason
    of every shape that could not be shown).  ``shapes`` and
    ``query_shapes`` are ShapeIndex objects (queries looked up in
    ``query_shapes`` when given, else in ``shapes``); ``progress(done,
    total)`` follows the thumbnails."""
    if mode not in GALLERY_MODES:
        raise ValueError(f"unknown gallery mode {mode!r}")
    picks = _picks(results, rank_key, mode, n)
    classes = None
    if assessment.query_classes is not None or assessment.classification is not None:
        classes = dict(zip(assessment.item_ids, item_classes(assessment)))
    query_class = dict(zip(results[0].query_ids, results[0].query_classes or ()))
    # each run's lists of every picked query at once
    queries = [p.query for p in picks]
    listed: list[list] = []
    for i in range(len(results)):
        try:
            listed.append(lists(i, queries, k))
        except (KeyError, ValueError) as exc:
            listed.append([exc] * len(queries))
    rows = []
    shown_items: dict[str, None] = {}
    for at, p in enumerate(picks):
        # (result, its first K as (rank, item, grade), or why it has none)
        strips: list[tuple[RunResult, list[tuple[int, str, int]] | None, str | None]] = []
        for r, of_run in zip(results, listed):
            got = of_run[at]
            if isinstance(got, Exception):
                strips.append((r, None, str(got)))
                continue
            items, gains = got
            top = [(rank, it, int(g)) for rank, (it, g) in enumerate(zip(items[:k], gains[:k]), 1)]
            shown_items.update((it, None) for _, it, _ in top)
            strips.append((r, top, None))
        rows.append((p, strips))
    # queries and items in one folder: "query." before a query's name, which
    # no item's name can start with (a plain name has no dot, a hashed one
    # starts "x.")
    names = {
        "query": thumb_names([p.query for p in picks], "thumbs/query."),
        "item": thumb_names(shown_items, "thumbs/"),
    }
    wanted = [(names["query"][p.query], query_shapes or shapes, p.query) for p in picks]
    wanted += [(names["item"][it], shapes, it) for it in shown_items]
    files: dict[str, bytes | str] = {}
    problems: dict[str, str] = {}
    for done, (name, index, item) in enumerate(wanted, start=1):
        png, problem = thumbnail_png(index.files(item) if index is not None else None, size, cache)
        if problem is not None:
            problems[item] = problem
        files[name] = png
        if progress is not None:
            progress(done, len(wanted))
    files["gallery.html"] = _page(
        assessment, results, rows, names, classes, query_class, keys, rank_key, mode, n, k, problems
    )
    return files, problems


_CSS = """
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222;background:#fff}
h2{margin:1.6em 0 .3em;font-size:1.15em}
.why{color:#666;font-size:.9em}
table.runs{border-collapse:collapse}
table.runs td{padding:3px 6px;vertical-align:middle}
table.runs td.query{vertical-align:top;padding:3px 14px 3px 0}
td.name{font-weight:600;white-space:nowrap}
div.vals{font:12px/1.5 monospace;font-weight:normal;color:#444;margin-top:.2em;
 display:grid;grid-template-columns:auto auto;column-gap:1.2em}
.strip{display:flex;gap:4px}
figure{margin:0;text-align:center;font-size:11px;color:#555}
figure img{display:block;border:4px solid;border-radius:3px;background:#fff}
figure.query img{border-color:#2a5db0}
.key span{display:inline-block;width:1em;height:1em;vertical-align:middle;margin:0 .3em 0 1em}
"""


def _rgb(c) -> str:
    return "#{:02x}{:02x}{:02x}".format(*c)


def _page(
    assessment, results, rows, names, classes, query_class, keys, rank_key, mode, n, k, problems
):
    e = html.escape
    top = assessment.top_grade
    measures = [measure_by_key(key, results[0].options.ranks) for key in keys]
    shown = 72
    key_items = [(GRADE_COLOURS[2], grade_words(max(top, 1), top))]
    if top >= 2:
        key_items.append((GRADE_COLOURS[1], grade_words(1, top)))
    key_items.append((GRADE_COLOURS[0], "not relevant"))
    legend = "".join(f'<span style="background:{_rgb(c)}"></span>{e(w)}' for c, w in key_items)
    what = {
        "all": "every query",
        "worst": f"the {n} worst queries of each run",
        "best": f"the {n} best queries of each run",
    }[mode]
    rank_label = measure_by_key(rank_key, results[0].options.ranks).label
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8"><title>Gallery</title>',
        f"<style>{_CSS}</style></head><body>",
        "<h1>Gallery</h1>",
        f"<p>{e(what.capitalize())} (by {e(rank_label)}): the query and the first {k} "
        f"results of each run, framed by grade. Assessment: {e(source_names(assessment))}. "
        f"Generated by shrec-eval {e(__version__)}.</p>",
        f'<p class="key">{legend}</p>',
    ]
    qidx = {q: i for i, q in enumerate(results[0].query_ids)}
    for p, strips in rows:
        qfile = names["query"][p.query]
        qc = query_class.get(p.query)
        title = f"Query {p.query}" + (f" (class {qc})" if qc else "")
        out.append(f'<h2 id="q-{e(p.query)}">{e(title)}</h2>')
        if p.why:
            out.append(f'<p class="why">{e("; ".join(p.why))}</p>')
        out.append('<table class="runs">')
        # the query on the left of every run's strip, its caption under it
        query = (
            f'<td class="query" rowspan="{max(len(strips), 1)}"><figure class="query">'
            f'<img src="{e(qfile)}" width="{shown}" height="{shown}" '
            f'alt="query {e(p.query)}" title="{e(title)}"><figcaption>query</figcaption>'
            "</figure></td>"
        )
        for row, (r, top_k, error) in enumerate(strips):
            qi = qidx.get(p.query)
            # each measure by its short name (the label in its tooltip); wraps between measures
            vals = " ".join(
                f'<span title="{e(m.label)} [{e(m.key)}]">'
                f"{e(m.short or m.key)} {e(fmt(r.column(m.key)[qi], m) or '-')}</span>"
                for m in measures
                if qi is not None
            )
            # the run's name, its values under it (two a line), then its strip
            out.append(
                f'<tr>{query if row == 0 else ""}<td class="name">{e(r.run_name)}'
                f'<div class="vals">{vals}</div></td><td><div class="strip">'
            )
            if error is not None:
                out.append(f"<span>{e(error)}</span>")
            for rank, item, grade in top_k or ():
                cls = classes.get(item) if classes else None
                tip = f"rank {rank}: {item}" + (f", class {cls}" if cls else "")
                tip += f" ({grade_words(grade, top)})"
                out.append(
                    f'<figure class="g{min(grade, 2)}"><img src="{e(names["item"][item])}" '
                    f'width="{shown}" height="{shown}" alt="{e(item)}" title="{e(tip)}" '
                    f'data-rank="{rank}" data-item="{e(item)}" '
                    f'style="border-color:{_rgb(grade_colour(grade, top))}">'
                    f"<figcaption>{rank}</figcaption></figure>"
                )
            out.append("</div></td></tr>")
        out.append("</table>")
    w = shape_warning(problems)
    if w is not None:
        out.append("<h2>Data checks</h2>")
        out.append(f"<p>{e(str(w))}</p>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
