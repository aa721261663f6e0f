"""Names and ids as participants write them (bytes that are not UTF-8, "$",
Markdown, LaTeX and HTML specials, CJK, 300 characters, the same id but
for case) through every output: the gallery and its thumbnails, the
thumbnails command, the print figures (plain text, never mathtext; long
names shortened, whole in a table), summary.md (no link, code or emphasis
out of a name), the LaTeX tables (pdflatex compiles them), index.html and
the CSV files; and a property test that generates such names and checks
that every file of a report is written and every input left as it was."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import re
import shutil
import subprocess
import tempfile
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image
from shrec_eval.cli.parser import main
from shrec_eval.errors import shown
from shrec_eval.model.names import ELLIPSIS, shortened
from shrec_eval.outputs.gallery import thumb_names
from shrec_eval.outputs.report import REPORT_FILES, md_escape, tex_escape
from tiers import examples

OFF = b"OFF\n4 4 0\n0 0 0\n1 0 0\n0 1 0\n0 0 1\n3 0 1 2\n3 0 1 3\n3 0 2 3\n3 1 2 3\n"


def cli(argv) -> tuple[int, str, str]:
    """``shrec-eval ARGV`` in this process: (exit code, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stderr(err):
        code = main([os.fsdecode(a) if isinstance(a, bytes) else str(a) for a in argv], out=out)
    return code, out.getvalue(), err.getvalue()


def cla(classes: dict[bytes, list[bytes]]) -> bytes:
    n = sum(len(v) for v in classes.values())
    out = [b"PSB 1", b"%d %d" % (len(classes), n), b""]
    for name, ids in classes.items():
        out += [name + b" 0 %d" % len(ids), *ids, b""]
    return b"\n".join(out) + b"\n"


def matrix(n_per: int, n_classes: int, seed: int = 0) -> str:
    lab = np.repeat(np.arange(n_classes), n_per)
    m = np.random.default_rng(seed).uniform(1, 2, (lab.size, lab.size))
    m -= (lab[:, None] == lab[None, :]) * 0.5
    np.fill_diagonal(m, 0)
    return "".join(" ".join(f"{v:.4f}" for v in row) + "\n" for row in m)


# -- thumbnails and the gallery ----------------------------------------------------------------


def test_ids_that_are_not_utf8_draw_every_thumbnail_and_the_gallery(tmp_path):
    root = os.fsencode(tmp_path)
    ids = [b"caf\xe9", b"m1", b"m2", b"m3"]
    with open(root + b"/a.cla", "wb") as f:
        f.write(cla({b"a": ids[:2], b"b": ids[2:]}))
    with open(root + b"/r.trec", "wb") as f:
        f.write(
            b"caf\xe9 Q0 m1 1 4 r\ncaf\xe9 Q0 m2 2 3 r\nm1 Q0 caf\xe9 1 4 r\n"
            b"m2 Q0 m3 1 3 r\nm3 Q0 m2 1 3 r\n"
        )
    os.mkdir(root + b"/shapes")
    for i in ids:
        with open(root + b"/shapes/" + i + b".off", "wb") as f:
            f.write(OFF)
    code, _, err = cli(
        [root + b"/a.cla", root + b"/r.trec"][:0]
        + ["evaluate", root + b"/a.cla", root + b"/r.trec", "--shapes", root + b"/shapes"]
        + ["--report", tmp_path / "rep", "--no-normalize-ids"]
    )
    assert code == 0 and "unexpected" not in err, err
    page = (tmp_path / "rep" / "gallery.html").read_text()
    assert "caf\ufffd" in page and "could not be shown" not in page  # every mesh drawn
    thumbs = sorted(p.name for p in (tmp_path / "rep" / "thumbs").iterdir())
    assert len(thumbs) == 8  # 4 queries, 4 items
    code, out, err = cli(["thumbnails", "--shapes", root + b"/shapes", tmp_path / "t"])
    assert code == 0 and "4 thumbnails" in out and "note" not in out, (out, err)
    assert len(list((tmp_path / "t").iterdir())) == 4


def test_thumbnail_names_never_collide():
    ids = ["query-1", "1", "A", "a", "con", "x" + "0" * 40, "x.y", "caf\udce9", "caf\u00e9", "b"]
    names = thumb_names(ids)
    assert len({n.casefold() for n in names.values()}) == len(ids)  # case-insensitive too
    assert names["b"] == "b.png" and names["query-1"] == "query-1.png"
    assert names["A"] != "A.png" and names["con"] != "con.png"  # case twins, a Windows device
    queries = thumb_names(["1", "query-1"], "thumbs/query.")
    items = thumb_names(ids, "thumbs/")
    assert not set(queries.values()) & set(items.values())
    # hashed from the id's bytes: the same bytes, the same name, from one run to the next
    assert names["caf\udce9"] == thumb_names(["caf\udce9"])["caf\udce9"]
    assert names["caf\udce9"] != names["caf\u00e9"]


def test_an_item_named_like_a_query_keeps_its_own_picture(tmp_path):
    (tmp_path / "target.cla").write_text("PSB 1\n2 4\n\na 0 2\nquery-1\nx2\n\nb 0 2\nx3\nx4\n")
    (tmp_path / "queries.cla").write_text("PSB 1\n2 2\n\na 0 1\n1\n\nb 0 1\n2\n")
    (tmp_path / "r.trec").write_text(
        "1 Q0 query-1 1 4 r\n1 Q0 x2 2 3 r\n2 Q0 x3 1 4 r\n2 Q0 x4 2 3 r\n"
    )
    for folder, files in (
        ("shapes", {"query-1": "red", "x2": "gray", "x3": "gray", "x4": "gray"}),
        ("sketches", {"1": "blue", "2": "green"}),
    ):
        (tmp_path / folder).mkdir()
        for name, colour in files.items():
            Image.new("RGB", (64, 64), colour).save(tmp_path / folder / f"{name}.png")
    code, _, err = cli(
        ["evaluate", tmp_path / "target.cla", "--queries", tmp_path / "queries.cla"]
        + [tmp_path / "r.trec", "--shapes", tmp_path / "shapes", "--query-shapes"]
        + [tmp_path / "sketches", "--report", tmp_path / "rep", "--no-normalize-ids"]
    )
    assert code == 0, err
    page = (tmp_path / "rep" / "gallery.html").read_text()
    item = re.search(r'<img src="([^"]+)"[^>]*data-item="query-1"', page).group(1)
    query = re.search(r'<img src="([^"]+)"[^>]*alt="query 1"', page).group(1)
    assert item != query

    def centre(src):
        return Image.open(tmp_path / "rep" / src).convert("RGB").getpixel((64, 64))

    assert centre(item) == (255, 0, 0) and centre(query) == (0, 0, 255)


# -- figures ---------------------------------------------------------------------------------


def _svg_texts(svg: str) -> list[str]:
    import html

    return [html.unescape(t) for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg)]


