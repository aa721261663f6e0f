"""``shrec``: the default profile, ../../shared/spec/measures.md unchanged."""

from __future__ import annotations

from .base import Profile

PROFILE = Profile(
    name="shrec",
    label="shrec (measures.md)",
    source="../shared/spec/measures.md",
)
