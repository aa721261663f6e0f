"""The fonts embedded in the print figures' PDFs, subset from one base
subset of the font instead of the whole font each time: the same bytes.

matplotlib embeds each font of a PDF as the subset of the glyphs its text
uses, made by fontTools from the font file (DejaVu Sans: 6,000 glyphs
and their kerning and substitution tables, about 0.1 s of processor time
a subset, most of it reading those tables; five subsets a report).  Here
the font is subset once (:func:`prepare`: the glyphs of :data:`BASE_CHARS`
and every glyph fontTools adds to them, with every character of the font
that maps to one of them) and each figure's subset is made from that base
(a few hundredths of a second), where it holds every glyph asked for and
each of them is a character's: fontTools keeps the glyphs asked for, the
glyphs their substitutions reach and the characters mapped to them, in
the font's order, so that the subset of a subset holding all of these is
the subset of the font, byte for byte
(``tests/test_outputs_figure_fonts.py`` compares them, glyph set by glyph
set and figure by figure).  A subset the base does not hold (a glyph
outside it, a font other than the figures', or no character left mapped:
fontTools then keeps the character range of the font it was given) is
made by matplotlib from the font, as before.

:func:`subsets_from_base` puts this in matplotlib's place while a PDF is
saved (:func:`.figure_style.figure_bytes`, under its drawing lock);
without matplotlib's function (another version) nothing is changed.  The base
costs about three subsets of the font: it is kept in matplotlib's cache
folder (``matplotlib.get_cachedir()``, where matplotlib keeps its list of
fonts), named by the font file's content, the fontTools and matplotlib
versions and :data:`BASE_CHARS`, with a checksum of its content (a file
torn or changed is made again), written atomically
(:func:`.writing.write_bytes`); where that folder cannot be written, it
is made once per process."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import stat
from typing import NamedTuple

from ..errors import OutputError
from .writing import write_bytes

#: the characters of the base subset: printable ASCII, Latin-1, the Latin
#: ligatures (U+FB00 to U+FB06), and what the figures write besides (U+2026 ellipsis of names
#: cut short, U+2212 minus, U+FFFD of bytes that are not UTF-8, dashes, quotes)
BASE_CHARS = frozenset(
    [*range(0x20, 0x7F), *range(0xA0, 0x100), *range(0xFB00, 0xFB07)]
    + [0x2013, 0x2014, 0x2018, 0x2019, 0x201C, 0x201D, 0x2026, 0x2212, 0xFFFD]
)
#: the cache file's first line (its format): made anew when :func:`_make_base`
#: or :func:`_options` change what a base holds (the file's name covers the
#: font, the fontTools and matplotlib versions and BASE_CHARS, not the code)
_MAGIC = b"shrec-eval figure font base 1\n"
#: the largest cache file read (DejaVu Sans's base is about 46 KB)
_MAX_BYTES = 4 << 20


class _Base(NamedTuple):
    """A font's base subset: its file content, and the glyph index in it of
    each glyph of the font it holds."""

    data: bytes
    #: glyph index in the font -> in the base, of every glyph the base holds
    glyphs: dict[int, int]
    #: the glyphs of the font that a character of the base maps to
    mapped: frozenset[int]


#: (font file, face) -> its base subset, None when it could not be made
_BASES: dict[tuple[str, int], _Base | None] = {}


def _options(face_index: int):
    """fontTools' options as matplotlib's ``get_glyphs_subset`` sets them."""
    from fontTools import subset

    options = subset.Options(glyph_names=True, recommended_glyphs=True)
    options.drop_tables += [
        *("FFTM", "PfEd", "BDF", "meta", "MERG", "TSIV", "Zapf", "bdat", "bloc", "cidg"),
        *("fdsc", "feat", "fmtx", "fond", "just", "kerx", "ltag", "morx", "trak", "xref"),
    ]
    options.font_number = face_index
    return options


def _subset(source, face_index: int, *, gids=(), unicodes=()):
    """``source`` (a path or file) subset to ``gids`` and ``unicodes``, as
    matplotlib subsets: the font (open) and the subsetter."""
    from fontTools import subset

    options = _options(face_index)
    font = subset.load_font(source, options)
    subsetter = subset.Subsetter(options=options)
    subsetter.populate(gids=gids, unicodes=unicodes)
    subsetter.subset(font)
    return font, subsetter


def _make_base(fname: str, face_index: int) -> _Base:
    """The base subset of a font: the glyphs of :data:`BASE_CHARS` and those
    fontTools adds to them, with every character the font maps to one of
    them (added until none is missing: a ligature such as "fi" reached
    from "f" and "i" has a character of its own, U+FB01)."""
    from fontTools.ttLib import TTFont

    with TTFont(fname, fontNumber=face_index, lazy=True) as whole:
        charmap = {
            c: whole.getGlyphID(name)
            for table in whole["cmap"].tables
            if table.isUnicode()
            for c, name in table.cmap.items()
        }
    chars = {c for c in BASE_CHARS if c in charmap}
    while True:
        font, subsetter = _subset(fname, face_index, unicodes=sorted(chars))
        index = dict(subsetter.glyph_index_map)
        missing = {c for c, g in charmap.items() if g in index and c not in chars}
        if not missing:
            break
        font.close()
        chars |= missing
    buf = io.BytesIO()
    with font:
        font.save(buf, reorderTables=False)
    return _Base(buf.getvalue(), index, frozenset(charmap[c] for c in chars) | {0})


def _cache_file(fname: str, face_index: int) -> str | None:
    """Where the base of a font is kept (None: no cache folder)."""
    import fontTools
    import matplotlib

    try:
        with open(fname, "rb") as fh:
            font = hashlib.sha256(fh.read()).hexdigest()
        folder = matplotlib.get_cachedir()
    except (OSError, RuntimeError):
        return None
    key = hashlib.sha256(
        json.dumps(
            [font, face_index, fontTools.version, matplotlib.__version__, sorted(BASE_CHARS)]
        ).encode()
    ).hexdigest()
    return os.path.join(folder, f"shrec-eval-font-base-{key[:32]}.bin")


def _regular(path: str) -> bool | None:
    """Whether ``path`` itself (not what a link leads to) is a regular file;
    None when there is nothing there."""
    try:
        return stat.S_ISREG(os.lstat(path).st_mode)
    except FileNotFoundError:
        return None
    except OSError:
        return False


def _load(path: str) -> _Base | None:
    """A base kept by :func:`_store`; None when absent, torn or changed, or
    when the name is anything but a regular file of at most
    :data:`_MAX_BYTES` (a link, a pipe, a device: never followed, waited
    on or read without end)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(path, flags)
    except OSError:
        return None
    try:
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode) or st.st_size > _MAX_BYTES:
                return None
            blob = fh.read(_MAX_BYTES + 1)
        head, digest, meta, data = blob.split(b"\n", 3)
        if head + b"\n" != _MAGIC or hashlib.sha256(meta + data).hexdigest() != digest.decode():
            return None
        index, mapped = json.loads(meta)
        return _Base(data, {int(g): b for g, b in index.items()}, frozenset(mapped))
    except (OSError, ValueError, UnicodeDecodeError):
        return None


