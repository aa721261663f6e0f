"""``shrec``: the default profile, ../../shared/spec/measures.md unchanged."""

from __future__ import annotations

from .base import Profile

PROFILE = Profile(
    name="shrec",
    label="SHREC measures as published",
    source="the SHREC 2006 and SHREC 2012 / PSB evaluation papers",
    help="every measure as the SHREC 2006 and 2012 papers define it (the default)",
)