@pytest.mark.parametrize("name", ["$\\x$", "cost $5 or $10", "a_b^c {d}", "$"])
def test_names_are_drawn_as_written_never_as_mathtext(tmp_path, name):
    token = name.replace(" ", "_")  # a class name is one token
    (tmp_path / "a.cla").write_bytes(
        cla({token.encode(): [b"0", b"1", b"2"], b"b$c$": [b"3", b"4", b"5"]})
    )
    (tmp_path / "m.txt").write_text(matrix(3, 2))
    code, _, err = cli(
        ["evaluate", tmp_path / "a.cla", tmp_path / "m.txt", "--names", name]
        + ["--report", tmp_path / "rep"]
    )
    assert code == 0 and "unexpected" not in err and "Warning" not in err, err
    bars = _svg_texts((tmp_path / "rep" / "figures" / "measure_bars.svg").read_text())
    heat = _svg_texts((tmp_path / "rep" / "figures" / "class_heatmap.svg").read_text())
    assert name in bars and name in heat and token in heat and "b$c$" in heat


def test_long_names_are_shortened_in_figures_and_whole_in_the_tables(tmp_path):
    long = "ResNet50-MVCNN-ImageNet-pretrained-triplet-loss-finetuned-12views-v2"
    (tmp_path / "a.cla").write_bytes(cla({b"a": [b"0", b"1", b"2"], b"b": [b"3", b"4", b"5"]}))
    (tmp_path / "m.txt").write_text(matrix(3, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # "constrained_layout not applied" among them
        code, _, err = cli(
            ["evaluate", tmp_path / "a.cla", tmp_path / "m.txt", tmp_path / "m.txt"]
            + ["--names", f"{long},{long[:-1]}3", "--report", tmp_path / "rep"]
        )
    assert code == 0 and err == "", err
    drawn = set()
    for fig in ("precision_recall", "measure_bars", "class_heatmap"):
        drawn |= set(_svg_texts((tmp_path / "rep" / "figures" / f"{fig}.svg").read_text()))
    cut = [t for t in drawn if ELLIPSIS in t]
    assert len(cut) == 2 and long not in drawn  # two names, still told apart
    assert all(t.endswith(("v2", "v3")) and t.startswith("ResNet") for t in cut)
    md = (tmp_path / "rep" / "summary.md").read_text()
    html = (tmp_path / "rep" / "index.html").read_text()
    for t in cut:
        whole = long if t.endswith("v2") else f"{long[:-1]}3"
        assert f"| {md_escape(t)} | {md_escape(whole)} |" in md
        assert f"<td>{t}</td><td>{whole}</td>" in html
    for preset in ("two-columns", "slide"):
        code, _, err = cli(
            ["evaluate", tmp_path / "a.cla", tmp_path / "m.txt", "--names", long * 3]
            + ["--report", tmp_path / preset, "--figure-preset", preset]
        )
        assert code == 0 and err == "", err


def test_shortened_keeps_names_apart():
    names = ["a" * 50 + str(i) for i in range(12)] + ["short", "b" * 30]
    out = shortened(names, 20)
    assert len(set(out)) == len(names) and out[-2] == "short"
    assert all(len(s) <= 20 for s in out[:-2] + out[-1:])
    assert shortened(["x" * 10 + "y" * 10 + "z", "x" * 10 + "y" * 10 + "w"], 8) == [
        "xxxx…yyz",
        "xxxx…yyw",
    ]


def test_characters_the_figure_font_lacks_are_written_as_code_points(tmp_path):
    (tmp_path / "a.cla").write_bytes(
        cla({"名前".encode(): [b"0", b"1", b"2"], b"b": [b"3", b"4", b"5"]})
    )
    (tmp_path / "m.txt").write_text(matrix(3, 2))
    code, _, err = cli(
        ["evaluate", tmp_path / "a.cla", tmp_path / "m.txt", "--names", "v2 ✓ 名"]
        + ["--report", tmp_path / "rep"]
    )
    assert code == 0 and "Glyph" not in err and err == "", err
    heat = _svg_texts((tmp_path / "rep" / "figures" / "class_heatmap.svg").read_text())
    assert "[U+540D][U+524D]" in heat and "v2 ✓ [U+540D]" in heat


# -- Markdown, LaTeX, HTML, CSV ------------------------------------------------------------------

HOSTILE = [
    "[results](javascript:alert(document.cookie))",
    "see `code` here",
    "![img](http://x/y.png)",
    "**bold** _it_ ~~gone~~",
    "<script>alert(1)</script>",
    "a|b",
    "back\\slash",
    "&amp; &lt;",
]


def _markdown_html(md: str) -> str:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table").enable("strikethrough").render(md)


@pytest.mark.parametrize("name", HOSTILE)
def test_summary_md_renders_every_name_as_its_text(name):
    import html

    cell = f"| 1 | {md_escape(name)} | 0.5 |"
    rendered = _markdown_html(f"| Rank | Run | v |\n|---:|---|---:|\n{cell}\n")
    for tag in ("<a", "<img", "<code", "<em", "<strong", "<s>", "<script", "<del"):
        assert tag not in rendered, rendered
    cells = re.findall(r"<td[^>]*>(.*?)</td>", rendered)
    assert html.unescape(cells[1]) == name


def test_report_files_escape_hostile_run_and_class_names(tmp_path):
    tag = "[results](javascript:alert(document.cookie))"
    (tmp_path / "a.cla").write_bytes(cla({b"<b>x</b>": [b"0", b"1"], b"=1+1": [b"2", b"3"]}))
    (tmp_path / "run.trec").write_text("".join(f"{q} Q0 {q ^ 1} 1 4 {tag}\n" for q in range(4)))
    code, _, err = cli(
        ["evaluate", tmp_path / "a.cla", tmp_path / "run.trec", "--report", tmp_path / "rep"]
    )
    assert code == 0, err
    rep = tmp_path / "rep"
    md = (rep / "summary.md").read_text()
    assert "\\[results\\]\\(javascript:alert\\(document.cookie\\)\\)" in md
    assert "&lt;b&gt;x&lt;/b&gt;" in md and "<b>" not in md
    assert "<a " not in _markdown_html(md)
    page = (rep / "index.html").read_text()
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page
    rows = list(csv.reader(io.StringIO((rep / "per_class.csv").read_text())))
    assert ["'=1+1"] == [r[1] for r in rows[1:] if "1+1" in r[1]]  # no formula
    tex = (rep / "summary.tex").read_text().replace(r"\allowbreak{}", "")
    assert tex_escape(tag) in tex  # a long name may break after its dots


def _compile(folder: Path, tex: str) -> subprocess.CompletedProcess:
    if shutil.which("pdflatex") is None:
        pytest.fail("pdflatex is missing (.ci/run installs texlive-latex-recommended)")
    (folder / "doc.tex").write_text(
        "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n"
        f"\\begin{{document}}\n{tex}\n\\end{{document}}\n"
    )
    return subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "doc.tex"],
        cwd=folder,
        capture_output=True,
        text=True,
        errors="replace",
    )


