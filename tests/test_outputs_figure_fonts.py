"""The PDF figures' font subsets made from one base subset of the font
(shrec_eval.outputs.figure_fonts): the same bytes as matplotlib's subsets
of the whole font, glyph set by glyph set and figure by figure, the base
kept in matplotlib's cache folder and made again when its file is torn."""

from __future__ import annotations

import contextlib
import random

import matplotlib
import pytest
from hostile import six_contest_results
from matplotlib.backends import _backend_pdf_ps
from matplotlib.font_manager import FontPath, findfont, get_font
from shrec_eval.outputs import figure_fonts, figure_style
from shrec_eval.outputs import figures as F

FONT = findfont("DejaVu Sans")


@pytest.fixture(scope="module")
def kept(tmp_path_factory):
    """A cache folder of this module's holding the base of the figures' font."""
    folder = tmp_path_factory.mktemp("mpl-cache")
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(matplotlib, "get_cachedir", lambda: str(folder))
        mp.setattr(figure_fonts, "_BASES", {})
        figure_fonts.prepare(FONT)
    return folder


@pytest.fixture
def cache(kept, monkeypatch):
    """matplotlib's cache folder the module's, the base read from it again."""
    monkeypatch.setattr(matplotlib, "get_cachedir", lambda: str(kept))
    monkeypatch.setattr(figure_fonts, "_BASES", {})
    return kept


def _bytes(subset_cm) -> tuple[bytes, dict]:
    with subset_cm as s:
        return _backend_pdf_ps.font_as_file(s.font).getvalue(), dict(s.glyph_index_map)


def _glyphs(text: str) -> set[int]:
    font = get_font(FONT)
    return {font.get_char_index(ord(c)) for c in text}


def test_a_subset_of_the_base_is_the_subset_of_the_font_byte_for_byte(cache):
    """The font file embedded in a PDF and the glyph numbers in it, for the
    glyphs of the figures' texts, names with accents, the "fi" ligature
    alone (the subset matplotlib makes of glyphs of several characters),
    .notdef alone and random sets of the base's characters: the base's
    subset is matplotlib's subset of the whole font."""
    base = figure_fonts.prepare(FONT)
    assert base is not None
    path = FontPath(FONT, 0)
    sets = [
        _glyphs("-.012468BDFHLMNPRSVacdeghiklmnoprstwx Precision Recall"),
        _glyphs(" (),-.0123456789ABDFHLMNRSV_abcdefghijklmnoprstuvwxy"),
        _glyphs("Müller–Ødegaard ‘ß’ “…” −1 ½ ÿ"),
        {get_font(FONT).get_char_index(0xFB01)},  # fi
        {0},
    ]
    rng = random.Random(7)
    mapped = sorted(base.mapped)
    sets += [set(rng.sample(mapped, rng.randint(1, 120))) for _ in range(6)]
    made_here = 0
    real = _backend_pdf_ps.get_glyphs_subset
    for glyphs in sets:
        assert glyphs <= base.mapped
        with figure_fonts.subsets_from_base():
            ours = _bytes(_backend_pdf_ps.get_glyphs_subset(path, glyphs))
            made_here += _backend_pdf_ps.get_glyphs_subset is not real
        assert ours == _bytes(real(path, glyphs)), sorted(glyphs)
    assert made_here == len(sets)  # the base was used (matplotlib's hook is there)


def test_a_glyph_outside_the_base_is_subset_from_the_font(cache, monkeypatch):
    """A glyph the base does not hold (Greek) or holds with no character of
    its own: matplotlib's own subset of the whole font."""
    base = figure_fonts.prepare(FONT)
    assert base is not None
    calls = []
    real = _backend_pdf_ps.get_glyphs_subset

    def spy(fontfile, glyphs):
        calls.append(set(glyphs))
        return real(fontfile, glyphs)

    monkeypatch.setattr(_backend_pdf_ps, "get_glyphs_subset", spy)
    greek = _glyphs("ΩΔ abc")
    alternate = next(g for g in base.glyphs if g not in base.mapped)
    for glyphs in (greek, _glyphs("abc") | {alternate}):
        with figure_fonts.subsets_from_base():
            got = _bytes(_backend_pdf_ps.get_glyphs_subset(FontPath(FONT, 0), glyphs))
        assert calls[-1] == glyphs
        assert got == _bytes(real(FontPath(FONT, 0), glyphs))
    assert _backend_pdf_ps.get_glyphs_subset is spy  # put back


