"""A setting a profile fixes (an option such as psbtable's remove_self, a
reading rule such as sipiran21's matrix order) asked for explicitly with
another value is refused, naming the profile's value and the one asked for,
on every face: the command line (evaluate, check, a contest file with
options written over it), contest files, the library's readers.  The same
value is fine, and a setting not asked for takes the profile's value.

Before, such a request was dropped without a word (psbtable's --keep-self
alone got a note): ``--profile sipiran21 --matrix-order listing`` scored by
id, as did a contest file's ``"matrix_order": "listing"`` and
``load_assessment(p, profile="sipiran21", matrix_order="listing")``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from shrec_eval import load_assessment, load_run
from shrec_eval.cli.parser import main as cli_main
from shrec_eval.contest import AssessmentSource, Contest, RunSource
from shrec_eval.errors import FormatError, OptionsError
from shrec_eval.options import EvalOptions


@pytest.fixture
def contest(tmp_path) -> tuple[Path, Path]:
    """Ids 0..5 listed out of order, a matrix laid out by id."""
    cla = tmp_path / "t.cla"
    cla.write_text("PSB 1\n2 6\n\na 0 3\n4\n0\n2\n\nb 0 3\n1\n5\n3\n")
    rng = np.random.default_rng(2)
    m = rng.random((6, 6)) + 1
    np.fill_diagonal(m, 0)
    run = tmp_path / "m.txt"
    run.write_text("".join(" ".join(f"{v:.4f}" for v in row) + "\n" for row in m))
    return cla, run


def _cli(*argv) -> tuple[int, str]:
    import contextlib

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = cli_main([str(a) for a in argv], out=io.StringIO())
    return code, err.getvalue()


@pytest.mark.parametrize(
    "command, profile, option, says",
    [
        ("evaluate", "sipiran21", ["--matrix-order", "listing"], "matrix order = id (it reads"),
        ("evaluate", "psbtable", ["--keep-self"], "remove self = on"),
        ("evaluate", "sipiran21", ["--psb-cutoff"], "psb class cutoff = off"),
        ("evaluate", "boli", ["--pr-interpolation", "max"], "pr interpolation = psb"),
        ("check", "sipiran21", ["--matrix-order", "listing"], "matrix order = id (it reads"),
        ("check", "psbtable", ["--keep-self"], "remove self = on"),
    ],
)
def test_the_command_line_refuses_another_value_of_a_fixed_setting(
    contest, command, profile, option, says
):
    cla, run = contest
    code, err = _cli(command, cla, run, "--profile", profile, *option)
    assert code == 2
    asked = " ".join(option)
    assert f"error: {asked}: the {profile} profile fixes {says}" in err
    value = {"--keep-self": "off", "--psb-cutoff": "on"}.get(option[0], option[-1])
    assert f"not {value}; leave {asked} out, or choose another profile" in err


@pytest.mark.parametrize(
    "profile, option",
    [
        ("sipiran21", ["--matrix-order", "id"]),
        ("sipiran21", ["--keep-self"]),
        ("psbtable", ["--psb-cutoff"]),
        ("boli", ["--pr-interpolation", "psb"]),
        ("trec_eval", ["--no-normalize-ids"]),
        ("shrec", ["--matrix-order", "listing", "--keep-self"]),
    ],
)
def test_the_same_value_or_a_free_setting_is_taken(contest, profile, option):
    cla, run = contest
    assert _cli("evaluate", cla, run, "--profile", profile, *option)[0] == 0


def _contest_file(folder: Path, cla: Path, run: Path, profile: str, **assessment) -> Path:
    path = folder / f"{profile}.json"
    path.write_text(
        json.dumps(
            {
                "version": 2,
                "assessment": {"path": str(cla), **assessment},
                "runs": [{"path": str(run)}],
                "options": {"profile": profile},
            }
        )
    )
    return path


def test_a_contest_files_matrix_order_the_profile_fixes_otherwise_is_refused(tmp_path, contest):
    cla, run = contest
    bad = _contest_file(tmp_path, cla, run, "sipiran21", matrix_order="listing")
    with pytest.raises(FormatError) as got:
        Contest.read(bad)
    text = str(got.value)
    assert text.startswith(f"{bad}: ")
    assert '"matrix_order": "listing": the sipiran21 profile fixes matrix order = id' in text
    code, err = _cli("evaluate", bad)
    assert code == 2 and '"matrix_order": "listing"' in err and "matrix order = id" in err
    # the same value, or none: the profile's
    for kept in ({"matrix_order": "id"}, {}):
        good = _contest_file(tmp_path, cla, run, "sipiran21", **kept)
        assert Contest.read(good).load_assessment().matrix_order == "id"
        assert _cli("evaluate", good)[0] == 0
    # a file read under the default profile, then --profile sipiran21 written over it
    shrec = _contest_file(tmp_path, cla, run, "shrec", matrix_order="listing")
    assert _cli("evaluate", shrec)[0] == 0
    code, err = _cli("evaluate", shrec, "--profile", "sipiran21")
    assert code == 2 and "the sipiran21 profile fixes matrix order = id" in err
    # options written over a file whose profile fixes them otherwise
    psb = _contest_file(tmp_path, cla, run, "psbtable")
    code, err = _cli("evaluate", psb, "--keep-self")
    assert code == 2 and "--keep-self: the psbtable profile fixes remove self = on" in err
    code, err = _cli("evaluate", shrec, "--matrix-order", "id", "--profile", "sipiran21")
    assert code == 0, err  # the command line's value over the file's


def test_a_session_keeps_the_users_settings_beneath_the_profile(tmp_path, contest):
    """What the app saves (a source read in listing order, the user's own
    options) is not a request: it opens under a profile that fixes them."""
    cla, run = contest
    saved = Contest(
        AssessmentSource(cla, matrix_order="listing"),
        (RunSource(run),),
        EvalOptions(profile="sipiran21", psb_class_cutoff=True),
    )
    saved.write(tmp_path / "s.json")
    back = Contest.read(tmp_path / "s.json")
    assert back.load_assessment().matrix_order == "id"
    assert _cli("evaluate", tmp_path / "s.json")[0] == 0


def test_the_librarys_readers_refuse_another_value_of_a_fixed_rule(contest):
    cla, run = contest
    with pytest.raises(OptionsError) as got:
        load_assessment(cla, profile="sipiran21", matrix_order="listing")
    assert str(got.value).startswith(
        "matrix_order='listing': the sipiran21 profile fixes matrix order = id"
    )
    with pytest.raises(OptionsError, match="normalize ids = off .*, not on"):
        load_assessment(cla, profile="trec_eval", normalize_ids=True)
    a = load_assessment(cla, profile="trec_eval", normalize_ids=False)  # the same: fine
    assert a.reading["normalize_ids"] is False
    qrels = cla.parent / "q.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    trec = cla.parent / "r.trec"
    trec.write_text("1 Q0 d1 1 1.0 r\n1 Q0 d2 2 1.0 r\n")
    q = load_assessment(qrels, profile="trec_eval")
    with pytest.raises(OptionsError, match="trec_order=False: the trec_eval profile fixes"):
        load_run(trec, q, profile="trec_eval", trec_order=False)
    assert load_run(trec, q, profile="trec_eval", trec_order=True).reading["trec_order"] is True
    # a source's own setting is the user's beneath the profile, not a request
    by_id = AssessmentSource(cla, matrix_order="listing").load("sipiran21")
    assert by_id.matrix_order == "id"
    assert load_assessment(cla, profile="sipiran21", matrix_order="id").matrix_order == "id"
