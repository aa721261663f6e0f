"""``shrec``: the default profile, the definitions of docs/measures.md unchanged."""

from __future__ import annotations

from .base import Profile

PROFILE = Profile(
    name="shrec",
    label="SHREC measures as published",
    source="docs/measures.md (the SHREC 2006 and SHREC 2012 / PSB evaluation papers)",
    help="every measure as the SHREC 2006 and 2012 papers define it (the default)",
)
