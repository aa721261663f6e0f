"""The bounds of the engine's options, in the model layer: the parsers of
option values (:mod:`.values`), the options (:mod:`shrec_eval.options`) and
the command line's help all read them here (no numpy: ``--help`` stays fast)."""

import numbers
from typing import TypeGuard

#: the largest rank K, curve length and maximum rank: the engine's working
#: arrays grow with them (1,000,000 columns is 64 MB a query)
MAX_RANK = 1_000_000
#: the largest collection size (Ds) the engine accepts
MAX_COLLECTION = 10**12
#: the largest weight beta of the F-measure curve
MAX_BETA = 1e6
#: the recall levels of the interpolated precision-recall curve (as the
#: command line offers them)
PR_LEVELS = (11, 21)
#: the largest relevance level (trec_eval's -l; a grade is a C int)
MAX_GRADE = 2**31 - 1


def is_real(value: object) -> TypeGuard[float]:
    """A real number (an int, a float, a Fraction, numpy's), not a bool: what
    the bounds above are compared with.  Typed as a float: typeshed gives
    ``numbers.Real`` no arithmetic."""
    return isinstance(value, numbers.Real) and not isinstance(value, bool)
