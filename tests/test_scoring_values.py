"""The small shared conversions (shrec_eval.model.values): one helper each, used by
the engine, the reports, the command line and the app."""

import io
import json
import math

import numpy as np
import pytest
from shrec_eval.cli.parser import main
from shrec_eval.errors import OptionsError
from shrec_eval.model.number_text import (
    is_integer,
    is_number,
    parse_positive,
    parse_ranks,
    text_grid,
)
from shrec_eval.model.values import nullable, nullable_list


def test_undefined_values_become_null():
    assert [nullable(v) for v in (None, math.nan, np.float32("nan"), math.inf, -np.inf)] == [
        None
    ] * 5
    assert nullable(np.float32(0.5)) == 0.5 and type(nullable(np.int64(3))) is float
    assert nullable_list(np.array([1.0, np.nan, np.inf, 0.25])) == [1.0, None, None, 0.25]
    assert nullable_list([]) == []
    # what comes out is JSON without NaN
    json.dumps(nullable_list([np.nan, 2]), allow_nan=False)


@pytest.mark.parametrize(
    "text,want", [("5,10,25", (5, 10, 25)), (" 1, 3 ,", (1, 3)), ("100", (100,))]
)
def test_parse_ranks(text, want):
    assert parse_ranks(text) == want


@pytest.mark.parametrize(
    "text,needle",
    [("a,b", "whole numbers"), ("5.5", "whole numbers"), ("0,5", "positive"), ("", "positive")],
)
def test_bad_ranks(text, needle):
    with pytest.raises(OptionsError, match=needle):
        parse_ranks(text)


def test_the_command_line_says_what_parse_ranks_says(capsys):
    with pytest.raises(OptionsError) as e:
        parse_ranks("5,x")
    assert main(["measures", "--ranks", "5,x"], out=io.StringIO()) == 2
    assert str(e.value) in capsys.readouterr().err


def test_parse_positive_and_is_number():
    assert parse_positive("7") == 7
    for bad in ("0", "-3", "2.5", "x", ""):
        with pytest.raises(OptionsError, match="positive whole number"):
            parse_positive(bad)
    assert [is_number(t) for t in ("1", "-2.5e3", "nan", "inf", "1,5", "", "=1+1")] == [
        True,
        True,
        True,
        True,
        False,
        False,
        False,
    ]

    # bytes too (the readers' format detection reads bytes)
    assert is_number(b"0.5") and is_integer(b"12") and not is_integer(b"1.5")
    assert [is_integer(t) for t in ("7", "-3", "1e3", "x")] == [True, True, False, False]


def test_text_grid():
    rows = [["Rank", "Run", "ap"], ["1", "Alice", "0.5000"], ["2", "Bo", "10.0000"]]
    assert text_grid(rows, rule=True) == [
        "Rank  Run         ap",
        "----  -----  -------",
        "1     Alice   0.5000",
        "2     Bo     10.0000",
    ]
    assert text_grid([["a", "bb", "c"], ["ccc", "d", "e"]], left=3) == ["a    bb  c", "ccc  d   e"]
    assert text_grid([]) == []
