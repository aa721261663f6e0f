"""``shrec-gui`` takes the scoring options of ``shrec-eval`` (--profile,
--average, --ranks, trec_eval's -c ...), defined once for both commands:
``shrec-gui --demo --profile psbtable --export-report DIR`` writes what
``shrec-eval demo --profile psbtable --report DIR`` writes, and a contest
file opened with them is scored as ``shrec-eval evaluate CONTEST.json
--profile ...`` scores it (the options written over the file's own).

Before, ``shrec-gui`` had no --profile: the app could be compared with the
command line under another profile only by writing a contest file, and
``shrec-gui --demo --profile psbtable`` failed with a usage error."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from shrec_eval.cli.parser import main as cli_main  # noqa: E402
from shrec_eval.contest import Contest  # noqa: E402
from shrec_eval.resources import demo_manifest  # noqa: E402

from shrec_gui.app import parse_args  # noqa: E402
from shrec_gui.headless import export  # noqa: E402

_KEEP: list = []  # headless windows, alive to the end of the session (guitools.retire)


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


def test_the_scoring_options_are_parsed_as_the_command_line_parses_them():
    assert parse_args(["--demo"]).given is None
    options, names = parse_args(["--demo", "--profile", "boli"]).given
    assert names == {"profile"} and options.profile == "boli"
    options, names = parse_args(
        ["x.json", "--profile", "trec_eval", "-c", "--average", "macro", "--ranks", "3,7"]
    ).given
    assert names == {"profile", "complete_queries", "average", "ranks"}
    assert (options.complete_queries, options.average, options.ranks) == (True, "macro", (3, 7))


@pytest.mark.parametrize(
    "argv, says",
    [
        (["--demo", "--native", "n"], "--native goes with --export-report"),
        (["--smoke-test", "x.png", "--profile", "boli"], "--smoke-test scores the demo as it is"),
        (["--demo", "--ranks", "0"], "--ranks"),
        (["--demo", "--profile", "nope"], "invalid choice: 'nope'"),
    ],
)
def test_a_wrong_scoring_option_is_a_usage_error(argv, says, capsys):
    with pytest.raises(SystemExit) as exit_:
        parse_args(argv)
    assert exit_.value.code == 2
    assert says in capsys.readouterr().err


@pytest.mark.parametrize(
    "options",
    [
        ["--profile", "psbtable"],
        ["--profile", "trec_eval"],
        ["--profile", "boli"],
        ["--profile", "trec_eval", "-c", "--average", "macro"],
        ["--average", "macro", "--ranks", "4,9", "--keep-self"],
    ],
    ids=lambda o: " ".join(o),
)
def test_the_demo_under_options_is_the_demo_commands(qapp, tmp_path, options):
    """``shrec-gui --demo OPTIONS --export-report DIR [--native DIR]`` (parsed
    here, scored by the app's controller) against ``shrec-eval demo OPTIONS
    --report DIR [--native DIR]``: the same files."""
    native = "boli" in options or "psbtable" in options
    argv = ["--demo", *options, "--export-report", str(tmp_path / "app")]
    argv += ["--native", str(tmp_path / "app-native")] if native else []
    args = parse_args(argv)
    said: list[str] = []
    status = export(
        args.files,
        report=args.export_report,
        native=args.native,
        demo=args.demo,
        given=args.given,
        say=said.append,
        windows=_KEEP,
    )
    assert status == 0, said
    cli = ["demo", *options, "--report", str(tmp_path / "cli")]
    cli += ["--native", str(tmp_path / "cli-native")] if native else []
    assert cli_main(cli, out=io.StringIO()) == 0
    app, ours = _tree(tmp_path / "app"), _tree(tmp_path / "cli")
    for name in ("summary.csv", "per_query.csv"):
        assert app[name] == ours[name], name
    assert {n: b for n, b in app.items() if n in ours} == ours
    if native:
        assert _tree(tmp_path / "app-native") == _tree(tmp_path / "cli-native") != {}


def test_a_contest_files_own_options_give_way_to_those_written_only(qapp, tmp_path):
    """A contest file with its own options (macro, ranks 3 and 8) opened
    with --profile psbtable: the profile is the command line's, the rest the
    file's, in the app as in ``shrec-eval evaluate CONTEST.json``."""
    contest = Contest.read(demo_manifest())
    contest = replace(
        contest, options=replace(contest.options, average="macro", ranks=(3, 8), f_beta=2.0)
    )
    path = tmp_path / "contest.json"
    contest.write(path)
    args = parse_args([str(path), "--profile", "psbtable", "--export-report", str(tmp_path / "a")])
    said: list[str] = []
    assert export(args.files, report=args.export_report, given=args.given, say=said.append,
                  windows=_KEEP) == 0, said  # fmt: skip
    cli = ["evaluate", str(path), "--profile", "psbtable", "--report", str(tmp_path / "c")]
    assert cli_main(cli, out=io.StringIO()) == 0
    app, ours = _tree(tmp_path / "a"), _tree(tmp_path / "c")
    assert {n: b for n, b in app.items() if n in ours} == ours
    header = (tmp_path / "a" / "summary.csv").read_text().splitlines()[0]
    assert "p@3" in header.lower() or "P@3" in header  # the file's ranks were kept


def test_native_files_under_a_profile_without_them_are_refused_before_anything_is_written(
    qapp, tmp_path
):
    args = parse_args(
        ["--demo", "--profile", "trec_eval", "--export-report", str(tmp_path / "r")]
        + ["--native", str(tmp_path / "n")]
    )
    said: list[str] = []
    status = export([], report=args.export_report, native=args.native, demo=True,
                    given=args.given, say=said.append, windows=_KEEP)  # fmt: skip
    assert status == 1 and not (tmp_path / "r").exists() and not (tmp_path / "n").exists()
    assert said == [
        "shrec-gui: error: the trec_eval profile has no native output files; --native needs "
        "--profile boli or psbtable or shapenet17 or sipiran21"
    ]


def test_a_profile_the_app_does_not_open_says_the_command_that_scores_it(qapp, tmp_path):
    args = parse_args(["--demo", "--profile", "shapenet17", "--export-report", str(tmp_path)])
    said: list[str] = []
    status = export([], report=args.export_report, demo=True, given=args.given,
                    say=said.append, windows=_KEEP)  # fmt: skip
    assert status == 1
    assert said and "shrec-eval evaluate" in said[0] and "--profile shapenet17" in said[0]


def test_the_window_opens_the_demo_under_the_options_unsaved(qtbot, tmp_path):
    """In the window, the demo opened with --profile psbtable is scored under
    psbtable, and the session is unsaved: the contest file holds other options
    (saving writes the new ones)."""
    from PySide6.QtCore import QSettings

    from shrec_gui.mainwindow import MainWindow

    settings = QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat)
    w = MainWindow(settings)
    qtbot.addWidget(w)
    w.open_demo(given=parse_args(["--demo", "--profile", "psbtable", "--average", "macro"]).given)
    c = w.controller
    qtbot.waitUntil(lambda: bool(c.assessment is not None and c.entries), timeout=120000)
    qtbot.waitUntil(
        lambda: all(e.result is not None for e in c.entries.values()) and c.idle(), timeout=120000
    )
    assert (c.options.profile, c.options.average) == ("psbtable", "macro")
    assert all(e.result.profile == "psbtable" for e in c.entries.values())
    assert c.unsaved()
    assert c.unsaved_changes() == ["the scoring options (profile, average)"]
    assert c.save_session(str(tmp_path / "saved.json"))
    o = Contest.read(tmp_path / "saved.json").options
    assert (o.profile, o.average) == ("psbtable", "macro")
    assert not c.unsaved()


def test_the_installed_command_takes_the_profile(tmp_path):
    """The command as a user types it, in its own process."""
    env = dict(
        os.environ, QT_QPA_PLATFORM="offscreen", SHREC_EVAL_CACHE_DIR=str(tmp_path / "cache")
    )
    p = subprocess.run(
        [sys.executable, "-m", "shrec_gui", "--demo", "--profile", "psbtable"]
        + ["--export-report", str(tmp_path / "app"), "--native", str(tmp_path / "app-native")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    cli = ["demo", "--profile", "psbtable", "--csv", str(tmp_path / "cli")]
    assert cli_main(cli + ["--native", str(tmp_path / "cli-native")], out=io.StringIO()) == 0
    for name in ("summary.csv", "per_query.csv"):
        assert (tmp_path / "app" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    assert _tree(tmp_path / "app-native") == _tree(tmp_path / "cli-native")
