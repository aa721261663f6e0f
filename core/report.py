"""Tables of a contest and their files: summary and per-query tables (from
the measure registry), JSON, CSV, Markdown, LaTeX and a self-contained HTML
page.  Text that came from participants' files (run names, ids) is escaped
for HTML and LaTeX, and CSV cells that a spreadsheet would run as a formula
are neutralised.  Every file is written atomically."""

from __future__ import annotations

import csv
import html
import io
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import islice
from pathlib import Path

import numpy as np
import orjson

from . import __version__
from .atomic import write_folder, write_pieces
from .engine import RunResult
from .measures import ConcreteMeasure, measure_by_key
from .model import Assessment
from .values import nullable, text_grid

TOOL = "shrec-eval"
AVERAGE_TEXT = {
    "micro": "mean over queries (micro)",
    "macro": "mean over classes of the class means (macro)",
    "proportional": "mean over queries weighted by their relevant items (proportional)",
    "reciprocal": "mean over queries weighted by 1 / their relevant items (reciprocal)",
}
HEADLINE = ["nn", "ft_psb", "st_psb", "e_measure", "dcg_psb", "ap_trec_r", "adr", "ndcg@100"]


def default_rank_key(assessment: Assessment | None) -> str:
    """The measure that ranks runs when nobody says: the SHREC 2006 report
    ranks by mean ADR on graded assessments; with binary relevance (or no
    assessment yet) MAP is the usual headline."""
    return "adr" if assessment is not None and assessment.top_grade > 1 else "ap_trec_r"


def headline_keys(keys: Sequence[str]) -> list[str]:
    return [k for k in HEADLINE if k in keys]


# -- values -------------------------------------------------------------------


def fmt(value: float | None, measure: ConcreteMeasure | None = None, digits: int = 4) -> str:
    value = nullable(value)
    if value is None:
        return ""
    if measure is not None and measure.is_count:
        return f"{value:.2f}".rstrip("0").rstrip(".")
    return f"{value:.{digits}f}"


@dataclass
class Summary:
    """Runs x measures, ranked by one measure (best first).  ``marks`` puts
    a significance marker after some values of one measure."""

    keys: list[str]
    measures: list[ConcreteMeasure]
    rank_key: str
    results: list[RunResult]
    marks: dict = None  # run name -> marker, on the column ``marks_key``
    marks_key: str | None = None
    legend: str = ""

    def cell(self, r: RunResult, key: str, m: ConcreteMeasure) -> str:
        t = fmt(r.mean(key), m)
        if t and self.marks and key == self.marks_key:
            t += self.marks.get(r.run_name, "")
        return t

    def mark_significance(self, comparison, test: str) -> None:
        """Mark, on the compared measure, every run that differs
        significantly from the best run (corrected p < alpha)."""
        best = comparison.ranking()[0].name
        self.marks_key = comparison.measure
        self.marks = {
            r.name: "*"
            for r in comparison.runs
            if r.name != best and comparison.significant(r.name, best, test)
        }
        from .stats import CORRECTIONS, TESTS

        self.legend = (
            f"* {comparison.label}: significantly different from the best run "
            f"({best}), {TESTS[test]}, {CORRECTIONS[comparison.correction]} "
            f"correction over {len(comparison.pairs)} pairs, alpha = "
            f"{comparison.alpha}."
        )

    @classmethod
    def build(
        cls,
        results: Sequence[RunResult],
        keys: Sequence[str] | None = None,
        rank_key: str | None = None,
    ) -> Summary:
        if not results:
            raise ValueError("no run to summarise")
        ranks = results[0].options.ranks
        keys = list(keys or results[0].keys)
        measures = [measure_by_key(k, ranks) for k in keys]
        rank_key = rank_key or keys[0]
        m = measure_by_key(rank_key, ranks)
        sign = -1 if m.higher_is_better else 1

        def order(r: RunResult):
            v = r.mean(rank_key)
            return (v is None, sign * v if v is not None else 0.0)

        return cls(keys, measures, rank_key, sorted(results, key=order))

    def best(self, key: str) -> float | None:
        m = measure_by_key(key, self.results[0].options.ranks)
        vals = [v for v in (r.mean(key) for r in self.results) if v is not None]
        if not vals:
            return None
        return max(vals) if m.higher_is_better else min(vals)

    def is_best(self, result: RunResult, key: str) -> bool:
        v, b = result.mean(key), self.best(key)
        return v is not None and b is not None and abs(v - b) <= 1e-12 * max(1.0, abs(b))

    def how(self) -> str:
        """The profile and the average behind the means, for every table."""
        o = self.results[0].options
        return f"profile {o.profile}, {AVERAGE_TEXT[o.average]}"

    def text(self) -> str:
        """A plain-text table for a terminal."""
        head = ["Rank", "Run"] + [m.key for m in self.measures]
        rows = [
            [str(i), r.run_name] + [fmt(r.mean(k), m) for k, m in zip(self.keys, self.measures)]
            for i, r in enumerate(self.results, start=1)
        ]
        out = text_grid([head] + rows, rule=True)
        ranks = self.results[0].options.ranks
        out.append(
            f"ranked by {self.rank_key} ({measure_by_key(self.rank_key, ranks).label}); "
            f"{self.how()}; empty = undefined for every query"
        )
        return "\n".join(out)


