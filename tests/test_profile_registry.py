"""The profile list is written once (core/profiles/__init__.py): every front
end reads its names, labels and help from there."""

from __future__ import annotations

import argparse

import pytest
from shrec_eval.cli.parser import build_parser
from shrec_eval.contest import Contest
from shrec_eval.contest_options import OPTION_KINDS
from shrec_eval.errors import FormatError, OptionsError
from shrec_eval.options import PROFILES, EvalOptions
from shrec_eval.profiles import NAMES, REGISTRY, get_profile
from shrec_eval.service import effective_options


def test_every_built_in_profile_is_its_evaluator_file_and_says_what_it_is():
    """A built-in is its file builtin/NAME.toml (package data); what of it is
    code is named there as a hook, and the file says what and why."""
    from shrec_eval.profiles.evaluator_file import builtin_folder
    from shrec_eval.profiles.hooks import HOOKS

    files = sorted(p.stem for p in builtin_folder().glob("*.toml"))
    assert sorted(REGISTRY) == files
    for name, profile in REGISTRY.items():
        path = builtin_folder() / f"{name}.toml"
        assert profile.origin == "built in" and profile.path == str(path)
        assert profile.label and profile.help and "shared/" not in profile.source
        if profile.options:  # what it fixes comes with why
            assert profile.why
        text = path.read_text(encoding="utf-8")
        comments = "\n".join(line for line in text.splitlines() if line.lstrip().startswith("#"))
        for hook in HOOKS:
            if f'"{hook}"' in text:  # a hook that is code: its comment names it, with why
                assert hook in comments and "code" in comments.lower(), (name, hook)
    assert "shapenet17.reader" in (builtin_folder() / "shapenet17.toml").read_text()


def test_the_front_ends_list_the_registry():
    assert PROFILES == NAMES == tuple(REGISTRY)
    evaluate = build_parser()._subparsers._group_actions[0].choices["evaluate"]
    (action,) = [a for a in evaluate._actions if a.dest == "profile"]
    assert [action.type(n) for n in NAMES] == list(NAMES)  # a name, or an evaluator file
    assert action.type("mine.toml") == "mine.toml"
    with pytest.raises(argparse.ArgumentTypeError, match="did you mean trec_eval"):
        action.type("trec-eval")
    check = OPTION_KINDS["profile"][1]
    assert all(check(n) for n in NAMES) and not check(3)
    with pytest.raises(FormatError, match="unknown profile 'nope'"):
        Contest.from_dict({"assessment": {"path": "a.cla"}, "options": {"profile": "nope"}})
    for name in NAMES:
        EvalOptions(profile=name)
    with pytest.raises(OptionsError, match="unknown profile 'nope'"):
        EvalOptions(profile="nope")


@pytest.mark.parametrize("name", NAMES)
def test_effective_options_are_the_profile_applied(name):
    user = EvalOptions(profile=name, remove_self=False, pr_interpolation="max")
    eff = effective_options(user)
    profile = get_profile(name)
    for k, v in profile.options.items():
        assert getattr(eff, k) == v
    assert profile.forced(user) == {
        k: v for k, v in profile.options.items() if getattr(user, k) != v
    }
    assert effective_options(eff) == eff


# -- the registry is closed: no code outside core/profiles/ decides by a profile's name --


def _code_files():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    for folder in ("core", "shrec_gui"):
        for path in sorted((root / folder).rglob("*.py")):
            if "profiles" not in path.relative_to(root).parts:
                yield root, path


def _name_decisions(tree, names) -> list[tuple[int, str]]:
    """Comparisons with a profile's name (``== "trec_eval"``, ``in ("boli",)``,
    ``x.profile != y``) and dicts keyed by one (``{"shapenet17": ...}``)."""
    import ast

    def literal(node) -> bool:
        if isinstance(node, ast.Constant):
            return node.value in names
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return any(literal(e) for e in node.elts)
        return False

    def profile_like(node) -> bool:
        name = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
        return name in ("profile", "profiles")

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            sides = [node.left, *node.comparators]
            if any(literal(x) for x in sides) or (
                any(profile_like(x) for x in sides)
                and any(isinstance(op, (ast.Eq, ast.NotEq, ast.In, ast.NotIn)) for op in node.ops)
            ):
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Dict) and any(k is not None and literal(k) for k in node.keys):
            found.append((node.lineno, "a dict keyed by a profile's name"))
    return found


def test_no_code_outside_the_profiles_compares_a_profiles_name():
    import ast

    names = set(NAMES)
    found = []
    for root, path in _code_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for line, text in _name_decisions(tree, names):
            found.append(f"{path.relative_to(root)}:{line}: {text}")
    assert not found, "\n".join(found)


def test_the_closure_check_sees_what_it_forbids():
    import ast

    names = set(NAMES)
    for code in (
        'if options.profile == "trec_eval": pass',
        'x = profile in ("boli", "psbtable")',
        "ok = a.profile != b.profile",
        'TOOLS = {"trec_eval": "trec_eval"}',
    ):
        assert _name_decisions(ast.parse(code), names), code
    assert not _name_decisions(ast.parse("ok = profile.native is None"), names)


# -- a profile is looked up in few places: resolved once, it travels with the options --------

#: what looks a profile up by its name (or an evaluator file, or its table)
LOOKUPS = {"get_profile", "options_profile", "from_table"}


def _lookups(tree) -> list[tuple[int, str]]:
    """Calls of the registry's look-ups and subscripts of REGISTRY."""
    import ast

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", "")
            if name in LOOKUPS:
                found.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Subscript):
            v = node.value
            name = v.attr if isinstance(v, ast.Attribute) else getattr(v, "id", "")
            if name == "REGISTRY":
                found.append((node.lineno, ast.unparse(node)))
    return found


def test_a_profile_is_looked_up_in_at_most_four_places_outside_the_profiles():
    import ast

    found = []
    for root, path in _code_files():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(root)}:{n}: {t}" for n, t in _lookups(tree)]
    assert len(found) <= 4, "\n".join(found)
    # the places: the options (resolved once), a contest file's evaluator, the measures' registry
    assert {f.split(":")[0] for f in found} == {
        "core/options.py",
        "core/contest_options.py",
        "core/scoring/measures.py",
    }, found


def test_the_lookup_count_sees_what_it_counts():
    import ast

    for code in (
        "p = get_profile(options.profile)",
        "p = profiles.get_profile(name)",
        "p = REGISTRY[name]",
        "x = shrec_eval.profiles.REGISTRY['boli'].why",
    ):
        assert _lookups(ast.parse(code)), code
    assert not _lookups(ast.parse("p = options.rules.table(a, options)"))
