"""The measure registry: every measure and every curve declared once.

Each :class:`Measure` has its stable key (docs/measures.md lists them all),
the label people read, its family, a one-line definition, whether higher
is better, and the small function that computes it for a chunk of queries
from a :class:`ChunkContext` (the gain matrix and its cumulative sums).  The
command line, tables, CSV headers and docs all read this table.  The curves
have their registry beside it (:mod:`shrec_eval.scoring.curves`, re-exported here):
each :class:`Curve` declares its x values and its compute function.

Values are float64 per query; NaN means *undefined* (nothing to find: the
assessment has no relevant item of that kind for the query).

The names other tools give the same numbers (trec_eval's ``map``, ``P_10``,
ir_measures' ``AP``, ``nDCG@10``...) are :data:`ALIASES`; :func:`resolve`
turns any name a user types into a registry key, and is the one function
the command line, the reports and the desktop app call for it.  A measure
with parameters (``ndcg(discount=log2_from_1,ideal=retrieved)``,
:mod:`shrec_eval.scoring.params`) resolves to the registry key that computes
it under the profile, else to its canonical name; :func:`columns` are the
measures a scoring computes (the profile's, then ``EvalOptions.measures``).
"""

from __future__ import annotations

import difflib
import operator
import re
import threading
from collections.abc import Sequence

from .. import profiles
from ..choices import DEFAULT_PROFILE
from ..errors import OptionsError
from .base_measures import (
    BASE_ALIASES,
    BASE_MEASURES,
    FAMILIES,
    Alias,
    Bound,
    ConcreteMeasure,
    Measure,
    concrete,
)
from .curves import CURVES, Curve
from .families import BY_NAME
from .name_patterns import PatternCache
from .params import Binding, MeasureNameError, UnknownMeasureError, is_family_name, parse

__all__ = [
    "Measure",
    "MEASURES",  # noqa: F822 - module __getattr__ (the profiles' own measures)
    "CURVES",
    "Curve",
    "expand",
    "measure_by_key",
    "FAMILIES",
    "Alias",
    "ALIASES",  # noqa: F822 - module __getattr__
    "UnknownMeasureError",
    "MeasureNameError",
    "resolve",
    "columns",
    "canonical",
    "is_registry_key",
    "key_bindings",
    "rank_of",
    "aliases_of",
]


def _profiles():
    """The profiles of the registry (core/profiles): the built-ins and those
    loaded in this process, made on first use."""
    _watch_profiles()
    return tuple(profiles.REGISTRY.values())


def _profile(profile):
    """The Profile of ``profile`` (a name, an evaluator file, or a Profile
    itself): the one place this module looks a profile up."""
    _watch_profiles()
    return profiles.get_profile(profile)


_WATCHING: list = []
_WATCH_LOCK = threading.Lock()


def _watch_profiles() -> None:
    """From the first look at the registry on: its lists made again when a
    profile is added (profiles.on_change); nothing is made from it before.
    Asked for once, by the first of the threads that look at once."""
    if _WATCHING:
        return
    with _WATCH_LOCK:
        if not _WATCHING:
            profiles.on_change(forget_profiles)
            _WATCHING.append(True)


def forget_profiles() -> None:
    """A profile was added to the registry (an evaluator file loaded): the
    registry's lists are made again when next asked."""
    _ALL.clear()
    _SHAPES.clear()


def all_measures() -> tuple[Measure, ...]:
    """Every measure: :data:`BASE_MEASURES`, then each profile's own."""
    # made again only when a tuple it is made of is another one (a test's
    # patched registry); a list's `in` compares every field of every
    # measure, and the command line asks a few hundred times
    parts = (BASE_MEASURES, *(p.measures for p in _profiles()))
    # (parts, registry) read and kept as one pair: another thread's registry
    # made (or forgotten) between two reads is never mixed with this one's
    made = _ALL.get("made")
    if made is not None and len(made[0]) == len(parts) and all(map(operator.is_, made[0], parts)):
        return made[1]
    out = list(BASE_MEASURES)
    for measures in parts[1:]:
        out += [m for m in measures if m not in out]
    registry = tuple(out)
    _ALL["made"] = (parts, registry)
    return registry


#: "made": (the tuples the registry was made of, the registry); "aliases": the same of
#: all_aliases
_ALL: dict = {}


