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
class OtherReading:
    """What a data check found another reading of the files would give: the
    setting that reads them so (``matrix_order``) and its value there, the
    run's ``measure`` as read (``here``) and read so (``there``), and the
    profile that fixes the setting (None: the user chooses it).
    ``nearest_other``: when each query is kept in its own list (and so
    finds itself first in either reading), the same two figures with its
    own item left out, which tell the readings apart."""

    setting: str
    value: object
    measure: str
    here: float | None
    there: float | None
    fixed_by: str | None = None
    nearest_other: tuple | None = None


@dataclass(frozen=True)
class DataWarning:
    """One data check that found something: a code scripts can test, a
    sentence for people, how many cases, and the first few of them.

    ``advice``: the words of ``message`` that name a command-line option
    (`` (--matrix-order id)``), which the app says in its own words;
    ``other``: another reading of the files and its figures, for a check
    whose numbers depend on a reading setting (:class:`OtherReading`)."""

    code: str
    message: str
    count: int
    examples: tuple[str, ...] = ()
    advice: str = ""
    other: OtherReading | None = None

    def worded(self, advice: str = "") -> str:
        """The message with its command-line words replaced by ``advice``
        (another face's words for the same choice; empty: left out)."""
        if not self.advice:
            return self.message
        return self.message.replace(self.advice, advice)

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
