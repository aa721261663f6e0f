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
        (["--demo", "--profile", "nope"], "unknown profile 'nope'"),
        # an option the profile fixes otherwise: refused, both values named (f13)
        (["--demo", "--profile", "psbtable", "--keep-self"], "--keep-self: the psbtable profile"),
        (
            ["--demo", "--profile", "boli", "--pr-interpolation", "max"],
            "pr interpolation = psb (the toolkits",
        ),
    ],
)
def test_a_wrong_scoring_option_is_a_usage_error(argv, says, capsys):
    with pytest.raises(SystemExit) as exit_:
        parse_args(argv)
    assert exit_.value.code == 2
    assert says in capsys.readouterr().err


def _scored_window(qtbot, tmp_path, open_it):
    """A window (its own preferences) that ``open_it(window)`` opened, once
    every run is scored."""
    from PySide6.QtCore import QSettings

    from shrec_gui.window.main import MainWindow

    w = MainWindow(QSettings(str(tmp_path / "s.ini"), QSettings.Format.IniFormat))
    qtbot.addWidget(w)
    open_it(w)
    c = w.controller
    qtbot.waitUntil(lambda: bool(c.assessment is not None and c.entries), timeout=120000)
    qtbot.waitUntil(
        lambda: c.idle() and all(e.result is not None for e in c.entries.values()),
        timeout=120000,
    )
    assert not w.errors
    return w


def _csv_files(w) -> dict[str, bytes]:
    """summary.csv and per_query.csv of the window's results, as its report
    writes them (export_actions: the core writers, the app's ranking)."""
    from shrec_eval.outputs.summary import Summary
    from shrec_eval.outputs.tables import per_query_csv, summary_csv

    c = w.controller
    results = [e.result for e in c.readable_entries()]
    return {
        "summary.csv": summary_csv(Summary.build(results, None, c.default_rank_key())).encode(),
        "per_query.csv": per_query_csv(results).encode(),
    }


def _cli_csv(tmp_path, argv) -> dict[str, bytes]:
    assert cli_main([*argv, "--csv", str(tmp_path / "cli")], out=io.StringIO()) == 0
    return {n: (tmp_path / "cli" / n).read_bytes() for n in ("summary.csv", "per_query.csv")}


@pytest.mark.parametrize(
    "options",
    [
        ["--profile", "trec_eval", "-c", "--average", "macro", "--ranks", "4,9"],
        ["--profile", "boli", "--keep-self", "--f-beta", "2"],
    ],
    ids=lambda o: " ".join(o),
)
def test_the_demo_under_options_is_the_demo_commands(qtbot, tmp_path, options):
    """``shrec-gui --demo OPTIONS`` scores what ``shrec-eval demo OPTIONS``
    scores: the same options, the same summary.csv and per_query.csv."""
    given = parse_args(["--demo", *options]).given
    w = _scored_window(qtbot, tmp_path, lambda w: w.open_demo(given=given))
    assert w.controller.options == given[0]
    assert _csv_files(w) == _cli_csv(tmp_path, ["demo", *options])


def test_a_contest_files_own_options_give_way_to_those_written_only(qtbot, tmp_path):
    """A contest file with its own options (macro, ranks 3 and 8, beta 2)
    opened with --profile psbtable: the profile is the command line's, the
    rest the file's, in the app as in ``shrec-eval evaluate CONTEST.json``."""
    contest = Contest.read(demo_manifest())
    own = replace(contest.options, average="macro", ranks=(3, 8), f_beta=2.0)
    path = tmp_path / "contest.json"
    replace(contest, options=own).write(path)
    given = parse_args([str(path), "--profile", "psbtable"]).given
    w = _scored_window(qtbot, tmp_path, lambda w: w.open_files([str(path)], given=given))
    assert w.controller.options == replace(own, profile="psbtable")
    assert _csv_files(w) == _cli_csv(tmp_path, ["evaluate", str(path), "--profile", "psbtable"])


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


def test_the_window_opens_the_demo_under_the_options_nothing_unsaved(qtbot, tmp_path):
    """In the window, the demo opened with --profile psbtable is scored under
    psbtable.  The command line's options are how this launch reads the
    contest (as shrec-eval evaluate CONTEST.json --profile psbtable reads
    it), not a change of the user's: untouched, nothing is unsaved (quitting
    asks nothing, no autosave); a change after it is, named alone; saving
    writes the options shown."""
    given = parse_args(["--demo", "--profile", "psbtable", "--average", "macro"]).given
    w = _scored_window(qtbot, tmp_path, lambda w: w.open_demo(given=given))
    c = w.controller
    assert (c.options.profile, c.options.average) == ("psbtable", "macro")
    assert all(e.result.profile == "psbtable" for e in c.entries.values())
    assert not c.unsaved() and c.unsaved_changes() == []
    c.rename_run(next(iter(c.entries)), "Renamed")
    assert c.unsaved_changes() == ["1 run renamed"]
    assert c.save_session(str(tmp_path / "saved.json"))
    o = Contest.read(tmp_path / "saved.json").options
    assert (o.profile, o.average) == ("psbtable", "macro")
    assert not c.unsaved()


def test_the_installed_command_takes_the_profile(tmp_path):
    """The command as a user types it, in its own process: the report and
    the native files of the demo's runs under psbtable, as the command
    line's (a contest file of the demo without its shapes: no gallery)."""
    contest = Contest.read(demo_manifest())
    path = tmp_path / "contest.json"
    replace(contest, shapes=None, query_shapes=None).write(path)
    env = dict(
        os.environ, QT_QPA_PLATFORM="offscreen", SHREC_EVAL_CACHE_DIR=str(tmp_path / "cache")
    )
    p = subprocess.run(
        [sys.executable, "-m", "shrec_gui", str(path), "--profile", "psbtable"]
        + ["--export-report", str(tmp_path / "app"), "--native", str(tmp_path / "app-native")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert not (tmp_path / "app" / "gallery.html").exists()
    cli = ["evaluate", str(path), "--profile", "psbtable", "--csv", str(tmp_path / "cli")]
    assert cli_main(cli + ["--native", str(tmp_path / "cli-native")], out=io.StringIO()) == 0
    for name in ("summary.csv", "per_query.csv"):
        assert (tmp_path / "app" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    assert _tree(tmp_path / "app-native") == _tree(tmp_path / "cli-native") != {}