@pytest.mark.parametrize(
    "name", ["Ω-Net αβγ", "名前", "v2 ✓", "b_%&#$ {}\\~^", "café a→b", "naïve–ążź", "x\udce9y"]
)
def test_latex_tables_compile_with_any_name(tmp_path, name):
    token = os.fsencode(name).replace(b" ", b"_")  # a class name is one token
    (tmp_path / "a.cla").write_bytes(cla({token: [b"0", b"1"], b"b": [b"2", b"3"]}))
    (tmp_path / "m.txt").write_text(matrix(2, 2))
    code, _, err = cli(
        ["evaluate", tmp_path / "a.cla", tmp_path / "m.txt", "--names", name.replace(",", ";")]
        + ["--report", tmp_path / "rep"]
    )
    assert code == 0, err
    p = _compile(tmp_path, "\\input{rep/summary.tex}\n\\input{rep/per_class.tex}")
    assert p.returncode == 0, [ln for ln in p.stdout.splitlines() if ln.startswith("!")]
    tex = (tmp_path / "rep" / "summary.tex").read_text()
    if name == "x\udce9y":
        assert "x[U+FFFD]y" in tex  # as the other tables show it: U+FFFD
    if name == "Ω-Net αβγ":
        assert r"\ensuremath{\Omega}-Net" in tex


