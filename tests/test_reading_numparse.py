"""The decimal fast path of core/reading/formats/numparse.py gives the bits
``float()`` gives, for every token it takes (the others go to float())."""

from __future__ import annotations

import random
from decimal import Decimal, getcontext

import numpy as np
import pytest
from shrec_eval.errors import FormatError
from shrec_eval.reading.formats.numparse import parse_decimals, parse_floats, plain_decimals
from shrec_eval.reading.formats.tokens import checked_floats, floats, plain_float, tokenize


def _parse(tokens: list[bytes], fn):
    data = b" ".join(tokens)
    starts = np.cumsum([0] + [len(t) + 1 for t in tokens[:-1]])
    ends = starts + np.array([len(t) for t in tokens])
    return fn(np.frombuffer(data, dtype=np.uint8), starts, ends)


def _check(tokens, fn, least):
    values, done = _parse(tokens, fn)
    assert done.sum() >= least
    for i in np.flatnonzero(done).tolist():
        assert values[i].tobytes() == np.float64(float(tokens[i])).tobytes(), tokens[i]


def test_wide_decimals_of_16_to_19_digits():
    rng = random.Random(5)
    tokens = []
    for _ in range(60_000):
        nd = rng.randint(16, 19)
        f = rng.randint(0, nd)
        digits = str(rng.randrange(10 ** (nd - 1), 10**nd))
        sign = rng.choice(["", "-", "+"])
        tokens.append(f"{sign}{digits[: nd - f]}.{digits[nd - f :]}".encode())
    _check(tokens, parse_decimals, 55_000)


def test_decimals_next_to_halfway_between_two_doubles():
    """19-digit cuts of the exact midpoints between neighbouring doubles:
    where a double rounding would go wrong."""
    getcontext().prec = 60
    rng = random.Random(7)
    tokens = []
    for _ in range(20_000):
        x = rng.random() * rng.choice([1, 10, 1000, 1e6])
        mid = (Decimal(x) + Decimal(float(np.nextafter(x, 2e9)))) / 2
        whole, frac = format(mid, "f").split(".")
        keep = 19 - len(whole.lstrip("0")) if whole.strip("0") else 19
        tokens.append(f"{whole}.{frac[: max(keep, 1)]}".encode())
    _check(tokens, parse_decimals, 10_000)


@pytest.mark.parametrize("fmt", ["%r", "%.6f", "%.17g", "%.3e", "%g"])
def test_scores_as_programs_write_them(fmt):
    rng = np.random.default_rng(3)
    vals = np.concatenate([rng.random(5000), -rng.random(2000) * 1e4, rng.random(2000) * 1e-4])
    tokens = [(fmt % float(v)).encode() for v in vals]
    tokens += [b"0", b"-0", b"-0.0", b"+.5", b"5.", b"1e5", b"1E-5", b"9999999999999999999"]
    _check(tokens, parse_floats, len(tokens) // 2)


def test_what_is_not_a_plain_decimal_is_left_to_float():
    tokens = [b".", b"-", b"1.2.3", b"nan", b"inf", b"1_0", b"12345678901234567890", b"1-2"]
    _, done = _parse(tokens, parse_decimals)
    assert not done.any()


def _tokens_of_every_kind(seed: int) -> list[bytes]:
    rng = random.Random(seed)
    alphabet = "0123456789.+-eE_naifNI x"
    tokens = [b".", b"-", b"+", b"1.2.3", b"nan", b"NaN", b"-inf", b"1_0", b"1-2", b"e5", b"5e"]
    tokens += [b"12345678901234567890", b"1234567890123456789", b"-.5", b"5.", b"+0"]
    for _ in range(3000):
        n = rng.randint(1, 22)
        tok = "".join(
            rng.choice(alphabet[:13] if rng.random() < 0.8 else alphabet) for _ in range(n)
        )
        tokens.append(tok.replace(" ", "").encode() or b"0")
    return tokens


@pytest.mark.parametrize("seed", range(3))
def test_plain_decimals_are_what_float_reads_and_finite(seed):
    """The spelling check of the file-order run reader: every token it
    passes is one ``float()`` reads, finite; it passes what parse_decimals
    computes."""
    tokens = _tokens_of_every_kind(seed)
    plain = _parse(tokens, plain_decimals)
    _, exact = _parse(tokens, parse_decimals)
    assert (plain | ~exact).all()  # every exactly computed token is plain
    for tok, ok in zip(tokens, plain.tolist()):
        if ok:
            assert np.isfinite(float(tok)), tok


@pytest.mark.parametrize("seed", range(3))
def test_a_field_checked_gives_the_error_and_values_of_reading_it(seed):
    """checked_floats: the same first error as floats(), and for the tokens
    that are not plain decimals the same values (NaN included)."""
    rng = random.Random(seed)
    tokens = _tokens_of_every_kind(seed)
    good, bad = [], []
    for t in tokens:
        try:
            plain_float(t)  # float() but for 1_000 (a typo, refused as the matrix reader does)
            good.append(t)
        except ValueError:
            bad.append(t)
    errors = 0
    for i in range(60):
        sample = rng.sample(good, 30)
        if i % 2:
            sample[rng.randrange(30)] = rng.choice(bad)
        lines = tokenize(b"".join(b"q Q0 d 1 " + t + b" tag\n" for t in sample))
        try:
            want = floats("run.trec", lines, 4, "the score")
        except FormatError as exc:
            errors += 1
            with pytest.raises(FormatError) as got:
                checked_floats("run.trec", lines, 4, "the score")
            assert str(got.value) == str(exc)
            continue
        rest, values = checked_floats("run.trec", lines, 4, "the score")
        assert not plain_decimals(lines.padded, *lines.bounds(4))[rest].any()
        np.testing.assert_array_equal(values, want[rest])
    assert errors == 30


def test_one_byte_integers_are_int_s_or_left_to_it():
    """Tokens of one byte (a qrels' grades), every byte value, alone or
    beside longer ones: a digit is its value, anything else is left to
    ``int()`` (not done, 0), as for longer tokens."""
    from shrec_eval.reading.formats.numparse import parse_ints

    ones = [bytes([b]) for b in range(33, 256)]
    for tokens in (ones, ones + [b"12", b"-3", b"+4", b"0x"]):
        values, done = _parse(tokens, parse_ints)
        for tok, v, ok in zip(tokens, values.tolist(), done.tolist()):
            plain = tok.isascii() and tok.lstrip(b"+-").isdigit() and len(tok.lstrip(b"+-")) > 0
            assert ok == plain, tok
            assert v == (int(tok) if plain else 0), tok