@pytest.mark.parametrize(
    "names",
    [("fine-grained run", "Ødegaard–Müller", "baseline"), ("Ω-net", "fi")],
    ids=["latin", "greek"],
)
def test_the_figures_are_the_same_bytes_with_and_without_the_base(cache, tmp_path, names):
    """Every figure of a report, the heatmap with its repeated cell texts
    among them, in its three formats: the same bytes whether its PDF's
    fonts are subset from the base or by matplotlib from the font (Greek
    names: from the font, and the same)."""
    results = six_contest_results(tmp_path, names)
    p = F.PRESETS["column"]
    figures = [F.heatmap_figure(results, "nn", p, cell_text=True)]
    if names[0] != "Ω-net":
        figures.append(F.bars_figure(results, p))
    used = []
    real = figure_fonts.glyphs_subset

    def counted(fontfile, glyphs):
        used.append(set(glyphs) <= figure_fonts.prepare(str(fontfile)).mapped)
        return real(fontfile, glyphs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(figure_fonts, "glyphs_subset", counted)
        mp.setattr(_backend_pdf_ps, "get_glyphs_subset", _backend_pdf_ps.get_glyphs_subset)
        based = [{f: F.figure_bytes(fig, f) for f in F.FORMATS} for fig in figures]
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(figure_style, "subsets_from_base", contextlib.nullcontext)
        own = [{f: F.figure_bytes(fig, f) for f in F.FORMATS} for fig in figures]
    assert based == own
    assert used and all(used) == (names[0] != "Ω-net")


def test_the_base_is_kept_and_made_again_when_its_file_is_torn(tmp_path, monkeypatch):
    """The base is kept in matplotlib's cache folder and read from it (not
    made again); a file torn or changed there is made again; a folder that
    cannot be written keeps it in the process."""
    cache = tmp_path / "mpl-cache"
    cache.mkdir()
    monkeypatch.setattr(matplotlib, "get_cachedir", lambda: str(cache))
    monkeypatch.setattr(figure_fonts, "_BASES", {})
    made = []
    real = figure_fonts._make_base
    monkeypatch.setattr(figure_fonts, "_make_base", lambda *a: made.append(a) or real(*a))
    first = figure_fonts.prepare(FONT)
    (kept,) = cache.glob("shrec-eval-font-base-*.bin")
    figure_fonts._BASES.clear()
    assert figure_fonts.prepare(FONT) == first and len(made) == 1
    blob = kept.read_bytes()
    for bad in (blob[: len(blob) // 2], blob[:-1] + bytes([blob[-1] ^ 1])):
        kept.write_bytes(bad)
        figure_fonts._BASES.clear()
        assert figure_fonts.prepare(FONT) == first
        assert kept.read_bytes() == blob  # made again, and kept again
    assert len(made) == 3
    # a cache folder that cannot be written (a file in its place): the base made here
    (tmp_path / "a file").write_text("")
    monkeypatch.setattr(matplotlib, "get_cachedir", lambda: str(tmp_path / "a file"))
    figure_fonts._BASES.clear()
    assert figure_fonts.prepare(FONT) == first and len(made) == 4
    assert (tmp_path / "a file").read_text() == ""


def test_a_link_pipe_or_device_at_the_bases_name_is_never_followed_read_or_written(
    tmp_path, monkeypatch, kept
):
    """The base's file is the tool's own: a symbolic link planted at its
    name (to a file, to nothing, to a device) is not written through, nor
    read; a pipe there is not waited on.  The base is then made in the
    process, the same, and whatever is at the name stays as it was."""
    import os

    (blob,) = kept.glob("shrec-eval-font-base-*.bin")
    name = blob.name
    monkeypatch.setattr(figure_fonts, "_BASES", {})
    first = figure_fonts.prepare(FONT)
    victim = tmp_path / "victim.txt"
    victim.write_text("mine\n")
    cases = {
        "link to a file": lambda p: p.symlink_to(victim),
        "link to nothing": lambda p: p.symlink_to(tmp_path / "nowhere"),
        "link to a device": lambda p: p.symlink_to("/dev/zero"),
        "link to the kept base": lambda p: p.symlink_to(blob),
        "pipe": lambda p: os.mkfifo(p),
    }
    for what, plant in cases.items():
        cache = tmp_path / what.replace(" ", "_")
        cache.mkdir()
        plant(cache / name)
        monkeypatch.setattr(matplotlib, "get_cachedir", lambda c=cache: str(c))
        figure_fonts._BASES.clear()
        assert figure_fonts.prepare(FONT) == first, what
        assert (cache / name).is_symlink() or what == "pipe", what
        assert sorted(p.name for p in cache.iterdir()) == [name], what  # nothing else left
    assert victim.read_text() == "mine\n"
    assert not (tmp_path / "nowhere").exists()
