"""Numbers of many tokens at once, straight from the bytes of a chunk
(no Python object per token), for :mod:`.tokens`.

Every token is read as Python would read it: the vectorised path takes only
the plainest spellings, whose value it computes exactly, and hands every
other token to Python's own ``float()`` / ``int()``, one by one.

* Floats: ``[+-]digits[.digits][(e|E)[+-]digits]`` (digits on either side
  of the point may be missing, not both) with at most 15 significant digits
  and a decimal exponent of at most 22 in magnitude once the point is moved
  to the end of the digits.  The digits are then an exact integer below
  2**53 and the power of ten is exact in binary, so one multiplication or
  division is correctly rounded (Clinger's fast path): the result is the
  bits ``float(token)`` gives.  Anything else (more digits, bigger exponents,
  ``nan``, ``inf``, underscores, junk) goes to ``float()``.
* Integers: ``[+-]digits`` with at most 18 digits (exact in int64); anything
  else goes to ``int()``.

Hand-written because numpy offers no parser of numbers from a byte buffer
at given offsets (``np.char``/``astype(float)`` make an object per token and
are slower than ``float()``).
"""

from __future__ import annotations

import numpy as np

#: longest token the vectorised float / integer path looks at
NUM_WIDTH = 24
_POW10 = np.array([float(10**k) for k in range(23)])  # exact in binary
_POW10_U64 = np.array([10**k for k in range(20)], dtype=np.uint64)
#: numpy's longdouble is the x87 80-bit format (64-bit significand) on
#: x86 Linux; elsewhere (Windows, ARM) it is float64 and wide decimals go
#: to float()
_EXTENDED = np.finfo(np.longdouble).nmant >= 63
_POW10_LD = np.cumprod(np.full(28, 10, dtype=np.longdouble)) / 10  # exact: 5**27 < 2**64
_ZERO = ord("0")


def gather(buf: np.ndarray, starts: np.ndarray, lengths: np.ndarray, width: int) -> np.ndarray:
    """A (width, tokens) uint8 array: byte j of every token in row j, 0 past
    its end."""
    out = np.zeros((width, starts.size), dtype=np.uint8)
    last = buf.size - 1
    for j in range(width):
        inside = lengths > j
        out[j] = np.where(inside, buf[np.minimum(starts + j, last)], 0)
    return out


def parse_floats(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray):
    """(values, done): float64 values of the tokens ``buf[starts:ends]``
    and a mask of those the exact paths computed (the others are left 0):
    plain decimals by :func:`parse_decimals`, the rest (exponents, ...) by
    :func:`parse_general`."""
    values, done = parse_decimals(buf, starts, ends)
    if not done.all():
        rest = np.flatnonzero(~done)
        v, d = parse_general(buf, starts[rest], ends[rest])
        values[rest], done[rest] = v, d
    return values, done


