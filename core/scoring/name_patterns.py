"""The patterns that match the names a user types to the measure
registry's keys and aliases (``p@{k}`` matches ``p@20``), and the cache
of the patterns of a registry (:mod:`shrec_eval.scoring.measures` makes
and reads them)."""

from __future__ import annotations

import re

__all__ = ["Exact", "PatternCache", "make_patterns", "name_pattern"]


def name_pattern(template: str):
    """What matches a name to a key's or an alias's ``template``: a pattern
    for a template with a rank (``p@{k}``), and for the others (most of
    them) the template itself, compared (the class :class:`Exact`): every profile's
    registry is made at every start, and compiling a pattern for each of its
    hundred names was most of that."""
    if "{k}" not in template:
        return Exact(template)
    return re.compile(re.escape(template).replace(re.escape("{k}"), r"([1-9][0-9]{0,6})") + "$")


#: the match of a template without a rank (no group)
_WHOLE = re.compile("").match("")


class Exact:
    """A template without a rank: a name matches it as ``re.escape(template)
    + "$"`` would, when it is the template (or the template and a line end)."""

    __slots__ = ("template",)

    def __init__(self, template: str) -> None:
        self.template = template

    def match(self, name: str):
        t = self.template
        return _WHOLE if name == t or (name[:-1] == t and name[-1:] == "\n") else None


def make_patterns(measures, aliases) -> tuple[list, list]:
    """The patterns of each key of ``measures`` and each name of ``aliases``."""
    keys = [(name_pattern(m.key), m) for m in measures]
    aliases = [(name_pattern(a.name), a) for a in aliases]
    return keys, aliases


class PatternCache:
    """The patterns of a registry, kept for the last few registries:
    ``functools.lru_cache``'s job, written here because lru_cache hashes
    both tuples (some 150 measures and aliases, field by field) at every
    call, 6 ms of a command's hundred look-ups; the registry's own tuples
    (:func:`~shrec_eval.scoring.measures.all_measures` and `all_aliases`: the
    same objects while it
    does not change) are found by identity first, and tuples made anew (an
    evaluator file's being made) by value, as before."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.by_value: dict = {}
        self.last: tuple | None = None  # (measures, aliases, patterns), one tuple

    def __call__(self, measures, aliases) -> tuple[list, list]:
        last = self.last
        if last is not None and last[0] is measures and last[1] is aliases:
            return last[2]
        out = self.by_value.get((measures, aliases))
        if out is None:
            out = make_patterns(measures, aliases)
            if len(self.by_value) >= self.size:
                self.by_value.clear()
            self.by_value[measures, aliases] = out
        self.last = (measures, aliases, out)
        return out

    def cache_clear(self) -> None:
        self.by_value.clear()
        self.last = None