# -- JSON ---------------------------------------------------------------------------


def to_json(
    assessment: Assessment,
    results: Sequence[RunResult],
    *,
    assessment_path=None,
    run_paths: Sequence | None = None,
    curves: bool = True,
    assessment_reader: dict | None = None,
    run_readers: Sequence[dict] | None = None,
) -> dict:
    """The documented JSON document (README: "JSON output"), to be written
    with :func:`write_json`: per-query values are floats and curves numpy
    arrays, NaN where a value is undefined (written as null).  The reader
    settings (``AssessmentSource.to_dict`` without the path,
    ``RunSource.reader_dict``) go with the assessment and each run."""
    opts = results[0].options.to_dict() if results else {}
    runs = []
    for i, r in enumerate(results):
        rows = map(dict, map(partial(zip, r.keys), r.values.tolist()))  # C loops, no generator
        per_query = dict(zip(r.query_ids, rows))
        runs.append(
            {
                "name": r.run_name,
                "path": str(run_paths[i]) if run_paths else r.run_source,
                "format": r.run_format,
                **({"reader": run_readers[i]} if run_readers else {}),
                "mean": {k: nullable(v) for k, v in r.means.items()},
                "averages": r.averages,
                "per_class": r.per_class,
                "undefined": {k: r.n_undefined(k) for k in r.keys if r.n_undefined(k)},
                "per_query": per_query,
                "curves": {k: c.to_dict(r.query_ids) for k, c in r.curves.items()}
                if curves
                else {},
                "warnings": [w.to_dict() for w in r.warnings],
            }
        )
    return {
        "tool": {"name": TOOL, "version": __version__},
        "profile": results[0].profile if results else opts.get("profile", "shrec"),
        "assessment": {
            "path": str(assessment_path) if assessment_path is not None else assessment.source,
            "kind": assessment.kind,
            "queries": assessment.n_queries,
            "collection_size": results[0].options.collection_size or assessment.collection_size
            if results
            else assessment.collection_size,
            "top_grade": assessment.top_grade,
            **({"reader": assessment_reader} if assessment_reader is not None else {}),
        },
        "options": opts,
        "runs": runs,
    }


def write_json(path, doc) -> None:
    """Write a JSON document atomically (orjson: numpy arrays converted
    whole, NaN and infinities written as null; compact: indentation doubled
    the size of a large contest's file and the time to write it), in pieces
    (:func:`json_pieces`) that the disk flushes while the next are made."""
    write_pieces(path, json_pieces(doc))


_JSON = orjson.OPT_SERIALIZE_NUMPY
#: entries of a large object (per-query values, per-query curves) per piece
_JSON_GROUP = 512
#: values above which a part of the document is written in pieces
_JSON_HEAVY = 1 << 16


def json_pieces(doc) -> Iterator[bytes]:
    """``orjson.dumps(doc)`` and a newline, byte for byte, in pieces: the
    objects holding more than :data:`_JSON_HEAVY` values (numpy arrays
    counted by size) are written a member, or :data:`_JSON_GROUP` members,
    at a time."""
    yield from _json_pieces(doc)
    yield b"\n"


