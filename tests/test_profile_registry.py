"""The profile list is written once (core/profiles/__init__.py): every front
end reads its names, labels and help from there."""

from __future__ import annotations

import importlib

import pytest
from shrec_eval.cli import build_parser
from shrec_eval.contest import _OPTION_KINDS
from shrec_eval.errors import OptionsError
from shrec_eval.options import PROFILES, EvalOptions
from shrec_eval.profiles import NAMES, REGISTRY, get_profile
from shrec_eval.service import effective_options


def test_every_profile_is_its_module_and_says_what_it_is():
    for name, profile in REGISTRY.items():
        module = importlib.import_module(f"shrec_eval.profiles.{name}")
        assert module.PROFILE is profile and profile.name == name
        assert profile.label and profile.help and "shared/" not in profile.source
        if profile.options:  # what it fixes comes with why
            assert profile.why


def test_the_front_ends_list_the_registry():
    assert PROFILES == NAMES == tuple(REGISTRY)
    evaluate = build_parser()._subparsers._group_actions[0].choices["evaluate"]
    (action,) = [a for a in evaluate._actions if a.dest == "profile"]
    assert tuple(action.choices) == NAMES
    check = _OPTION_KINDS["profile"][1]
    assert all(check(n) for n in NAMES) and not check("nope")
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
