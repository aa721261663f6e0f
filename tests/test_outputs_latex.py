"""The report's LaTeX tables compiled by pdflatex in a two-column article:
no error and no overfull box, for the demo and a 55-class contest; short
column heads, the best value per column bold, runs in ranking order."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest
from print_contest import classes55, demo_scored
from shrec_eval.outputs.report import Summary, per_class_tex, report_files, summary_tex
from shrec_eval.scoring.measures import expand, measure_by_key

DOC = r"""\documentclass[twocolumn]{article}
\usepackage{booktabs}
\usepackage{graphicx}
\begin{document}
Two-column text.
\input{%s}
\end{document}
"""


def compile_tex(folder, name: str) -> str:
    """pdflatex on a two-column article that inputs ``name``; its log."""
    if shutil.which("pdflatex") is None:
        pytest.fail("pdflatex is missing (.ci/run installs texlive-latex-recommended)")
    (folder / "doc.tex").write_text(DOC % name)
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
    )
    log = (folder / "doc.log").read_text(errors="replace")
    assert done.returncode == 0, log[-3000:]
    return log


def assert_clean(log: str) -> None:
    for bad in ("Overfull", "Underfull \\hbox", "! ", "Float too large", "LaTeX Error"):
        assert bad not in log, (bad, log[log.find(bad) - 200 : log.find(bad) + 400])


CONTESTS = {"demo": demo_scored, "55 classes": classes55}


@pytest.mark.parametrize("contest", CONTESTS)
def test_tables_compile_without_overfull_boxes(tmp_path, contest):
    a, results, keys, rank_key = CONTESTS[contest]()
    files = report_files(a, results, keys=keys, rank_key=rank_key)
    names = ["summary.tex", "summary-wide.tex", "per_class.tex", "per_class-wide.tex"]
    assert set(names) <= set(files)
    for name in names:
        (tmp_path / name).write_text(files[name])
        log = compile_tex(tmp_path, name)
        assert_clean(log)
        pages = int(re.search(r"Output written on doc\.pdf \((\d+) page", log)[1])
        rows = len(results) if name.startswith("summary") else len(results[0].per_class)
        # a table* float starts on the next page; a long table continues on more
        assert pages <= 2 + rows // 40, name


def test_summary_heads_bold_and_order():
    a, results, keys, rank_key = demo_scored()
    s = Summary.build(results, keys, rank_key)
    tex = summary_tex(s)
    ranks = results[0].options.ranks
    shorts = [measure_by_key(k, ranks).short for k in keys]
    assert shorts[:6] == ["NN", "FT", "ST", "E", "DCG", "mAP"]
    heads = [line for line in tex.splitlines() if line.startswith("Run &") and line.endswith(r"\\")]
    assert [h.strip() for line in heads for h in line[:-2].split("&")[1:]] == [
        s.replace("@", "@") for s in shorts
    ]
    # the caption says what each head is
    caption = re.search(r"\\caption\{(.*)\}", tex)[1]
    assert (
        "NN: Nearest Neighbour" in caption and "mAP: Average Precision (trec, relevant)" in caption
    )
    assert "Runs ranked by ADR" in caption
    # runs in ranking order (ADR, best first) in every block
    order = [r.run_name for r in sorted(results, key=lambda r: -r.mean(rank_key))]
    body = [line.split(" & ")[0] for line in tex.splitlines() if " & " in line]
    body = [n for n in body if n != "Run"]
    assert body == order * (len(body) // len(order))
    # the bold value of each column is the best mean, three decimals
    for k in keys:
        best = max(r.mean(k) for r in results)
        assert rf"\textbf{{{best:.3f}}}" in tex
    assert r"\begin{table}" in tex and r"\begin{table*}" in summary_tex(s, wide=True)


def test_per_class_rows_are_classes_with_the_best_run_bold():
    a, results, keys, rank_key = classes55()
    s = Summary.build(results, keys, rank_key)
    tex = per_class_tex(s)
    rows = [line for line in tex.splitlines() if line.count(" & ") >= 2 and "Class" not in line]
    classes = list(results[0].per_class)
    assert len(classes) == 55
    names = [re.sub(r"\\raggedright |\\allowbreak\{\}", "", r.split(" & ")[0]) for r in rows]
    names = [n.replace(r"\_", "_") for n in names]
    # every class once in each block of columns, in the assessment's order
    assert sorted(names) == sorted(classes * (len(names) // 55))
    assert [n for n in names if n in classes[:2]][:2] == classes[:2]
    assert "4 queries per class" in tex
    first = rows[0].rstrip("\\ ").split(" & ")
    bold = [c for c in first if c.startswith(r"\textbf")]
    assert len(bold) >= 1
    per_class = {r.run_name: r.per_class[classes[0]][rank_key] for r in s.results}
    assert f"{max(per_class.values()):.3f}" in bold[0]


def test_every_measure_has_one_short_head():
    shorts = [m.short for m in expand((5, 10, 100), None)]
    assert all(shorts) and len(set(shorts)) == len(shorts)
    assert measure_by_key("ndcg@100").short == "NDCG@100"
    assert measure_by_key("ap_trec_r").short == "mAP"
