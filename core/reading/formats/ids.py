"""Id normalisation, applied the same way to assessments and runs.

Real runs write ``m665`` or ``model_665`` for the PSB model ``665``, and
ShapeNet writes zero-padded ids (``036894``).  With normalisation on, an id
made of an optional ``m`` / ``model_`` prefix and digits becomes its number
without leading zeros; any other id is kept as it is.
"""

from __future__ import annotations

import re

from ...model.assessment import DataWarning

_ID = re.compile(r"(?:model_|m)?(\d+)\Z", re.IGNORECASE)


def normalize_id(token: str) -> str:
    m = _ID.match(token)
    if m is None:
        return token
    return m.group(1).lstrip("0") or "0"


class IdNormalizer:
    """Normalises ids (when enabled) and counts the distinct ids it changed,
    to report it."""

    def __init__(self, enabled: bool = True) -> None:
        self.enabled = enabled
        self._seen: dict[str, str] = {}

    @property
    def changed(self) -> int:
        return sum(1 for raw, out in self._seen.items() if raw != out)

    def __call__(self, token: str) -> str:
        if not self.enabled:
            return token
        out = self._seen.get(token)
        if out is None:
            out = self._seen[token] = normalize_id(token)
        return out

    def spellings(self, ident: str) -> list[str]:
        """The spellings seen that normalise to ``ident``, sorted."""
        return sorted(raw for raw, out in self._seen.items() if out == ident)

    def same_hint(self, ident: str) -> str:
        """For an id found twice: which spellings normalisation made equal."""
        raws = self.spellings(ident)
        if len(raws) < 2:
            return ""
        return (
            f"; {' and '.join(repr(r) for r in raws)} are the same id once normalised "
            "(--no-normalize-ids keeps ids as written)"
        )

    @property
    def examples(self) -> list[str]:
        """The first few changed ids, in sorted order (independent of the
        order in which a reader happened to see them)."""
        changed = sorted(raw for raw, out in self._seen.items() if raw != out)
        return [f"{raw} -> {self._seen[raw]}" for raw in changed[:5]]

    def note(self, what: str) -> list[DataWarning]:
        n = self.changed
        if not n:
            return []
        return [
            DataWarning(
                "ids_normalised",
                f"distinct ids of the {what} normalised (m / "
                "model_ prefix or zero padding removed)",
                n,
                tuple(self.examples),
            )
        ]
