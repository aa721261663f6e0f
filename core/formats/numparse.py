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
    and a mask of those the exact path computed (the others are left 0)."""
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