def owner(item):
    """The profile that alone computes a measure (or that an alias belongs
    to), None for the measures and names of every profile."""
    for p in _profiles():
        if item in p.measures or item in p.aliases:
            return p
    return None


def _profile_measures(profile) -> tuple[Measure, ...]:
    if profile is None:
        return all_measures()
    return BASE_MEASURES + tuple(_profile(profile).measures)


def expand(ranks: Sequence[int], profile=DEFAULT_PROFILE) -> list[ConcreteMeasure]:
    """The concrete measures (table columns) for the given @K ranks, in
    registry order: those of every profile and those of ``profile`` (a name
    or a Profile; None: every measure of the registry)."""
    return concrete(ranks, _profile_measures(profile))


def measure_by_key(key: str, ranks: Sequence[int] = (5, 10, 25, 50, 100)) -> ConcreteMeasure:
    """The measure of a registry key (or of another tool's name for it,
    :data:`ALIASES`) at these ranks; KeyError when there is none."""
    table = _by_key(tuple(ranks))
    if key in table:
        return table[key]
    try:
        return _concrete(key) or table[resolve(key)]
    except (KeyError, OptionsError):
        raise KeyError(key) from None


def _concrete(key: str) -> ConcreteMeasure | None:
    """The measure of a registry template at a rank the ranks lack
    (``p@20``), or of a name with parameters (``ndcg(ideal=retrieved)@10``:
    that name is its key); None for other names."""
    for pat, m in _patterns()[0]:
        hit = pat.match(key)
        if hit and m.at_rank:
            return concrete([int(hit.group(1))], [m])[0]
    if not is_family_name(key):
        return None
    return _generic(parse(key), key)


def _generic(b: Binding, key: str) -> ConcreteMeasure:
    """A measure with parameters that no registry key names, under ``key``."""
    f = b.family
    m = Measure(
        key,
        b.label(),
        "params",
        b.definition(),
        Bound(key),
        higher_is_better=f.higher_is_better,
        is_count=f.is_count,
        short=key,
    )
    return ConcreteMeasure(
        key, m.label, m.family, m.definition, m.higher_is_better, m.is_count, m, None, key
    )


def _by_key(ranks: tuple[int, ...]) -> dict[str, ConcreteMeasure]:
    # kept while the registry is the same tuple (:func:`all_measures` makes
    # it again only when it changes): a cache keyed by the tuple itself
    # hashed every measure of it at every call (the app's tables ask
    # thousands of times when a contest is shown: 0.2 s a window)
    measures = all_measures()
    made = _BY_KEY.get(ranks)
    if made is None or made[0] is not measures:
        if len(_BY_KEY) >= 32:
            _BY_KEY.clear()
        made = _BY_KEY[ranks] = (measures, {cm.key: cm for cm in expand(ranks, None)})
    return made[1]


#: ranks -> (the registry it was made from, key -> concrete measure)
_BY_KEY: dict[tuple[int, ...], tuple[tuple, dict[str, ConcreteMeasure]]] = {}


def all_aliases() -> tuple[Alias, ...]:
    """Every alias: the profiles' own first (trec_eval's names), then :data:`BASE_ALIASES`
    (the same tuple while the tuples it is made of are the same ones, as
    :func:`all_measures`)."""
    parts = (*(p.aliases for p in _profiles()), BASE_ALIASES)
    made = _ALL.get("aliases")
    if made is not None and len(made[0]) == len(parts) and all(map(operator.is_, made[0], parts)):
        return made[1]
    out: list[Alias] = []
    for aliases in parts[:-1]:
        out += [a for a in aliases if a not in out]
    registry = tuple(out) + BASE_ALIASES
    _ALL["aliases"] = (parts, registry)
    return registry


def __getattr__(name: str):
    """``MEASURES`` and ``ALIASES``: the whole registry, the profiles' own
    measures and names included (the profiles are loaded on first use)."""
    if name == "MEASURES":
        return all_measures()
    if name == "ALIASES":
        return all_aliases()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def holds_under(alias: Alias, profile) -> bool:
    """Whether an alias names its tool's measure under ``profile`` (a
    strict alias of another profile does not)."""
    if not alias.strict or profile is None:
        return True
    p = _profile(profile)
    return alias in p.aliases or owner(alias) is p