def test_every_character_kept_in_latex_compiles(tmp_path):
    from shrec_eval.outputs.tex_layout import _GREEK, _TEX_CHARS

    text = "".join(sorted(_TEX_CHARS)) + "".join(_GREEK) + "".join(map(chr, range(32, 127)))
    p = _compile(tmp_path, tex_escape(text))
    assert p.returncode == 0, [ln for ln in p.stdout.splitlines() if ln.startswith("!")]


# -- the property: every output of a report, generated names -------------------------------------

#: bytes a token (an id, a class name, a run tag) may hold: no whitespace,
#: no control byte (readers refuse those), bytes that are not UTF-8 included
TOKEN_BYTES = st.sampled_from(
    [b"$", b"\\", b"[", b"]", b"(", b")", b"`", b"*", b"_", b"|", b"<", b">", b"&", b"%", b"#"]
    + [b"{", b"}", b"~", b"^", b"!", b"=", b"+", b"-", b'"', b"'", b"a", b"Z", b"0", b"."]
    + [b"\xe9", b"\xff", "名".encode(), "✓".encode(), "Ω".encode(), b"\xc3\xa9"]
)
tokens = st.lists(TOKEN_BYTES, min_size=1, max_size=12).map(b"".join)
#: a file name: anything but "/" and NUL, control characters too
file_names = st.lists(
    st.one_of(TOKEN_BYTES, st.sampled_from([b"\x01", b"\t", b"\n", b" ", b"\x7f"])),
    min_size=1,
    max_size=20,
).map(lambda parts: b"".join(parts).replace(b".", b"_"))


