"""The runs' looks (M4 of review day, round 3): colour x marker x line style,
one per run by its place in the contest, told apart up to 40 runs, in the
report's figures whatever their ranking, and a contest file's own colours.

Before, the report coloured a run by its place in the contest but gave it
the marker of its place in the ranking, and the palette's 18 colours came
round again: with 26 runs 8 pairs of runs had the same colour and marker."""

from __future__ import annotations

import json

import pytest
from contest_files import write_many_runs
from matplotlib.colors import to_hex
from shrec_eval.contest import Contest
from shrec_eval.errors import FormatError
from shrec_eval.outputs.figures import PRESETS, curve_figure
from shrec_eval.outputs.palette import (
    DASHES,
    MARKERS,
    PALETTE,
    RunLook,
    result_looks,
    run_look,
    run_looks,
)
from shrec_eval.outputs.summary import Summary
from shrec_eval.service import score_contest


def _triple(look: RunLook) -> tuple:
    return look.colour, look.marker, look.dash


@pytest.mark.parametrize("n", [1, 18, 26, 28, 40])
def test_every_run_of_forty_has_a_look_of_its_own(n):
    looks = run_looks([None] * n)
    assert len({_triple(look) for look in looks}) == n
    # the first 18 as before: the palette's colours, solid lines
    assert [(lk.colour, lk.dash) for lk in looks[:18]] == [(c, "solid") for c in PALETTE][:n]
    assert [lk.marker for lk in looks] == [MARKERS[i % len(MARKERS)] for i in range(n)]


def test_runs_sharing_a_colour_differ_in_line_style_and_marker():
    looks = run_looks([None] * 72)
    assert len({(lk.colour, lk.dash) for lk in looks}) == 72
    assert len({(lk.colour, lk.marker) for lk in run_looks([None] * 90)}) == 90
    for i, lk in enumerate(looks):
        for j in range(i + 1, len(looks)):
            if looks[j].colour == lk.colour:
                assert looks[j].dash != lk.dash and looks[j].marker != lk.marker, (i, j)
    assert {lk.dash for lk in looks} == set(DASHES[:4])


def test_a_runs_own_colour_keeps_its_marker_and_line_style():
    looks = run_looks([None, "#123456", None])
    assert _triple(looks[1]) == ("#123456", MARKERS[1], "solid")
    assert looks[0] == run_look(0) and looks[2] == run_look(2)


def test_markers_sit_on_about_ten_points_shifted_by_the_runs_place():
    assert run_look(3).marks(100) == (3, 10)
    assert run_look(13).marks(100) == (3, 10)
    assert run_look(3).marks(21) == (1, 2)  # precision-recall at 21 levels
    assert run_look(3).marks(11) == (0, 1)  # every point


@pytest.fixture(scope="module")
def many(tmp_path_factory):
    """28 runs in a contest file, the 20th with its own colour, scored."""
    path = write_many_runs(tmp_path_factory.mktemp("many"), 28, colours={20: "#123456"})
    contest = Contest.read(path)
    _, results = score_contest(contest)
    return contest, results


def test_report_figures_draw_each_run_in_the_look_of_its_place(many):
    """In the report's curves (runs in the ranking's order, not the
    contest's), each run's line has the colour, marker and line style of its
    place in the contest: 28 distinct looks."""
    contest, results = many
    looks = result_looks(results, [r.colour for r in contest.runs])
    ranked = Summary.build(results, None, "ap_trec_r").results
    assert [r.run_name for r in ranked] != [r.run_name for r in results]  # a real reordering
    fig = curve_figure(ranked, "pr", PRESETS["column"], looks=[looks[r.run_name] for r in ranked])
    lines = fig.axes[0].get_lines()
    assert len(lines) == 28
    drawn = {}
    for r, line in zip(ranked, lines):
        drawn[r.run_name] = (
            to_hex(line.get_color()).upper(),
            line.get_marker(),
            line.get_linestyle(),
        )
    mpl_dash = {"solid": "-", "dashed": "--", "dotted": ":", "dashdot": "-."}
    for i, r in enumerate(results):
        want = run_look(i, "#123456" if i == 20 else None)
        assert drawn[r.run_name] == (want.colour.upper(), want.marker, mpl_dash[want.dash])
    assert len(set(drawn.values())) == 28


def test_the_report_takes_the_contests_looks(many, monkeypatch):
    """report_figure_files by default: the look of each run's place among
    the results; with the contest's looks (what ``evaluate --report`` and the
    app's Export report pass), a run's own colour too."""
    from shrec_eval.outputs import figures
    from shrec_eval.outputs.report import report_figure_files

    contest, results = many
    # SVG only: the looks are the question here, not the formats
    real = figures.report_figure_jobs
    monkeypatch.setattr(
        figures, "report_figure_jobs", lambda *a, **k: real(*a, **{**k, "formats": ("svg",)})
    )
    some = results[18:22]
    looks = result_looks(results, [r.colour for r in contest.runs])
    own = report_figure_files(
        some, rank_key="ap_trec_r", looks={r.run_name: looks[r.run_name] for r in some}
    )
    plain = report_figure_files(some, rank_key="ap_trec_r")
    svg, plain_svg = (
        own["figures/precision_recall.svg"].decode(),
        plain["figures/precision_recall.svg"].decode(),
    )
    assert "#123456" in svg and "#123456" not in plain_svg
    # their places in the contest, 18 to 21: dashed lines; among these four, 0 to 3: solid
    assert "stroke-dasharray" in svg and "stroke-dasharray" not in plain_svg
    assert plain["figures/measure_bars.svg"] == own["figures/measure_bars.svg"]


def test_a_colour_that_is_not_rrggbb_is_refused_naming_the_file(tmp_path):
    path = write_many_runs(tmp_path, 2)
    doc = json.loads(path.read_text())
    for bad in ("blurple", "#12345", "#1234567", "rgb(1,2,3)", 7):
        doc["runs"][1]["colour"] = bad
        path.write_text(json.dumps(doc))
        with pytest.raises(FormatError) as e:
            Contest.read(path)
        text = str(e.value)
        assert str(path) in text and '"#rrggbb"' in text and json.dumps(bad) in text, text
    doc["runs"][1]["colour"] = "#a1B2c3"
    path.write_text(json.dumps(doc))
    assert Contest.read(path).runs[1].colour == "#a1B2c3"


def test_result_looks_take_the_runs_colours_one_per_result(many):
    contest, results = many
    colours = [r.colour for r in contest.runs]
    looks = result_looks(results, colours)
    assert [looks[r.run_name] for r in results] == run_looks(colours)
    # not one colour per result (shapenet17: a result per dataset): by places only
    assert result_looks(results[:3], colours) == result_looks(results[:3])
