"""The one error type every reader raises, written for contest organizers."""

from __future__ import annotations

import os


class ContestFileError(Exception):
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
        self.path = os.fspath(path) if path is not None else None
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
        head = self.path or "<input>"
        if where:
            head += f", {', '.join(where)}"
        found = ""
        if self.token is not None:
            tok = self.token if len(self.token) <= 40 else self.token[:37] + "..."
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
