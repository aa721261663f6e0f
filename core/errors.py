"""The errors meant for a person: every one derives from :class:`ShrecEvalError`,
whose ``str()`` is the sentence to show (the command line prints it on one
line, the desktop app in a dialog).  Anything else that escapes is a bug.

    ShrecEvalError
    +-- ContestFileError      a file of the contest cannot be used
    |   +-- FormatError       its content is not what its format says
    |   +-- FileAccessError   the system cannot read it
    +-- OptionsError          an option value the engine cannot use (also a ValueError)
    +-- AssessmentError       an assessment or run that is inconsistent (also a ValueError)
    +-- StatsError            inputs a comparison cannot use (also a ValueError)
    +-- UsageError            a command line that does not make sense
    +-- Cancelled             the person asked to stop
"""

from __future__ import annotations

import os


def shown(text: str) -> str:
    """``text`` as it can be shown and written as UTF-8: the bytes of an id
    or file name that are not UTF-8 (kept as surrogates, as Python reads
    such names) become U+FFFD.  Text that is UTF-8 already is returned as
    it is."""
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        pass
    try:  # the bytes the text was made of, each bad one then U+FFFD
        return text.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeEncodeError:  # a lone surrogate that was never a byte
        return text.encode("utf-8", "surrogatepass").decode("utf-8", "replace")


class ShrecEvalError(Exception):
    """Base class of every error meant for a user."""


class OptionsError(ShrecEvalError, ValueError):
    """An option value the engine cannot use."""


class AssessmentError(ShrecEvalError, ValueError):
    """An assessment or run whose content is inconsistent."""


class StatsError(ShrecEvalError, ValueError):
    """Inputs the comparison cannot use."""


class NativeError(ShrecEvalError, ValueError):
    """Native files asked of a profile that has none, or an unusable folder."""


class UsageError(ShrecEvalError):
    """A command line that does not make sense."""


class Cancelled(ShrecEvalError):
    """Raised by the engine (and comparisons) when ``should_stop()`` answered True."""

    def __init__(self, message: str = "cancelled") -> None:
        super().__init__(message)


class ContestFileError(ShrecEvalError):
    """A file of the contest could not be used.  ``str()`` is the sentence to
    show a person: the file, where in it, and what was expected."""

    def __init__(
        self,
        path,
        message: str,
        *,
        line: int | None = None,
        column: int | None = None,
        token: str | None = None,
    ) -> None:
        path = os.fspath(path) if path is not None else None
        self.path = os.fsdecode(path) if isinstance(path, bytes) else path
        self.line = line
        self.column = column
        self.token = token
        self.message = message
        super().__init__(self._text())

    def _text(self) -> str:
        where = []
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.column is not None:
            where.append(f"column {self.column}")
        head = shown(self.path) if self.path else "<input>"
        if where:
            head += f", {', '.join(where)}"
        found = ""
        if self.token is not None:
            tok = shown(self.token)
            tok = tok if len(tok) <= 40 else tok[:37] + "..."
            found = f" (found {tok!r})"
        return f"{head}: {self.message}{found}"


class FormatError(ContestFileError):
    """The content of a file is not what its format says."""


class FileAccessError(ContestFileError):
    """The operating system could not read a file (missing, no permission...)."""

    @classmethod
    def wrap(cls, path, exc: OSError) -> FileAccessError:
        reason = exc.strerror or exc.__class__.__name__
        return cls(path, f"cannot read the file: {reason}")


class AmbiguousFormatError(FormatError):
    """A file fits several formats: ``candidates`` names them (format keys,
    e.g. ``("trec", "ascii-matrix")``); the caller asks the user, or the
    user chooses with ``--run-format``."""

    def __init__(self, path, message: str, *, candidates: tuple[str, ...] = ()) -> None:
        self.candidates = tuple(candidates)
        super().__init__(path, message)


class OutputError(ContestFileError):
    """An output cannot be written where it was asked (it would replace an
    input, it is a device or a folder, the folder is missing...)."""


def user_message(exc: BaseException, path=None) -> str:
    """An exception in words for a person, as every face says it: a
    ShrecEvalError says what went wrong itself; an OSError names the file
    (``path`` when writing it); anything else is a bug, said as one."""
    if isinstance(exc, ShrecEvalError):
        return str(exc)
    if isinstance(exc, OSError):
        return f"{path or exc.filename or ''}: {exc.strerror or exc}".lstrip(": ")
    return f"unexpected {type(exc).__name__}: {exc}"
