"""Print figures of the Qt-free core (shrec_eval.outputs.figures): the PDF's page is
the preset's size, every text run at the preset's size (>= 7 pt) read from
the PDF's own text operators and from pdftotext, fonts embedded, SVG text
as text, PNG at 300 dpi; SVG and PDF rendered back look like the PNG; the
heatmap's colour bar, labels and cell contrast; the report's figures/."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import zlib

import numpy as np
import pytest
from matplotlib.text import Text
from print_contest import classes55, demo_scored
from shrec_eval.cli.parser import main
from shrec_eval.outputs import figure_style
from shrec_eval.outputs import figures as F
from shrec_eval.outputs.figures import PRESETS, figure_bytes, report_figures
from shrec_eval.outputs.report import write_report


def pdf_streams(pdf: bytes) -> list[bytes]:
    out = []
    for m in re.finditer(rb"stream\r?\n(.*?)\r?\nendstream", pdf, re.S):
        try:
            out.append(zlib.decompress(m[1]))
        except zlib.error:
            out.append(m[1])
    return out


def pdf_font_sizes(pdf: bytes) -> list[float]:
    """The size of every ``Tf`` text operator of the page (matplotlib draws
    in points: a Tf size is the printed size)."""
    sizes = []
    for s in pdf_streams(pdf):
        sizes += [float(x) for x in re.findall(rb"/F\d+ ([\d.]+) Tf", s)]
    return sizes


def media_box(pdf: bytes) -> tuple[float, float]:
    m = re.search(rb"/MediaBox \[\s*0 0 ([\d.]+) ([\d.]+)\s*\]", pdf)
    return float(m[1]), float(m[2])


def need(tool: str) -> None:
    if shutil.which(tool) is None:
        pytest.fail(f"{tool} is missing (.ci/run installs poppler-utils)")


def png_array(data: bytes) -> np.ndarray:
    from matplotlib.image import imread

    a = imread(io.BytesIO(data), format="png")
    return (a[..., :3].mean(axis=2) * 255) if a.ndim == 3 else a * 255


def ink_box(a: np.ndarray, level: float = 200) -> np.ndarray:
    rows = np.flatnonzero((a < level).any(axis=1))
    cols = np.flatnonzero((a < level).any(axis=0))
    return np.array([rows[0], cols[0], rows[-1], cols[-1]])


def texts(fig) -> list[Text]:
    return [t for t in fig.findobj(Text) if t.get_visible() and t.get_text().strip()]


@pytest.fixture(scope="module")
def demo():
    return demo_scored()


@pytest.mark.parametrize("name", ["column", "two-columns", "slide"])
def test_pdf_page_is_the_preset_and_every_text_at_its_size(demo, name, tmp_path):
    _, results, _, rank_key = demo
    p = PRESETS[name]
    fig = F.curve_figure(results, "pr", p)
    pdf = figure_bytes(fig, "pdf")
    assert media_box(pdf) == pytest.approx(p.size_pt, abs=0.01)
    assert p.size_pt[0] == pytest.approx(
        {"column": 8.5, "two-columns": 17.5}.get(name, 33.867) / 2.54 * 72
    )
    sizes = pdf_font_sizes(pdf)
    assert len(sizes) >= 10 and set(sizes) == {p.font_pt}  # ticks, labels, legend alike
    for t in texts(fig):
        assert t.get_fontsize() == p.font_pt, t.get_text()
    # pdftotext: every word's box is as tall as text of the preset's size
    need("pdftotext")
    path = tmp_path / "pr.pdf"
    path.write_bytes(pdf)
    html = subprocess.run(
        ["pdftotext", "-bbox", str(path), "-"], capture_output=True, text=True, check=True
    ).stdout
    words = re.findall(
        r'<word xMin="([\d.]+)" yMin="([\d.]+)" xMax="([\d.]+)" yMax="([\d.]+)">([^<]*)</word>',
        html,
    )
    assert {w[4] for w in words} >= {"Recall", "Precision", results[0].run_name, "0.0", "1.0"}
    for x0, y0, x1, y1, word in words:
        extent = min(float(x1) - float(x0), float(y1) - float(y0))  # turned words too
        if len(word) > 1:
            assert extent >= 7.0, word
    # fonts embedded
    need("pdffonts")
    fonts = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, check=True)
    rows = fonts.stdout.splitlines()[2:]
    assert rows and all(" yes " in r and "TrueType" in r for r in rows), fonts.stdout


def test_every_figure_text_at_least_7_pt_and_lines_in_points(demo):
    _, results, _, rank_key = demo
    p = PRESETS["column"]
    for fig in (
        F.curve_figure(results, "ndcg", p),
        F.bars_figure(results, p),
        F.heatmap_figure(results, rank_key, p),
    ):
        sizes = {t.get_fontsize() for t in texts(fig)}
        assert sizes == {8.0}, sizes
        sizes = set(pdf_font_sizes(figure_bytes(fig, "pdf")))
        assert sizes == {8.0}
    fig = F.curve_figure(results, "pr", p)
    assert {line.get_linewidth() for line in fig.axes[0].get_lines()} == {p.line_pt}
    with pytest.raises(Exception, match="preset"):
        F.preset_by_name("poster")
    small = F.FigurePreset("custom", 8, 6, 5).checked()
    assert small.font_pt == 7.0  # never under 7 pt


def test_svg_text_is_text_and_renders_like_the_png(demo, tmp_path):
    cairosvg = pytest.importorskip("cairosvg")
    _, results, _, _ = demo
    p = PRESETS["column"]
    fig = F.curve_figure(results, "pr", p)
    svg = figure_bytes(fig, "svg")
    assert b"<text" in svg and b"Recall" in svg  # text, not glyph outlines
    sizes = {float(x) for x in re.findall(rb"font-size: ([\d.]+)px", svg)} | {
        float(x) for x in re.findall(rb"font: ([\d.]+)px", svg)
    }
    assert sizes == {8.0}  # user units of the SVG are points (width="...pt")
    png = png_array(figure_bytes(fig, "png"))
    w, h = p.size_in
    assert np.abs(np.array(png.shape) - (h * 300, w * 300)).max() < 1  # 300 dpi
    back = png_array(cairosvg.svg2png(bytestring=svg, output_width=png.shape[1]))
    assert back.shape == png.shape
    assert np.abs(ink_box(back) - ink_box(png)).max() <= 6
    assert abs((back > 240).mean() - (png > 240).mean()) < 0.03
    need("pdftoppm")
    path = tmp_path / "pr.pdf"
    path.write_bytes(figure_bytes(fig, "pdf"))
    out = subprocess.run(
        ["pdftoppm", "-png", "-r", "300", "-singlefile", str(path)],
        capture_output=True,
        check=True,
    ).stdout
    page = png_array(out)
    assert abs(page.shape[0] - png.shape[0]) <= 1 and abs(page.shape[1] - png.shape[1]) <= 1
    assert np.abs(ink_box(page) - ink_box(png)).max() <= 6


def test_legend_never_covers_data(demo):
    _, results, _, _ = demo
    for preset in ("column", "two-columns", "slide"):
        for key in ("pr", "ndcg", "dcg"):
            fig = F.curve_figure(results, key, PRESETS[preset])
            ax = fig.axes[0]
            if ax.get_legend() is not None:
                assert figure_style._covered(ax, ax.get_legend()) == 0
            else:
                assert len(fig.legends) == 1
                box = fig.legends[0].get_window_extent(fig.canvas.get_renderer())
                assert box.y1 <= ax.get_window_extent(fig.canvas.get_renderer()).y0
    fig = F.bars_figure(results, PRESETS["column"])
    labels = fig.axes[0].get_xticklabels()
    assert not figure_style._overlapping(fig, labels)
    assert [t.get_text() for t in labels] == [r.run_name for r in results]


def test_heatmap_55_classes_labels_colour_bar_and_contrast():
    _, results, _, rank_key = classes55()
    p = PRESETS["column"]
    fig = F.heatmap_figure(results, rank_key, p)
    # where its texts are once drawn, as in the files (the figure comes laid
    # out, not drawn: an axis label is placed when its axis is drawn)
    fig.draw_without_rendering()
    ax = fig.axes[0]
    r = fig.canvas.get_renderer()
    labels = [t for t in ax.get_yticklabels() if t.get_text()]
    assert len(labels) == 55
    boxes = sorted((t.get_window_extent(r) for t in labels), key=lambda b: b.y0)
    assert all(a.y1 <= b.y0 + 0.01 for a, b in zip(boxes, boxes[1:]))  # never overlapping
    assert not figure_style._overlapping(fig, ax.get_xticklabels())
    # every label inside the page
    page = fig.bbox
    for t in texts(fig):
        b = t.get_window_extent(r)
        assert b.x0 >= -0.5 and b.x1 <= page.x1 + 0.5 and b.y0 >= -0.5 and b.y1 <= page.y1 + 0.5
    # the colour bar names the measure and its range
    bar = fig.axes[1]
    label = bar.get_xlabel() or bar.get_ylabel()
    classes, mat = F.class_matrix(results, rank_key)
    assert "mAP" in label and f"{np.nanmin(mat):.3f}" in label and f"{np.nanmax(mat):.3f}" in label
    # a column's cells are too narrow for "0.00" next to the long class names: no cell
    # text; at the page width they hold it
    assert not ax.texts
    assert_cell_text_contrast(F.heatmap_figure(results, rank_key, PRESETS["two-columns"]))
    pdf = figure_bytes(fig, "pdf")
    w, h = media_box(pdf)
    assert w == pytest.approx(p.size_pt[0], abs=0.01) and h > p.size_pt[1]  # grows with classes
    assert set(pdf_font_sizes(pdf)) == {8.0}


def assert_cell_text_contrast(fig) -> None:
    """Every cell shows its value in black or white, at least 4.5:1 against it."""
    from matplotlib.colors import to_rgb

    ax = fig.axes[0]
    image = ax.get_images()[0].get_array()
    mat = fig._shrec_matrix
    assert len(ax.texts) == np.isfinite(mat).sum() > 0
    colours = set()
    for t in ax.texts:
        j, i = (round(v) for v in t.get_position())
        assert t.get_text() == f"{mat[i, j]:.2f}"
        c = to_rgb(t.get_color())
        colours.add(c)
        assert F.contrast_ratio(c, image[i, j][:3]) >= 4.5
        assert t.get_fontsize() >= 7
    assert colours == {(0.0, 0.0, 0.0), (1.0, 1.0, 1.0)}


def test_demo_heatmap_cells_show_values_in_contrast(demo):
    _, results, _, rank_key = demo
    assert_cell_text_contrast(F.heatmap_figure(results, rank_key, PRESETS["column"]))


def test_text_colour_is_the_better_of_black_and_white():
    from matplotlib import colormaps

    for v in np.linspace(0, 1, 101):
        bg = colormaps["viridis"](v)[:3]
        assert F.contrast_ratio(F.text_colour(bg), bg) >= 4.5
    assert F.contrast_ratio((1, 1, 1), (0, 0, 0)) == pytest.approx(21.0)
    assert F.text_colour((1.0, 1.0, 0.0)) == (0.0, 0.0, 0.0)  # black on yellow


def test_report_writes_every_figure_in_three_formats(demo, tmp_path):
    a, results, keys, rank_key = demo
    write_report(tmp_path / "rep", a, results, keys=keys, rank_key=rank_key, figure_preset="slide")
    got = sorted(p.name for p in (tmp_path / "rep" / "figures").iterdir())
    assert got == sorted(
        f"{n}.{f}"
        for n in ("precision_recall", "ndcg", "measure_bars", "class_heatmap")
        for f in ("pdf", "svg", "png")
    )
    pdf = (tmp_path / "rep" / "figures" / "precision_recall.pdf").read_bytes()
    assert media_box(pdf) == pytest.approx(PRESETS["slide"].size_pt, abs=0.01)
    # written again over itself (an earlier report is replaced), but a stray file refuses
    write_report(tmp_path / "rep", a, results, keys=keys, rank_key=rank_key, figures=False)
    assert not (tmp_path / "rep" / "figures").exists()
    write_report(tmp_path / "rep", a, results, keys=keys, rank_key=rank_key)
    (tmp_path / "rep" / "figures" / "mine.txt").write_text("keep me")
    with pytest.raises(Exception, match="mine.txt"):
        write_report(tmp_path / "rep", a, results, keys=keys, rank_key=rank_key)
    assert (tmp_path / "rep" / "figures" / "mine.txt").read_text() == "keep me"


def test_cli_figure_preset(tmp_path, capsys):
    out = tmp_path / "r"
    assert main(["demo", "--report", str(out), "--figure-preset", "two-columns"]) == 0
    pdf = (out / "figures" / "measure_bars.pdf").read_bytes()
    assert media_box(pdf) == pytest.approx(PRESETS["two-columns"].size_pt, abs=0.01)
    png = png_array((out / "figures" / "ndcg.png").read_bytes())
    assert abs(png.shape[1] - 17.5 / 2.54 * 300) < 1
    assert main(["demo", "--report", str(tmp_path / "x"), "--figure-preset", "poster"]) == 2
    assert "invalid choice: 'poster'" in capsys.readouterr().err
    assert not (tmp_path / "x").exists()


def test_report_leaves_out_curves_no_run_has(demo):
    from dataclasses import replace

    _, results, _, rank_key = demo
    bare = [replace(r, curves={k: c for k, c in r.curves.items() if k != "pr"}) for r in results]
    files = report_figures(bare[:3], PRESETS["column"], rank_key=rank_key, formats=("svg",))
    assert sorted(files) == [
        "figures/class_heatmap.svg",
        "figures/measure_bars.svg",
        "figures/ndcg.svg",
    ]


def test_the_command_line_offers_the_print_presets():
    """--figure-preset's choices (declared without numpy for a fast --help)
    are the presets of the figure code, but the app's custom size."""
    from shrec_eval.choices import FIGURE_PRESETS
    from shrec_eval.outputs.figures import PRESETS

    assert set(FIGURE_PRESETS) == set(PRESETS) - {"custom"}