def _patterns(profile=None) -> tuple[list, list]:
    """The patterns of every key and alias of the registry, with those of
    ``profile`` (a Profile not in the registry: an evaluator file's being
    made, or one a Dask worker received)."""
    measures, aliases = all_measures(), all_aliases()
    if profile is not None and not isinstance(profile, str):
        known, named = set(measures), set(aliases)  # (each is hashable: the cache's key)
        measures += tuple(m for m in profile.measures if m not in known)
        aliases = tuple(a for a in profile.aliases if a not in named) + aliases
    return _patterns_of(measures, aliases)


#: the patterns of the last few registries (the command line asks a hundred times)
_patterns_of = PatternCache(4)


def _fill(template: str, match: re.Match) -> str:
    return template.replace("{k}", match.group(1)) if match.groups() else template


def _names(ranks: Sequence[int]) -> list[str]:
    out = [m.key for m in expand(ranks, None)]
    for a in all_aliases():
        out += [a.name.replace("{k}", str(k)) for k in ranks] if "{k}" in a.name else [a.name]
    return out


def _unknown(name: str, ranks: Sequence[int]) -> UnknownMeasureError:
    near = difflib.get_close_matches(name, _names(ranks), n=3, cutoff=0.6)
    near += [n for n in _names(ranks) if n.lower() == name.lower() and n not in near]
    hint = f"; did you mean {' or '.join(repr(n) for n in near[:3])}?" if near else ""
    head, sep, rest = name.partition("(")
    if sep and is_family_name(head.strip().lower()):  # nDCG(...): the families are lower case
        hint = f"; did you mean {head.strip().lower() + sep + rest!r} (families are lower case)?"
    return UnknownMeasureError(
        f"unknown measure {name!r}{hint} ('shrec-eval measures' lists the keys and the "
        "trec_eval / ir_measures names)"
    )


def resolve(name: str, profile: str | None = None, ranks: Sequence[int] = (5, 10)) -> str:
    """The registry key a user's name stands for: a key itself (``ap_trec_r``,
    ``p@10``, ``p@30``: any rank), an alias (``map``, ``P_10``, ``nDCG@10``,
    ``NN``) or a measure with parameters (``ft(divide=min_va)`` is ``ft_r``;
    one no key names is its canonical name, :func:`resolve_binding`).  With
    ``profile``, a name that profile does not compute, or an alias defined
    differently there, is refused saying which profile computes it.
    ``ranks`` only shape the suggestions of the error.  The key's rank
    (:func:`rank_of`) may be one the options do not have yet."""
    text = name.strip()
    keys, aliases = _patterns(profile)
    key = None
    for pat, a in aliases:
        hit = pat.match(text)
        if hit:
            key = _fill(a.key, hit)
            if not holds_under(a, profile):
                home = owner(a).name
                raise UnknownMeasureError(
                    f"{text!r} is {a.tool}'s name for {key} under --profile {home}; "
                    f"the {_name(profile)} profile's {key} is defined differently ({a.note})"
                )
            break
    for pat, m in keys:
        hit = pat.match(key or text)
        if hit:
            home = owner(m)
            if home is not None and profile is not None and m not in _profile_measures(profile):
                raise UnknownMeasureError(
                    f"measure {text!r} is computed under --profile {home.name} only "
                    f"(this is the {_name(profile)} profile)"
                )
            return _fill(m.key, hit)
    if is_family_name(text):
        return resolve_binding(parse(text), profile)
    raise _unknown(text, ranks)


# ---------------------------------------------------------------------------
# Measures with parameters (params.py, families.py): their registry keys


def _shapes(profile) -> dict:
    """Binding shape -> the registry key (template) that computes it under
    ``profile`` (None: every profile's measures as the registry declares
    them): the profile's measures, each the binding it declares or the one
    of the profile's override (trec_eval's ndcg@K).  Made again only when the
    profile or the registry is another one (a test's patched registry)."""
    p = None
    if profile is not None:
        p = _profile(profile)
    measures = all_measures()
    made = _SHAPES.get(p.name if p is not None else None)
    if made is not None and made[0] is p and made[1] is measures:
        return made[2]
    out: dict = {}
    for m in _profile_measures(p):
        b = binding_of(m, p)
        if b is not None:
            out.setdefault(b.shape(), m.key)
    _SHAPES[p.name if p is not None else None] = (p, measures, out)
    return out


