"""What reading and scoring tell about the data (DataWarning: a code, a message
and a few examples), and the markers of a ranked list's entries (UNKNOWN: an
id outside the collection; PAD: no entry)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

#: Marker in a ranked list for an id the assessment does not know: it was
#: retrieved (it counts in Va) but it is not relevant to anything.
UNKNOWN = -2
#: Padding past the end of a ranked list in a block of lists.
PAD = -1

MAX_EXAMPLES = 5


@dataclass(frozen=True)
class DataWarning:
    """One data check that found something: a code scripts can test, a
    sentence for people, how many cases, and the first few of them."""

    code: str
    message: str
    count: int
    examples: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        return {
            "code": self.code,
            "message": self.message,
            "count": self.count,
            "examples": list(self.examples),
        }

    def __str__(self) -> str:
        more = f" (e.g. {', '.join(self.examples)})" if self.examples else ""
        # a message that says it all (count 0) does not end in ": 0"
        return f"{self.message}: {self.count}{more}" if self.count or more else self.message


def make_warning(code: str, message: str, cases: Sequence[str]) -> DataWarning:
    return DataWarning(code, message, len(cases), tuple(cases[:MAX_EXAMPLES]))
