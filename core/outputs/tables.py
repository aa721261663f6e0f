"""The report's tables as text, one function per file kind: CSV (cells that no
spreadsheet reads as a formula), Markdown, LaTeX (laid out by tex_layout)
and the HTML page, from a Summary."""

from __future__ import annotations

import csv
import html
import io
import math
import re
from collections.abc import Sequence
from pathlib import Path

from .. import __version__
from ..model.assessment import Assessment
from ..model.values import nullable
from ..scoring.engine import RunResult
from ..scoring.measures import measure_by_key
from .atomic import write_folder
from .palette import FIGURE_FORMATS, REPORT_FIGURES
from .summary import (
    Summary,
    class_table,
    fmt,
    source_names,
)
from .tex_layout import (
    TEX_DIGITS,
    TOOL,
    TexCell,
    TexTable,
    tex_table,
)

FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_text_cell(text: str) -> str:
    """A participant-supplied text cell that no spreadsheet will run as a
    formula (OWASP: prefix a quote)."""
    return "'" + text if text.startswith(FORMULA_START) else text


def _csv(rows: list[list]) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerows(rows)
    return buf.getvalue()


def summary_csv(s: Summary) -> str:
    head = ["rank", "run"] + s.keys
    rows = [
        [i, csv_text_cell(r.run_name)] + [_csv_num(r.mean(k)) for k in s.keys]
        for i, r in enumerate(s.results, start=1)
    ]
    return _csv([head] + rows)


def per_query_csv(results: Sequence[RunResult]) -> str:
    keys = results[0].keys if results else []
    rows = [["run", "query"] + keys]
    for r in results:
        for q, row in zip(r.query_ids, r.values.tolist()):
            rows.append([csv_text_cell(r.run_name), csv_text_cell(q)] + [_csv_num(v) for v in row])
    return _csv(rows)


def _csv_num(v) -> str:
    v = nullable(v)
    return "" if v is None else repr(v)


#: what makes text Markdown: emphasis, code, links and images, tables,
#: strikethrough (a backslash before each; HTML's < > & as entities)
_MD_SPECIAL = re.compile(r"([\\`*_\[\]()|~!])")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def md_escape(t: str) -> str:
    """Participants' text (run names, class names, ids) as Markdown that
    renders as the text and nothing else: no link, image, code span,
    emphasis, HTML or table cell comes out of a name; control characters
    (a line break would end the table row) are spaces."""
    return _MD_SPECIAL.sub(r"\\\1", html.escape(_CONTROL.sub(" ", t)))


def summary_md(s: Summary, cut: Sequence[tuple[str, str]] = ()) -> str:
    """The summary and the per-class table in Markdown; ``cut``: (as drawn,
    whole) of the names the figures shorten, listed after the tables."""
    esc = md_escape

    head = "| Rank | Run | " + " | ".join(m.label for m in s.measures) + " |"
    sep = "|---:|---|" + "---:|" * len(s.measures)
    rows = []
    for i, r in enumerate(s.results, start=1):
        cells = []
        for k, m in zip(s.keys, s.measures):
            t = s.cell(r, k, m).replace("*", "\\*")
            cells.append(f"**{t}**" if t and s.is_best(r, k) else t)
        rows.append(f"| {i} | {esc(r.run_name)} | " + " | ".join(cells) + " |")
    ranks = s.results[0].options.ranks
    notes = [
        "",
        # the tool's own words (measure labels, the profile) as they are
        f"Ranked by {measure_by_key(s.rank_key, ranks).label}; {s.how()}; "
        "best value per measure in bold.",
    ] + ([esc(s.legend)] if s.legend else [])
    return "\n".join([head, sep] + rows + notes) + "\n" + per_class_md(s) + cut_names_md(cut)


def _measure_key_text(measures) -> str:
    """What each short column head is: "NN: Nearest Neighbour; ..."."""
    return "; ".join(
        f"{m.short}: {m.label}" if m.short != m.label else m.short for m in measures if m.short
    )


def summary_table(s: Summary) -> TexTable:
    ranks = s.results[0].options.ranks
    rank = measure_by_key(s.rank_key, ranks)
    rows = []
    for r in s.results:
        cells = []
        for k, m in zip(s.keys, s.measures):
            t = fmt(r.mean(k), m, TEX_DIGITS)
            if t and s.marks and k == s.marks_key:
                t += s.marks.get(r.run_name, "")
            cells.append(TexCell(t, bool(t) and s.is_best(r, k)))
        rows.append((r.run_name, cells))
    caption = (
        f"Runs ranked by {rank.short or rank.key} (best first); best value per column in bold; "
        f"{s.how()}. {_measure_key_text(s.measures)}." + (f" {s.legend}" if s.legend else "")
    )
    return TexTable("Run", [m.short or m.key for m in s.measures], rows, caption, "tab:summary")


