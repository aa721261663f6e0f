"""Every scoring option is defined once, in the option schema
(shrec_eval.option_schema.OPTIONS): the command line's options (flags, help,
types), the contest file's kinds, EvalOptions' checks and messages, what an
evaluator file may fix and the app's Options widgets all come from it."""

from __future__ import annotations

from dataclasses import fields

import pytest
from shrec_eval.cli.parser import build_parser
from shrec_eval.contest_options import OPTION_KINDS
from shrec_eval.errors import OptionsError
from shrec_eval.option_schema import OPTIONS, by_name
from shrec_eval.options import EvalOptions, check_field


def test_every_option_of_evaloptions_is_one_of_the_schema():
    names = [o.name for o in OPTIONS]
    assert len(names) == len(set(names))
    assert set(names) == {f.name for f in fields(EvalOptions)} - {"memory_budget", "rules"}
    assert set(OPTION_KINDS) == set(names)


def test_the_command_line_options_are_the_schemas():
    evaluate = build_parser()._subparsers._group_actions[0].choices["evaluate"]
    actions = {a.dest: a for a in evaluate._actions}
    for o in OPTIONS:
        if not o.flags:
            continue
        a = actions[o.argument]
        assert tuple(a.option_strings) == o.flags, o.name
        if o.kind != "profile":
            assert a.help == o.help, o.name
        if o.kind == "choice":
            assert tuple(a.choices) == o.choices


@pytest.mark.parametrize(
    "name, value, says",
    [
        ("curve_length", 0, "curve length must be from 1 up to"),
        ("remove_self", 1, "remove self must be true or false, not 1"),
        ("average", "mean", "unknown average 'mean'; expected one of micro, macro"),
        ("pr_levels", 20, "the precision-recall curve has 11 or 21 recall levels, not 20"),
        ("f_beta", -1.0, "the F-measure weight beta must be a positive number"),
        ("ranks", (0,), "ranks must be positive integers up to"),
    ],
)
def test_one_check_and_message_for_the_options_evaluator_files_and_contest_files(name, value, says):
    with pytest.raises(OptionsError, match=says):
        check_field(name, value)
    with pytest.raises(OptionsError, match=says):
        EvalOptions(**{name: value})
    from shrec_eval.profiles.evaluator_file import check_text

    text = (
        '[evaluator]\nname = "x"\nlabel = "x"\nsource = "x"\nhelp = "x"\nwhy = "x"\n\n'
        f"[options]\n{name} = {_toml(value)}\n"
    )
    (problem,) = check_text(text, "x.toml")
    assert problem.line == 9 and says in problem.message


def _toml(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(map(str, value)) + "]"
    return str(value)


def test_the_option_owned_by_a_profile_is_refused_under_the_others():
    assert by_name("complete_queries").owner == "trec_eval"
    EvalOptions(profile="trec_eval", complete_queries=True)
    with pytest.raises(OptionsError, match="complete queries belongs to the trec_eval profile"):
        EvalOptions(profile="shrec", complete_queries=True)
