"""Numbers and rank lists from text, and plain-text grids: the command
line's option values are read with these while it parses its arguments,
so they need no numpy (:mod:`.values` gives them with the conversions that
do)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..errors import OptionsError
from .limits import MAX_RANK

__all__ = [
    "is_number",
    "is_integer",
    "parse_ranks",
    "parse_positive",
    "parse_whole",
    "parse_real",
    "text_grid",
]


def is_number(text: str | bytes) -> bool:
    """Whether ``text`` reads as a number (Python's float syntax: nan and inf too)."""
    try:
        float(text)
    except ValueError:
        return False
    return True


def is_integer(text: str | bytes) -> bool:
    """Whether ``text`` reads as a whole number (Python's int syntax)."""
    try:
        int(text)
    except ValueError:
        return False
    return True


def parse_ranks(text: str) -> tuple[int, ...]:
    """The K of the @K measures from ``"5,10, 25"`` (the command line's
    ``--ranks`` and the app's options dialog); OptionsError otherwise."""
    try:
        ranks = tuple(_whole(t) for t in text.replace(" ", "").split(",") if t)
    except ValueError:
        raise OptionsError(
            f"ranks must be whole numbers separated by commas, e.g. 5,10,25,50,100: {text!r}"
        ) from None
    if not ranks or min(ranks) < 1 or max(ranks) > MAX_RANK:
        raise OptionsError(
            f"ranks must be positive whole numbers up to {MAX_RANK}, e.g. 5,10,25: {text!r}"
        )
    return ranks


def _whole(text: str) -> int:
    """int() of a whole number, also written 1e6 or 100.0 (ValueError otherwise)."""
    try:
        return int(text)
    except ValueError:
        v = float(text)
        if not v.is_integer():
            raise
        return int(v)


def parse_whole(text: str, least: int = 1, most: int | None = None) -> int:
    """A whole number from ``least`` to ``most`` from text; OptionsError
    otherwise (the command line adds the option's name)."""
    try:
        v = _whole(text)
    except (ValueError, OverflowError):
        v = None
    if v is None or v < least or (most is not None and v > most):
        what = "a positive whole number" if least == 1 else f"a whole number from {least}"
        upto = f" up to {most}" if most is not None else ""
        raise OptionsError(f"{what}{upto} was expected: {text!r}")
    return v


def parse_positive(text: str) -> int:
    """A positive whole number from text; OptionsError otherwise."""
    return parse_whole(text, 1)


def parse_real(text: str, low: float, high: float, *, low_open: bool = True) -> float:
    """A finite number in (``low``, ``high``] (or [``low``, ``high``]); OptionsError otherwise."""
    try:
        v = float(text)
    except ValueError:
        v = math.nan
    ok = math.isfinite(v) and (v > low if low_open else v >= low) and v <= high
    if not ok:
        lo = "(" if low_open else "["
        raise OptionsError(f"a number in {lo}{low:g}, {high:g}] was expected: {text!r}")
    return v


def text_grid(rows: Sequence[Sequence[str]], *, left: int = 2, rule: bool = False) -> list[str]:
    """Lines of a plain-text table: columns two spaces apart, the first
    ``left`` columns left-aligned and the others right-aligned (numbers);
    with ``rule``, a line of dashes under the first row."""
    rows = [list(r) for r in rows]
    if not rows:
        return []
    widths = [max(len(r[j]) for r in rows) for j in range(len(rows[0]))]
    if rule:
        rows.insert(1, ["-" * w for w in widths])
    return [
        "  ".join(
            c.ljust(w) if j < left else c.rjust(w) for j, (c, w) in enumerate(zip(r, widths))
        ).rstrip()
        for r in rows
    ]
