"""Id normalisation, applied the same way to assessments and runs.

Real runs write ``m665`` or ``model_665`` for the PSB model ``665``, and
ShapeNet writes zero-padded ids (``036894``).  With normalisation on, an id
made of an optional ``m`` / ``model_`` prefix and digits becomes its number
without leading zeros; any other id is kept as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ..model import DataWarning

_ID = re.compile(r"(?:model_|m)?(\d+)\Z", re.IGNORECASE)


def normalize_id(token: str) -> str:
    m = _ID.match(token)
    if m is None:
        return token
    return m.group(1).lstrip("0") or "0"


class IdNormalizer:
    """Normalises ids (when enabled) and counts what it changed, to report it."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self.changed = 0
        self.examples: list[str] = []

    def __call__(self, token: str) -> str:
        if not self.enabled:
            return token
        out = normalize_id(token)
        if out != token:
            self.changed += 1
            if len(self.examples) < 5:
                self.examples.append(f"{token} -> {out}")
        return out

    def many(self, tokens: Iterable[str]) -> list[str]:
        return [self(t) for t in tokens]

    def note(self, what: str) -> list[DataWarning]:
        if not self.changed:
            return []
        return [DataWarning("ids_normalised", f"ids of the {what} normalised (m / model_ "
                            "prefix or zero padding removed)", self.changed,
                            tuple(self.examples))]
