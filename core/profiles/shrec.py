"""``shrec``: the default profile, the definitions of docs/measures.md unchanged."""

from __future__ import annotations

from .base import Profile

PROFILE = Profile(
    name="shrec",
    label="shrec (measures.md)",
    source="docs/measures.md",
)