def _json_pieces(value) -> Iterator[bytes]:
    if isinstance(value, dict) and value and _heavy(value):
        yield b"{"
        first = True
        for group in _member_groups(list(value.items())):
            comma = b"" if first else b","
            first = False
            if len(group) > 1 or not _heavy(group[0][1]):  # light members, as one object
                yield comma + orjson.dumps(dict(group), option=_JSON)[1:-1]
                continue
            k, v = group[0]
            if not isinstance(k, str):  # as orjson refuses it in a whole document
                raise TypeError(f"Dict key must be str, not {type(k).__name__}")
            yield comma + orjson.dumps(k) + b":"
            yield from _json_pieces(v)
        yield b"}"
    elif isinstance(value, list) and value and _heavy(value):
        yield b"["
        for i, v in enumerate(value):
            if i:
                yield b","
            yield from _json_pieces(v)
        yield b"]"
    else:
        yield orjson.dumps(value, option=_JSON)


def _member_groups(items: list) -> Iterator[list]:
    """The members of a heavy object in the groups written as one piece: a
    larger object's (queries) :data:`_JSON_GROUP` or fewer at a time, as many
    as make about :data:`_JSON_HEAVY` values (weighed from a sample); a
    smaller object's (a run, the document) member by member, each heavy one
    alone (written in pieces) and the light ones between them together."""
    if len(items) > _JSON_WHOLE:
        sample = items[:_JSON_SAMPLE]
        member = _weight([v for _, v in sample]) / len(sample)
        step = max(1, min(_JSON_GROUP, int(_JSON_HEAVY // max(member, 1))))
        for at in range(0, len(items), step):
            yield items[at : at + step]
        return
    light: list = []
    for item in items:
        if _heavy(item[1]):
            if light:
                yield light
                light = []
            yield [item]
        else:
            light.append(item)
    if light:
        yield light


def _heavy(value) -> bool:
    """Whether ``value`` holds more than :data:`_JSON_HEAVY` values, as
    estimated from its members (the first :data:`_JSON_SAMPLE` of a larger
    object or list: the document's large parts, queries, are alike
    throughout; the estimate only decides where pieces end, never what they
    hold)."""
    return _weight(value) > _JSON_HEAVY


#: members of a larger object or list that its weight is estimated from;
#: smaller ones (a run, the document) are weighed member by member, so a
#: heavy member anywhere (a run's curves come after its reader settings) counts
_JSON_SAMPLE = 8
_JSON_WHOLE = 64


def _weight(value) -> float:
    if isinstance(value, np.ndarray):
        return value.size
    if isinstance(value, dict | list | tuple):
        if not value:
            return 1
        members = value.values() if isinstance(value, dict) else value
        if len(value) <= _JSON_WHOLE:
            return sum(_weight(v) for v in members)
        first = list(islice(members, _JSON_SAMPLE))
        return sum(_weight(v) for v in first) * len(value) / len(first)
    return 1


# -- CSV ----------------------------------------------------------------------------

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


# -- Markdown, LaTeX, HTML ---------------------------------------------------------------


def _md_escape(t: str) -> str:
    return (
        html.escape(t.replace("\\", "\\\\"))
        .replace("|", "\\|")
        .replace("*", "\\*")
        .replace("_", "\\_")
    )


def summary_md(s: Summary) -> str:
    esc = _md_escape

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
        f"Ranked by {esc(measure_by_key(s.rank_key, ranks).label)}; {esc(s.how())}; "
        "best value per measure in bold.",
    ] + ([esc(s.legend)] if s.legend else [])
    return "\n".join([head, sep] + rows + notes) + "\n" + per_class_md(s)


_TEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}


def tex_escape(text: str) -> str:
    return "".join(_TEX.get(c, c) for c in text)


def summary_tex(s: Summary) -> str:
    cols = "rl" + "r" * len(s.measures)
    lines = [
        r"% generated by " + f"{TOOL} {__version__}; needs \\usepackage{{booktabs}}",
        r"% " + tex_escape(s.how()),
        r"\begin{tabular}{" + cols + "}",
        r"\toprule",
        "Rank & Run & " + " & ".join(tex_escape(m.label) for m in s.measures) + r" \\",
        r"\midrule",
    ]
    for i, r in enumerate(s.results, start=1):
        cells = []
        for k, m in zip(s.keys, s.measures):
            t = tex_escape(s.cell(r, k, m))
            cells.append(rf"\textbf{{{t}}}" if t and s.is_best(r, k) else t)
        lines.append(f"{i} & {tex_escape(r.run_name)} & " + " & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}"]
    lines.append(r"\par\smallskip{\footnotesize " + tex_escape(s.how().capitalize()) + "}")
    if s.legend:
        lines.append(r"\par\smallskip{\footnotesize " + tex_escape(s.legend) + "}")
    return "\n".join(lines) + "\n"


_CSS = """body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}th,td{padding:.3em .7em;border-bottom:1px solid #ddd}
th{background:#f3f3f3;text-align:center}td.num{text-align:right;font-variant-numeric:tabular-nums}
td.best{font-weight:bold;background:#e6f4e6}caption{text-align:left;color:#555;margin-bottom:.4em}
.warn{color:#8a5a00}"""


def class_table(s: Summary) -> tuple[list[str], list[list[str]]] | None:
    """Classes x runs for the ranking measure (the class means, with the
    number of queries of the class); None without classes."""
    if not s.results[0].per_class:
        return None
    m = measure_by_key(s.rank_key, s.results[0].options.ranks)
    names = list(dict.fromkeys(c for r in s.results for c in r.per_class))
    head = ["Class", "Queries"] + [r.run_name for r in s.results]
    rows = []
    for c in names:
        n = max(r.per_class.get(c, {}).get("queries", 0) for r in s.results)
        rows.append(
            [c, str(n)] + [fmt(r.per_class.get(c, {}).get(s.rank_key), m) for r in s.results]
        )
    return head, rows


def per_class_md(s: Summary) -> str:
    table = class_table(s)
    if table is None:
        return ""
    head, rows = table
    m = measure_by_key(s.rank_key, s.results[0].options.ranks)
    lines = [
        "",
        f"Per class: {_md_escape(m.label)} (class means; profile {s.results[0].profile})",
        "",
        "| " + " | ".join(_md_escape(h) for h in head) + " |",
        "|---|---:|" + "---:|" * (len(head) - 2),
    ]
    lines += ["| " + " | ".join(_md_escape(c) for c in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


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


def summary_html(s: Summary, assessment: Assessment, *, title: str = "Contest results") -> str:
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
        best = (max(ok) if m.higher_is_better else min(ok)) if ok else None
        tds = "".join(
            f'<td class="num{" best" if best is not None and v == best else ""}">'
            f"{e(fmt(v, m))}</td>"
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
<p>Assessment: {e(assessment.source)} ({e(assessment.kind)}, {assessment.n_queries} queries,
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
</body></html>
"""


def write_report(
    folder,
    assessment: Assessment,
    results: Sequence[RunResult],
    *,
    keys: Sequence[str] | None = None,
    rank_key: str | None = None,
    comparison=None,
    test: str | None = None,
) -> list[Path]:
    """summary.csv, per_query.csv, summary.md, summary.tex and index.html;
    with a ``comparison``, its significance markers and their legend."""
    files = report_files(
        assessment, results, keys=keys, rank_key=rank_key, comparison=comparison, test=test
    )
    return write_folder(folder, files, replaces=REPORT_FILES)


def report_files(
    assessment: Assessment,
    results: Sequence[RunResult],
    *,
    keys: Sequence[str] | None = None,
    rank_key: str | None = None,
    comparison=None,
    test: str | None = None,
) -> dict[str, str]:
    """File name -> text of a report folder (see write_report); the desktop
    app adds its figures to them."""
    full = Summary.build(results, None, rank_key)
    keys = list(keys or headline_keys(results[0].keys))
    if comparison is not None and comparison.measure not in keys:
        keys.append(comparison.measure)
    head = Summary.build(results, keys, rank_key)
    if comparison is not None:
        head.mark_significance(comparison, test or comparison.tests[0])
    return {
        "summary.csv": summary_csv(full),
        "per_query.csv": per_query_csv(results),
        **({"per_class.csv": per_class_csv(results)} if results[0].per_class else {}),
        "summary.md": summary_md(head),
        "summary.tex": summary_tex(head),
        "index.html": summary_html(head, assessment),
    }


#: every file a report or CSV folder may hold (an earlier one is replaced whole)
REPORT_FILES = (
    "summary.csv",
    "per_query.csv",
    "per_class.csv",
    "summary.md",
    "summary.tex",
    "index.html",
    "gallery.html",  # with shapes (shrec_eval.gallery)
    "thumbs",
)


def write_csv_dir(folder, results: Sequence[RunResult], rank_key: str | None = None) -> list[Path]:
    files = {
        "summary.csv": summary_csv(Summary.build(results, None, rank_key)),
        "per_query.csv": per_query_csv(results),
    }
    return write_folder(folder, files, replaces=REPORT_FILES)