_SHAPES: dict = {}


def binding_of(m: Measure, profile=None) -> Binding | None:
    """The binding a registry measure computes under ``profile`` (its
    override's, else its own; a profile's function of its own, psbtable's
    float32, still computes the measure it replaces); None for a measure
    that is no binding."""
    if profile is not None:
        own = _profile(profile).overrides.get(m.key)
        if isinstance(own, Bound):
            return own.binding
    return m.binding


def resolve_binding(b: Binding, profile=None) -> str:
    """The key of a binding under ``profile``: the registry key that
    computes it there (``ft`` is ``ft_psb``, ``ndcg(discount=log2_from_1)@10``
    is ``ndcg@10`` under trec_eval), else its canonical name, every
    parameter written where the short one is a registry key of another
    measure (under trec_eval the SHREC NDCG is
    ``ndcg(gain=grade,discount=log2_from_2,ideal=judged)@10``)."""
    shapes = _shapes(profile)
    key = shapes.get(b.shape()) or shapes.get(b.shape(template=True))
    if key is not None:
        return key.replace("{k}", str(b.at)) if isinstance(b.at, int) else key
    name = b.name()
    return b.name(full=True) if is_registry_key(name) else name


def key_bindings(profile=None) -> list[tuple[str, str]]:
    """(registry key, the binding it computes) of every measure that is a
    binding, under ``profile`` (None: every profile's measure under its own
    profile), templates with ``{k}``."""
    out = []
    for m in _profile_measures(profile):
        b = binding_of(m, profile if profile is not None else owner(m))
        if b is not None:
            out.append((m.key, b.name()))
    return out


def canonical(name: str) -> str:
    """The canonical name with parameters of a measure (what
    ``EvalOptions.measures`` holds): a name with parameters as
    :meth:`~shrec_eval.scoring.params.Binding.name` writes it, a registry key
    or alias as the binding it stands for (``map`` is ``ap``, ``ft_s21`` is
    ``ft(plus_one=true)``, ``ndcg_cut_10`` is ``ndcg(discount=log2_from_1)@10``).
    A MeasureNameError for a measure that is no binding (``adr``)."""
    text = name.strip() if isinstance(name, str) else name
    if isinstance(text, str) and is_family_name(text):
        return parse(text).name()
    key = resolve(text)
    home = None
    for pat, a in _patterns()[1]:
        if pat.match(text):
            home = owner(a)
            break
    cm = measure_by_key(key, [rank_of(key) or 1])
    b = binding_of(cm.measure, home or owner(cm.measure))
    if b is None:
        raise MeasureNameError(
            f"{text!r} ({key}) has no parameters: it is computed with its profile's columns; "
            "the measures with parameters are ('shrec-eval measures --params'): "
            + ", ".join(_families())
        )
    return b.at_rank(cm.k).name()


def _families():

    return BY_NAME


def columns(options) -> list[ConcreteMeasure]:
    """The measures a scoring computes: the registry's under the options'
    profile at their ranks (:func:`expand`), then those of
    ``options.measures`` and of the profile's columns (names with
    parameters: an evaluator file's) that no column has yet."""
    profile = getattr(options, "rules", None) or options.profile
    out = expand(options.ranks, profile)
    extra = tuple(getattr(options, "measures", ())) + tuple(getattr(profile, "params_columns", ()))
    if not extra:
        return out
    have = {m.key for m in out}
    for name in extra:
        key = resolve_binding(parse(name), profile)
        if key not in have:
            have.add(key)
            m = _concrete(key)
            assert m is not None  # a key resolve_binding made
            out.append(m)
    return out


def is_registry_key(key: str) -> bool:
    """Whether ``key`` is a registry key (of any profile, at any rank)."""
    return any(pat.match(key) for pat, _ in _patterns()[0])


def rank_of(key: str) -> int | None:
    """The rank K of a concrete @K key (``p@30`` -> 30), else None."""
    for pat, m in _patterns()[0]:
        hit = pat.match(key)
        if hit and m.at_rank:
            return int(hit.group(1))
    return None


def _name(profile) -> str:
    return profile if isinstance(profile, str) else profile.name


def aliases_of(key: str) -> list[Alias]:
    """The aliases that name a registry key or template (``p@{k}``, ``ap_trec_r``)."""
    return [a for a in all_aliases() if a.key == key]
