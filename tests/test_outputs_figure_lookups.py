"""The font lookups kept while a figure is drawn or saved
(shrec_eval.outputs.figure_lookups): the same figures byte for byte,
each question answered once, matplotlib's own functions put back."""

from __future__ import annotations

import matplotlib
import pytest
from hostile import six_contest_results
from matplotlib import ft2font
from matplotlib.font_manager import FontProperties, fontManager, get_font
from shrec_eval.outputs import figure_lookups, figure_style
from shrec_eval.outputs import figures as F


def _figures(results) -> list[dict[str, bytes]]:
    p = F.PRESETS["column"]
    made = [
        F.heatmap_figure(results, "nn", p, cell_text=True),
        F.bars_figure(results, p),
        F.curve_figure(results, "pr", p, title="Precision–recall, two lines\nof a title"),
    ]
    return [{f: F.figure_bytes(fig, f) for f in F.FORMATS} for fig in made]


def test_the_figures_are_the_same_bytes_with_and_without_the_lookups_kept(tmp_path):
    """Every kind of figure (the heatmap's repeated cell texts, turned
    names, a title of two lines), laid out and saved in its three formats
    with the lookups kept and with matplotlib's own: the same bytes."""
    results = six_contest_results(tmp_path, ("fine-grained run", "Ødegaard–Müller", "Ω-net", "b"))
    kept = _figures(results)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(figure_style, "settings_kept", matplotlib.rc_context)
        own = _figures(results)
    assert kept == own


def test_each_question_is_answered_once_and_matplotlib_is_put_back(monkeypatch):
    """Within the block a table is read and a font found once per question,
    each caller given its own copy; after it, nested or not, matplotlib's own
    functions are in place again."""
    reads, finds = [], []
    read_table, find = ft2font.FT2Font.get_sfnt_table, fontManager._find_fonts_by_props

    def counted_read(font, name):
        reads.append(name)
        return read_table(font, name)

    def counted_find(prop, *args, **kwargs):
        finds.append(prop.get_size())
        return find(prop, *args, **kwargs)

    monkeypatch.setattr(ft2font.FT2Font, "get_sfnt_table", counted_read)
    monkeypatch.setattr(fontManager, "_find_fonts_by_props", counted_find)
    prop = FontProperties(family="DejaVu Sans", size=8)
    with figure_lookups.lookups_kept():
        for _ in range(3):
            files = fontManager._find_fonts_by_props(prop)
            font = get_font(files)
            table = font.get_sfnt_table("head")
            table["unitsPerEm"] = 0  # a caller's change stays its own
        assert font.get_sfnt_table("head")["unitsPerEm"] == read_table(font, "head")["unitsPerEm"]
        fontManager._find_fonts_by_props(FontProperties(family="DejaVu Sans", size=9))
        with figure_lookups.lookups_kept():  # nested: the outer's answers kept after
            font.get_sfnt_table("OS/2")
        font.get_sfnt_table("OS/2")
    assert reads == ["head", "OS/2"] and finds == [8, 9]
    assert ft2font.FT2Font.get_sfnt_table is counted_read
    assert fontManager._find_fonts_by_props == counted_find


def test_without_the_names_nothing_is_changed(monkeypatch):
    """Another matplotlib, without one of the two functions: the block
    changes nothing."""
    monkeypatch.delattr(ft2font.FT2Font, "get_sfnt_table")
    before = fontManager.__dict__.get("_find_fonts_by_props")
    with figure_lookups.lookups_kept():
        assert fontManager.__dict__.get("_find_fonts_by_props") is before
        assert not hasattr(ft2font.FT2Font, "get_sfnt_table")
    assert not hasattr(ft2font.FT2Font, "get_sfnt_table")


def test_the_generic_families_settings_and_other_threads_get_matplotlibs_own_answers():
    """A font found again when the settings it is found by change within the
    block (matplotlib's own cache keys by them too); another thread's lookups,
    its figures drawn meanwhile under settings of their own, and a pattern
    given as text, answered by matplotlib as without the block (a review found
    a serif text of another thread drawn in the sans-serif font, and a pattern
    refused with a TypeError)."""
    import threading

    def found(family="sans-serif"):
        return fontManager._find_fonts_by_props(FontProperties(family=[family]))

    with matplotlib.rc_context({"font.sans-serif": ["DejaVu Sans"]}):
        sans = found()
    with matplotlib.rc_context({"font.sans-serif": ["DejaVu Serif"]}):
        serif = found()
    assert sans != serif
    pattern = fontManager._find_fonts_by_props("DejaVu Sans:bold")
    with figure_lookups.lookups_kept():
        with matplotlib.rc_context({"font.sans-serif": ["DejaVu Sans"]}):
            assert found() == sans
        with matplotlib.rc_context({"font.sans-serif": ["DejaVu Serif"]}):
            assert found() == serif
        assert fontManager._find_fonts_by_props("DejaVu Sans:bold") == pattern
        seen = []
        # the drawing thread's answer kept for the sans-serif settings ...
        with matplotlib.rc_context({"font.sans-serif": ["DejaVu Sans"]}):
            found()
        # ... and another thread asking under the serif settings meanwhile
        settings = {"font.sans-serif": ["DejaVu Serif"]}

        def other():
            with matplotlib.rc_context(settings):
                seen.append(found())

        t = threading.Thread(target=other)
        t.start()
        t.join()
        assert seen == [serif]
