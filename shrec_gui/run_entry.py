"""One run of the contest the window shows, by key: its source, its own
colour (a contest file's; None: its place's, see Controller.looks), and its
result once scored (or the reader's message)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from shrec_eval.contest import RunSource


@dataclass
class RunEntry:
    key: int
    source: RunSource
    colour: str | None = None
    result: object = None
    error: str | None = None  # the reader's message when the file could not be used
    base_name: str | None = None  # the run's own name (the result's may get a suffix)
    run: object = None  # the Run the scoring service read (its ranked lists: the gallery)
    own_name: str | None = None  # the name the file gives (a rename to nothing shows it again)

    @property
    def name(self) -> str:
        if self.result is not None:
            return self.result.run_name
        return self.source.name or Path(self.source.path).name