def plain_decimals(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Mask of the tokens ``buf[starts:ends]`` that are plain decimals
    ``[+-]digits[.digits]`` of at most 19 digits (at least one; digits on
    either side of the point may be missing, not both): what
    :func:`parse_decimals` computes.  Each is a finite number ``float()``
    reads; a reader that only checks a field (a TREC run's scores in file
    order) needs no more."""
    return _decimal_syntax(buf, starts, ends)[0]


def _decimal_syntax(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray):
    """(ok, r, digit, dot, lengths): the plain-decimal mask, the tokens'
    bytes a row per position (0 past the end), their digit and point
    masks."""
    n = starts.size
    lengths = ends - starts
    if not n:
        return np.zeros(0, dtype=bool), None, None, None, lengths
    width = int(min(lengths.max(), 21))
    cols = np.arange(width)
    if buf.size < int(starts.max()) + width:  # not padded enough: pad a copy
        buf = np.concatenate((buf, np.zeros(width, dtype=np.uint8)))
    rows = np.lib.stride_tricks.as_strided(buf, (buf.size - width + 1, width), (1, 1))
    # byte j of every token in row j (reductions over rows are elementwise)
    r = np.ascontiguousarray(rows[starts].T)
    r *= cols[:, None] < lengths
    digit = (r - np.uint8(_ZERO)) < 10
    dot = r == ord(".")
    sign = (r[0] == ord("-")) | (r[0] == ord("+"))
    other = ~(digit | dot | (r == 0))
    other[0] &= ~sign
    ok = (lengths <= width) & ~other.any(axis=0) & (dot.sum(axis=0, dtype=np.int8) <= 1)
    total = digit.sum(axis=0, dtype=np.int8)
    ok &= (total >= 1) & (total <= 19)
    return ok, r, digit, dot, lengths


def parse_decimals(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray):
    """(values, done) of the plain decimals (:func:`plain_decimals`): the
    digits, the point removed, are an exact integer ``m`` below 2**64 and
    the value is ``m / 10**f`` with ``f`` the number of digits after the
    point.  With ``m < 2**53`` and ``f <= 22`` one float64 division is
    correctly rounded (Clinger).  Up to 19 digits and ``f <= 27`` the
    division is done in the x87 80-bit format (64-bit significand, where
    ``m`` and ``10**f`` are exact) and rounded to float64; that double
    rounding can only go wrong when the 80-bit result lies exactly halfway
    between two float64 values, and those tokens are left to ``float()``."""
    n = starts.size
    values = np.zeros(n, dtype=np.float64)
    ok, r, digit, dot, _ = _decimal_syntax(buf, starts, ends)
    if not n:
        return values, ok
    d = r - np.uint8(_ZERO)
    # the digits, point removed, as an integer (Horner, a byte row at a time),
    # and how many come after the point
    mant = np.zeros(n, dtype=np.uint64)
    frac = np.zeros(n, dtype=np.int8)
    seen = np.zeros(n, dtype=bool)
    for j in range(r.shape[0]):
        dj = digit[j]
        mant = np.where(dj, mant * np.uint64(10) + d[j], mant)
        seen |= dot[j]
        frac += dj & seen
    frac = frac.astype(np.int64)
    exact = ok & (mant < 2**53) & (frac <= 22)
    values = np.where(exact, mant.astype(np.float64) / _POW10[np.minimum(frac, 22)], 0.0)
    wide = np.flatnonzero(ok & ~exact & (frac <= 27))
    if wide.size and _EXTENDED:
        v, good = _extended(mant[wide], frac[wide])
        values[wide] = v
        exact[wide] = good
    values = np.where(r[0] == ord("-"), -values, values)
    values[~exact] = 0.0
    return values, exact


def _extended(mant: np.ndarray, frac: np.ndarray):
    """``mant / 10**frac`` divided in 80-bit precision and rounded to
    float64, and the mask of the results that are surely correctly rounded
    (not exactly halfway between two float64 values before the rounding)."""
    x = mant.astype(np.longdouble) / _POW10_LD[frac]
    v = x.astype(np.float64)
    gap = np.abs(x - v.astype(np.longdouble))
    ulp = np.spacing(v).astype(np.longdouble)
    halfway = (gap == ulp / 2) | (gap == ulp / 4)
    return v, ~halfway & (v != 0) & np.isfinite(v)


def parse_general(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray):
    """(values, done) of ``[+-]digits[.digits][(e|E)[+-]digits]`` with at
    most 15 significant digits (Clinger's fast path, see the module)."""
    n = starts.size
    values = np.zeros(n, dtype=np.float64)
    lengths = ends - starts
    if not n:
        return values, np.zeros(0, dtype=bool)
    width = int(min(lengths.max(), NUM_WIDTH))
    m = gather(buf, starts, lengths, width)
    ok = lengths <= width
    negative = m[0] == ord("-")
    is_e = (m == ord("e")) | (m == ord("E"))
    has_e = is_e.any(axis=0)
    epos = np.where(has_e, is_e.argmax(axis=0), lengths)
    is_dot = m == ord(".")
    ok &= (is_e.sum(axis=0) <= 1) & (is_dot.sum(axis=0) <= 1)
    dpos = np.where(is_dot.any(axis=0), is_dot.argmax(axis=0), epos)
    ok &= dpos <= epos
    digit = (m >= _ZERO) & (m <= _ZERO + 9)
    cols = np.arange(width)[:, None]
    inside = cols < lengths
    is_sign = (m == ord("+")) | (m == ord("-"))
    sign_ok = (cols == 0) | (cols == epos + 1)
    ok &= ~(inside & ~digit & ~is_dot & ~is_e & ~(is_sign & sign_ok)).any(axis=0)
    in_mant = digit & (cols < epos)
    in_exp = digit & (cols > epos)
    ok &= in_mant.any(axis=0) & (in_exp.any(axis=0) | ~has_e)
    ok &= in_exp.sum(axis=0) <= 4
    mant = np.zeros(n, dtype=np.int64)
    sig = np.zeros(n, dtype=np.int64)
    expo = np.zeros(n, dtype=np.int64)
    d = m.astype(np.int64) - _ZERO
    for j in range(width):
        dj, mj = d[j], in_mant[j]
        sig += mj & ((mant > 0) | (dj > 0))
        mant = np.where(mj, mant * 10 + dj, mant)
        expo = np.where(in_exp[j], expo * 10 + dj, expo)
    ok &= sig <= 15
    frac = (in_mant & (cols > dpos)).sum(axis=0)
    eneg = has_e & (m[np.minimum(epos + 1, width - 1), np.arange(n)] == ord("-"))
    e10 = np.where(eneg, -expo, expo) - frac
    ok &= np.abs(e10) <= 22
    mf = mant.astype(np.float64)
    p = _POW10[np.clip(np.abs(e10), 0, 22)]
    values = np.where(e10 >= 0, mf * p, mf / p)
    values = np.where(negative, -values, values)
    values[~ok] = 0.0
    return values, ok


def parse_ints(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray):
    """(values, done): int64 values of the plain ``[+-]digits`` tokens of at
    most 18 digits, and the mask of those (the others are left 0)."""
    n = starts.size
    lengths = ends - starts
    if not n:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool)
    width = int(min(lengths.max(), 19))
    if width == 1 and int(lengths.min()) == 1:  # single digits (a qrels' grades)
        # each token's byte itself: a digit when it is 0 to 9 past '0' (a byte
        # below '0' wraps past 9), as uint8 until the values are made
        d = buf[starts] - np.uint8(_ZERO)
        ok = d <= 9
        values = d.astype(np.int64)
        values[~ok] = 0
        return values, ok
    if width == 1:  # (an empty token among them)
        first = buf[np.minimum(starts, buf.size - 1)]
        ok = (first >= _ZERO) & (first <= _ZERO + 9) & (lengths == 1)
        return np.where(ok, first.astype(np.int64) - _ZERO, 0), ok
    m = gather(buf, starts, lengths, width)
    negative = m[0] == ord("-")
    signed = negative | (m[0] == ord("+"))
    digit = (m >= _ZERO) & (m <= _ZERO + 9)
    cols = np.arange(width)[:, None]
    inside = cols < lengths
    ok = (lengths - signed <= 18) & (lengths - signed >= 1)
    ok &= ~(inside & ~digit & ~((cols == 0) & signed)).any(axis=0)
    values = np.zeros(n, dtype=np.int64)
    d = m.astype(np.int64) - _ZERO
    for j in range(width):
        values = np.where(digit[j] & inside[j], values * 10 + d[j], values)
    values = np.where(negative, -values, values)
    values[~ok] = 0
    return values, ok