def summary_tex(s: Summary, *, wide: bool = False) -> str:
    """The summary (runs in ranking order x the table's measures, best per
    column bold) as a booktabs table that fits one column of a two-column
    paper, or with ``wide`` the page width."""
    t = summary_table(s)
    if wide:
        t.label = "tab:summary-wide"
    return tex_table(t, wide=wide, note=s.how())


def per_class_tex(s: Summary, *, wide: bool = False) -> str | None:
    """Classes (rows) x runs (ranking order) of the ranking measure, the
    best run per class bold; None without classes."""
    if not s.results[0].per_class:
        return None
    ranks = s.results[0].options.ranks
    m = measure_by_key(s.rank_key, ranks)
    names = list(dict.fromkeys(c for r in s.results for c in r.per_class))
    sign = 1 if m.higher_is_better else -1
    rows = []
    counts = set()
    for c in names:
        vals = [r.per_class.get(c, {}).get(s.rank_key) for r in s.results]
        ok = [sign * v for v in vals if v is not None]
        best = max(ok) if ok else None
        n = max(r.per_class.get(c, {}).get("queries", 0) for r in s.results)
        counts.add(n)
        cells = [TexCell(str(n))] + [
            TexCell(fmt(v, m, TEX_DIGITS), v is not None and abs(sign * v - best) <= 1e-12)
            for v in vals
        ]
        rows.append((c, cells))
    heads = ["Q"] + [r.run_name for r in s.results]
    queries = "Q: queries of the class"
    if len(counts) == 1:  # every class as many queries: said once, no column
        rows = [(c, cells[1:]) for c, cells in rows]
        heads = heads[1:]
        n = counts.pop()
        queries = f"{n} quer{'y' if n == 1 else 'ies'} per class"
    caption = (
        f"{m.short or m.key} ({m.label}) per class: the mean over the queries of each class, "
        f"runs in ranking order, the best run of each class in bold; {queries}; "
        f"profile {s.results[0].profile}."
    )
    t = TexTable(
        "Class",
        heads,
        rows,
        caption,
        "tab:per-class-wide" if wide else "tab:per-class",
        turn_heads=True,
    )
    return tex_table(t, wide=wide, note=s.how())


_CSS = """body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{padding:.3em .7em;border-bottom:1px solid #ddd}
th{background:#f3f3f3;text-align:center}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.best{font-weight:bold;background:#e6f4e6}caption{text-align:left;color:#555;margin-bottom:.4em}
.warn{color:#8a5a00}"""


def per_class_md(s: Summary) -> str:
    table = class_table(s)
    if table is None:
        return ""
    head, rows = table
    m = measure_by_key(s.rank_key, s.results[0].options.ranks)
    lines = [
        "",
        f"Per class: {m.label} (class means; profile {s.results[0].profile})",
        "",
        "| " + " | ".join(md_escape(h) for h in head) + " |",
        "|---|---:|" + "---:|" * (len(head) - 2),
    ]
    lines += ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def cut_names_md(cut: Sequence[tuple[str, str]]) -> str:
    """The names the figures draw shortened, each with its whole name."""
    if not cut:
        return ""
    lines = ["", "Names shortened in the figures", "", "| In the figures | Name |", "|---|---|"]
    lines += [f"| {md_escape(a)} | {md_escape(b)} |" for a, b in cut]
    return "\n".join(lines) + "\n"


def _cut_names_html(cut: Sequence[tuple[str, str]]) -> str:
    if not cut:
        return ""
    e = html.escape
    body = "".join(f"<tr><td>{e(a)}</td><td>{e(b)}</td></tr>" for a, b in cut)
    return (
        "<h2>Names shortened in the figures</h2>\n<table><thead><tr><th>In the figures</th>"
        f"<th>Name</th></tr></thead>\n<tbody>{body}</tbody></table>"
    )


def _per_class_html(s: Summary) -> str:
    table = class_table(s)
    if table is None:
        return ""
    e = html.escape
    head, rows = table
    m = measure_by_key(s.rank_key, s.results[0].options.ranks)
    th = "".join(f"<th>{e(h)}</th>" for h in head)
    body = "".join(
        f"<tr><td>{e(r[0])}</td>" + "".join(f'<td class="num">{e(c)}</td>' for c in r[1:]) + "</tr>"
        for r in rows
    )
    return (
        f"<h2>Per class: {e(m.label)}</h2>\n<table><caption>Mean over the queries of each "
        f"class (profile {e(s.results[0].profile)}).</caption>\n<thead><tr>{th}</tr></thead>\n"
        f"<tbody>{body}</tbody></table>"
    )