def _store(path: str, base: _Base) -> None:
    """Keep ``base`` at ``path`` (a folder that cannot be written: not kept)."""
    if _regular(path) is False:  # a link, a pipe, a folder...: left as it is, not kept
        return
    meta = json.dumps([base.glyphs, sorted(base.mapped)]).encode()
    digest = hashlib.sha256(meta + base.data).hexdigest().encode()
    try:
        write_bytes(path, b"".join([_MAGIC, digest, b"\n", meta, b"\n", base.data]), sync=False)
    except OutputError:
        pass


def prepare(fname: str | None = None, face_index: int = 0) -> _Base | None:
    """The base subset of ``fname`` (default: the figures' font, DejaVu
    Sans), made now if it is not yet; None when fontTools cannot make it."""
    if fname is None:
        from matplotlib.font_manager import findfont

        fname = findfont("DejaVu Sans")
    key = (str(fname), int(face_index))
    if key not in _BASES:
        path = _cache_file(*key)
        base = _load(path) if path is not None else None
        if base is None:
            try:
                base = _make_base(*key)
            except Exception:  # no base: every subset made from the font, as matplotlib does
                base = None
            if base is not None and path is not None:
                _store(path, base)
        _BASES[key] = base
    return _BASES[key]


def glyphs_subset(fontfile, glyphs):
    """matplotlib's ``get_glyphs_subset(fontfile, glyphs)``, made from the
    font's base subset where it holds the glyphs: a context manager giving
    the subset font and the glyph index in it of each glyph of the font."""
    from matplotlib.backends import _backend_pdf_ps

    wanted = set(glyphs)
    base = prepare(str(fontfile), getattr(fontfile, "face_index", 0))
    if base is not None and wanted <= base.mapped:
        font, subsetter = _subset(
            io.BytesIO(base.data),
            getattr(fontfile, "face_index", 0),
            gids=sorted(base.glyphs[g] for g in wanted),
        )
        if font["cmap"].getBestCmap():  # a character left mapped: the font's own subset
            inner = subsetter.glyph_index_map
            index = {g: inner[b] for g, b in base.glyphs.items() if b in inner}
            return _backend_pdf_ps.SubsetResults(font, index)._as_cm()
        font.close()
    return (_MATPLOTLIB[0] or _backend_pdf_ps.get_glyphs_subset)(fontfile, glyphs)


#: matplotlib's own function, while ours is in its place
_MATPLOTLIB: list = [None]


@contextlib.contextmanager
def subsets_from_base(wanted: bool = True):
    """While this lasts (``wanted``: a PDF is saved), the PDF backend's font
    subsets are made by :func:`glyphs_subset` (called under the figures'
    drawing lock: one PDF saved at a time).  Without matplotlib's
    ``get_glyphs_subset`` (another version of matplotlib), nothing is
    changed."""
    from matplotlib.backends import _backend_pdf_ps

    own = getattr(_backend_pdf_ps, "get_glyphs_subset", None)
    if not wanted or own in (None, glyphs_subset) or not hasattr(_backend_pdf_ps, "SubsetResults"):
        yield
        return
    _MATPLOTLIB[0] = own
    _backend_pdf_ps.get_glyphs_subset = glyphs_subset
    try:
        yield
    finally:
        _backend_pdf_ps.get_glyphs_subset = own
