"""Two font lookups that matplotlib makes again for every text it lays out
or draws, kept while one figure is drawn or saved: the same numbers, the
same bytes.

matplotlib finds the font file of a text's properties (the font manager's
``_find_fonts_by_props``: its families looked up one by one, about 15
microseconds) and, in each text's layout, reads the font's ``OS/2`` and
``head`` tables into new dictionaries (``FT2Font.get_sfnt_table``, about 25
microseconds each) to learn its ascent, descent and line gap.  It does so
for every text of a figure, in its layout and again in each format: the
per-class heatmap's 300 cell texts made about 2,600 lookups and 3,600 table
reads, a tenth of its drawing (0.1 s of 1.0 s of processor time).  Both
give the same answer for the same question while a figure is drawn (a
font file's tables do not change, nor the settings a font is found by, which
:class:`.figure_style.rc_context` holds), so :func:`lookups_kept` answers
each question once and then from memory, and puts matplotlib's own
functions back when it ends.  A table is handed out as a copy (matplotlib
reads them only; a caller that changed one would change no other's).
Written here rather than asked of matplotlib because matplotlib offers no
such cache: its own text-metrics cache (``_get_text_metrics_with_cache``)
sits after these lookups.

Only the thread that drew the figure is answered from memory (another
thread's figures, drawn meanwhile under settings of their own, get
matplotlib's own answers), and a font is found again where the settings
matplotlib finds it by (the generic families' lists) or its list of fonts
changed."""

from __future__ import annotations

import contextlib
import threading
from typing import Any

#: the settings of the generic families, which matplotlib's own lookup cache
#: keys by too (``font_manager.FontManager.findfont``)
_GENERIC = ("font.serif", "font.sans-serif", "font.cursive", "font.fantasy", "font.monospace")


def _props_key(prop) -> tuple | None:
    """Every setting of a ``FontProperties`` (the family as a tuple), or None
    when one cannot be a key (then it is looked up as before)."""
    key = tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in vars(prop).items())
    try:
        hash(key)
    except TypeError:
        return None
    return key


@contextlib.contextmanager
def lookups_kept():
    """While this lasts, the font manager's ``_find_fonts_by_props`` and
    ``FT2Font.get_sfnt_table`` answer each question asked before from memory
    (see the module).  Held with the figures' drawing lock; without these
    names (another matplotlib) nothing is changed."""
    import matplotlib
    from matplotlib import font_manager, ft2font

    fonts: Any = font_manager.fontManager  # its method replaced on the instance
    font_class: Any = ft2font.FT2Font
    read_table = getattr(font_class, "get_sfnt_table", None)
    find = getattr(fonts, "_find_fonts_by_props", None)
    if read_table is None or find is None:
        yield
        return
    tables: dict = {}
    found: dict = {}
    drawer = threading.get_ident()
    rc: Any = matplotlib.rcParams
    properties = font_manager.FontProperties

    def get_sfnt_table(font, name):
        if threading.get_ident() != drawer:
            return read_table(font, name)
        key = (font, name)
        table = tables[key] if key in tables else tables.setdefault(key, read_table(font, name))
        return None if table is None else dict(table)

    def find_fonts(prop, *args, **kwargs):
        if threading.get_ident() != drawer or not isinstance(prop, properties):
            return find(prop, *args, **kwargs)  # another thread's, or a pattern or None
        key = _props_key(prop)
        if key is None:
            return find(prop, *args, **kwargs)
        generic = tuple(tuple(rc[name]) for name in _GENERIC)
        key = (key, generic, len(fonts.ttflist), args, tuple(sorted(kwargs.items())))
        if key not in found:
            found[key] = find(prop, *args, **kwargs)
        return list(found[key])

    own = vars(fonts).get("_find_fonts_by_props")  # the instance's own (a patch), or None
    font_class.get_sfnt_table = get_sfnt_table
    fonts._find_fonts_by_props = find_fonts
    try:
        yield
    finally:
        font_class.get_sfnt_table = read_table
        if own is None:
            del fonts._find_fonts_by_props
        else:
            fonts._find_fonts_by_props = own


@contextlib.contextmanager
def settings_kept(rc: dict):
    """matplotlib's ``rc_context(rc)`` with the font lookups kept
    (:func:`lookups_kept`) while it lasts."""
    import matplotlib

    with matplotlib.rc_context(rc), lookups_kept():
        yield