def _utf8(data: bytes) -> bool:
    try:
        data.decode("utf-8")
        return True
    except UnicodeDecodeError:
        return False


def _state(paths) -> list:
    out = []
    for p in paths:
        with open(p, "rb") as fh:
            out.append((p, os.stat(p).st_ino, fh.read()))
    return out


@pytest.mark.slow
@settings(
    max_examples=examples(8),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    classes=st.lists(tokens, min_size=2, max_size=2, unique=True),
    ids=st.lists(tokens, min_size=4, max_size=4, unique_by=lambda b: b.lower()),
    tag=st.one_of(tokens, st.just(b"x" * 150 + "名".encode() * 150)),
    file_name=file_names,
    long=st.booleans(),
)
def test_hostile_names_through_every_output_of_a_report(classes, ids, tag, file_name, long):
    if long:
        tag = (tag * 300)[:300]
    with tempfile.TemporaryDirectory() as tmp:
        root = os.fsencode(tmp)
        inputs = [root + b"/a.cla", root + b"/" + file_name + b".txt", root + b"/r.trec"]
        with open(inputs[0], "wb") as f:
            f.write(cla({classes[0]: ids[:2], classes[1]: ids[2:]}))
        with open(inputs[1], "w") as f:
            f.write(matrix(2, 2))
        with open(inputs[2], "wb") as f:
            f.writelines(b"%s Q0 %s 1 4 %s\n" % (ids[q], ids[q ^ 1], tag) for q in range(4))
        os.mkdir(root + b"/shapes")
        for i in ids[:3]:  # one id without a shape: a placeholder and a note
            with open(root + b"/shapes/" + i.replace(b"/", b"_") + b".off", "wb") as f:
                f.write(OFF)
        before = _state(inputs + [root + b"/shapes/" + i + b".off" for i in ids[:3]])
        rep, js, cs = root + b"/rep", root + b"/out.json", root + b"/csv"
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            code, out, err = cli(
                ["evaluate", *inputs[:1], *inputs[1:], "--no-normalize-ids"]
                + ["--shapes", root + b"/shapes", "--report", rep, "--json", js, "--csv", cs]
            )
        assert code == 0 and "unexpected" not in err, err
        assert [ln for ln in err.splitlines() if not ln.startswith("note:")] == [], err
        assert _state(inputs + [root + b"/shapes/" + i + b".off" for i in ids[:3]]) == before
        written = {os.fsdecode(os.path.relpath(os.path.join(d, f), rep))
                   for d, _, fs in os.walk(rep) for f in fs}  # fmt: skip
        expected = {f for f in REPORT_FILES if "/" in f or "." in f} - {"thumbs"}
        assert expected <= written | {"thumbs"}, expected - written
        assert sum(1 for f in written if f.startswith("thumbs/")) == 8
        assert os.path.getsize(js) > 0 and os.path.isfile(cs + b"/summary.csv")
        texts = {}
        for name in ("summary.md", "index.html", "gallery.html", "summary.tex", "summary.csv"):
            with open(rep + b"/" + name.encode(), "rb") as fh:
                texts[name] = fh.read().decode("utf-8")  # UTF-8 whatever the names' bytes
        if any(not _utf8(i) for i in ids):  # the gallery names every query: U+FFFD shown
            assert "\ufffd" in texts["gallery.html"]
        md = _markdown_html(open(rep + b"/summary.md", encoding="utf-8").read())
        assert "<a " not in md and "<img" not in md and "<code" not in md
        with open(js, encoding="utf-8") as fh:
            names = [r["name"] for r in json.load(fh)["runs"]]
        # the run tag, as the table shows it (the file's name added when names clash)
        assert names[1] in (shown(os.fsdecode(tag)), shown(os.fsdecode(tag)) + " (r.trec)")