def per_class_csv(results: Sequence[RunResult]) -> str:
    """run, class, queries and every measure's class mean."""
    keys = results[0].keys if results else []
    rows = [["run", "class", "queries"] + keys]
    for r in results:
        for c, row in r.per_class.items():
            rows.append(
                [csv_text_cell(r.run_name), csv_text_cell(c), row["queries"]]
                + [_csv_num(row[k]) for k in keys]
            )
    return _csv(rows)


def summary_html(
    s: Summary,
    assessment: Assessment,
    *,
    title: str = "Contest results",
    cut: Sequence[tuple[str, str]] = (),
) -> str:
    e = html.escape
    head = "".join(f'<th title="{e(m.definition)}">{e(m.label)}</th>' for m in s.measures)
    body = []
    for i, r in enumerate(s.results, start=1):
        cells = []
        for k, m in zip(s.keys, s.measures):
            t = s.cell(r, k, m)
            best = t and s.is_best(r, k)
            cells.append(f'<td class="num{" best" if best else ""}">{e(t)}</td>')
        body.append(f'<tr><td class="num">{i}</td><td>{e(r.run_name)}</td>{"".join(cells)}</tr>')
    pq_head = "".join(f"<th>{e(r.run_name)}</th>" for r in s.results)
    pq_rows = []
    cols = [r.column(s.rank_key) for r in s.results]
    m = measure_by_key(s.rank_key, s.results[0].options.ranks)
    # runs scored on different query sets (shapenet17 datasets) have no common rows
    shared = all(r.query_ids == s.results[0].query_ids for r in s.results)
    for qi, q in enumerate(s.results[0].query_ids if shared else ()):
        vals = [c[qi] for c in cols]
        ok = [v for v in vals if not math.isnan(v)]
        top = (max(ok) if m.higher_is_better else min(ok)) if ok else None
        tds = "".join(
            f'<td class="num{" best" if top is not None and v == top else ""}">{e(fmt(v, m))}</td>'
            for v in vals
        )
        pq_rows.append(f"<tr><td>{e(q)}</td>{tds}</tr>")
    warn = []
    for r in s.results:
        for w in r.warnings:
            warn.append(
                f"<li><b>{e(r.run_name)}</b>: {e(w.message)}: {w.count}"
                + (f" (e.g. {e(', '.join(w.examples))})" if w.examples else "")
                + "</li>"
            )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{e(title)}</title>
<style>{_CSS}</style></head><body>
<h1>{e(title)}</h1>
<p>Assessment: {e(source_names(assessment))} ({e(assessment.kind)}, {assessment.n_queries} queries,
collection of {assessment.collection_size}). Generated by {TOOL} {e(__version__)}.</p>
<table><caption>{e(s.how().capitalize())}, ranked by {e(m.label)};
best value per measure highlighted; empty = undefined for every query.
{("<br>" + e(s.legend)) if s.legend else ""}</caption>
<thead><tr><th>Rank</th><th>Run</th>{head}</tr></thead>
<tbody>{"".join(body)}</tbody></table>
{_per_class_html(s)}
<h2>Per query: {e(m.label)}</h2>
<table><caption>Best run per query highlighted.</caption>
<thead><tr><th>Query</th>{pq_head}</tr></thead>
<tbody>{"".join(pq_rows)}</tbody></table>
<h2>Data checks</h2>
<ul class="warn">{"".join(warn) or "<li>none</li>"}</ul>
{_cut_names_html(cut)}
</body></html>
"""


#: every file a report or CSV folder may hold (an earlier one is replaced whole)
REPORT_FILES = (
    "summary.csv",
    "per_query.csv",
    "per_class.csv",
    "summary.md",
    "summary.tex",
    "summary-wide.tex",
    "per_class.tex",
    "per_class-wide.tex",
    "index.html",
    "gallery.html",  # with shapes (shrec_eval.outputs.gallery)
    "thumbs",
) + tuple(f"figures/{name}.{kind}" for name in REPORT_FIGURES for kind in FIGURE_FORMATS)


def write_csv_dir(folder, results: Sequence[RunResult], rank_key: str | None = None) -> list[Path]:
    files = {
        "summary.csv": summary_csv(Summary.build(results, None, rank_key)),
        "per_query.csv": per_query_csv(results),
    }
    return write_folder(folder, files, replaces=REPORT_FILES)
