"""One run of the contest the window shows, by key: its source, its own
colour (a contest file's; None: its place's, see Controller.looks), and its
result once scored (or the reader's message)."""

from __future__ import annotations

from dataclasses import dataclass, field

from shrec_eval.contest import RunSource
from shrec_eval.reading.formats.source import default_name


@dataclass
class RunEntry:
    key: int
    source: RunSource
    colour: str | None = None
    result: object = None
    error: str | None = None  # the reader's message when the file could not be used
    base_name: str | None = None  # the run's own name (the result's may get a suffix)
    run: object = None  # the Run the scoring service read (its ranked lists: the gallery)
    own_name: str | None = None  # its reader's name (a rename to nothing shows it again)
    #: the name of its path, the command line's (default_name): until its reader names it
    path_name: str = field(init=False)

    def __post_init__(self) -> None:
        self.path_name = default_name(self.source.path)

    @property
    def name(self) -> str:
        """The name it is shown under: the one given, else its reader's (a
        TREC run's tag; once read), else its path's, as the command line
        names it (distinct among the runs once scored)."""
        if self.result is not None:
            return self.result.run_name
        return self.source.name or self.own_name or self.path_name
