"""Every profile scores in the app as on the command line (issue 20): the
status counts the runs scored under a profile that fixes options, reader
rules (trec_eval's tie order, the SHREC toolkits' own files) apply, stale
results say so until F5, the Options dialog shows what a profile fixes, and
a new assessment asks whether to keep the runs."""

from __future__ import annotations

import io
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from contest_profiles import boli_contest  # noqa: E402
from guitools import wait_idle  # noqa: E402
from PySide6.QtWidgets import QDialog  # noqa: E402
from shrec_eval.cli.parser import main as cli_main  # noqa: E402
from shrec_eval.contest import AssessmentSource, Contest, RunSource  # noqa: E402
from shrec_eval.options import EvalOptions  # noqa: E402
from shrec_eval.profiles import REGISTRY  # noqa: E402
from shrec_eval.reading.readers import load_assessment, load_run  # noqa: E402
from shrec_eval.service import score_runs  # noqa: E402

from shrec_gui.window.dialogs import OptionsDialog  # noqa: E402

DEMO = Path(__file__).resolve().parents[1] / "resources" / "demo"

# a TREC run whose two retrieved documents tie: trec_eval ranks d2 (docno
# descending) before d1, file order keeps d1 first
QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\n"
TIED = "q1 Q0 d1 1 0.5 r\nq1 Q0 d2 2 0.5 r\nq1 Q0 d3 3 0.1 r\n"


@pytest.fixture
def fresh(win, qtbot):
    win.quiet = True
    win.open_demo()
    wait_idle(qtbot, win, 7)
    return win


@pytest.mark.parametrize("profile", ["shrec", "boli", "psbtable", "trec_eval"])
def test_each_profile_scores_in_the_app(fresh, qtbot, profile):
    c = fresh.controller
    c.set_options(replace(c.options, profile=profile))
    c.score()
    wait_idle(qtbot, fresh, 7)
    assert all(c.is_current(e.result) for e in c.entries.values())
    # (shrec: F5 found nothing to do, and says so first)
    assert fresh.status_label.text().endswith("7 of 7 runs scored with the current options.")
    assert all(e.result.profile == profile for e in c.entries.values())
    assert not c.stale_entries()
    # the numbers of the command line's path (the service on the contest file
    # with that profile), run by run: the switch of profile read the files as
    # the profile reads them (trec_eval: ids as written, C's numbers)
    from shrec_eval.contest import Contest
    from shrec_eval.service import score_contest

    contest = Contest.read(DEMO / "contest.json")
    contest = replace(contest, options=replace(contest.options, profile=profile))
    _, results = score_contest(contest)
    app = {e.name: e.result for e in c.entries.values()}
    for r in results:
        for key in ("ap_trec_r", "nn", "ft_psb"):
            assert app[r.run_name].means[key] == r.means[key], (r.run_name, key)


def test_trec_eval_reader_rules_apply_in_the_app(win, qtbot, tmp_path):
    (tmp_path / "t.qrels").write_text(QRELS)
    (tmp_path / "tied.trec").write_text(TIED)
    win.quiet = True
    c = win.controller
    c.open_assessment(
        AssessmentSource(tmp_path / "t.qrels", collection_size=3),
        runs=[RunSource(tmp_path / "tied.trec")],
        options=EvalOptions(profile="trec_eval"),
    )
    wait_idle(qtbot, win, 1)
    app_value = next(iter(c.entries.values())).result.means["ap_trec_r"]
    # trec_eval's order d2, d1, d3: AP = (1/2 + 2/3) / 2; file order: (1 + 2/3) / 2
    assert app_value == pytest.approx((1 / 2 + 2 / 3) / 2)
    a = load_assessment(tmp_path / "t.qrels", collection_size=3)
    plain = load_run(tmp_path / "tied.trec", a)  # without the profile's reader settings
    (o,) = score_runs(a, [RunSource(tmp_path / "tied.trec")], EvalOptions())
    assert o.result.means["ap_trec_r"] == pytest.approx((1 + 2 / 3) / 2) and plain is not None
    out = io.StringIO()
    cli_main(
        [
            "evaluate",
            str(tmp_path / "t.qrels"),
            str(tmp_path / "tied.trec"),
            "-N",
            "3",
            "--profile",
            "trec_eval",
            "--columns",
            "ap_trec_r",
        ],
        out=out,
    )
    assert f"{app_value:.4f}" in out.getvalue()


def test_boli_reader_rules_apply_in_the_app(win, qtbot, tmp_path):
    """The toolkit's own files in the rank-list folder are skipped and a NaN
    distance read, under boli only: shrec refuses the same folder."""
    queries, target, lists = boli_contest(tmp_path)
    win.quiet = True
    c = win.controller
    c.open_assessment(
        AssessmentSource(target, queries=queries),
        runs=[RunSource(lists)],
        options=EvalOptions(profile="boli"),
    )
    wait_idle(qtbot, win, 1)
    e = next(iter(c.entries.values()))
    assert e.error is None and e.result.profile == "boli"
    c.set_options(EvalOptions())
    c.score()
    qtbot.waitUntil(lambda: c.idle() and e.error is not None, timeout=20000)
    assert "Stats_test.txt" in e.error
    wait_idle(qtbot, win)


def test_stale_results_say_so_until_f5(fresh, qtbot):
    c = fresh.controller
    c.set_options(replace(c.options, average="macro"))
    fresh.summary.refresh()
    caption = fresh.summary.rank_label.text()
    assert "Stale" in caption and "F5 scores with the new options" in caption
    assert fresh.status_label.text() == (
        "Options changed: the results of 7 runs are stale; F5 scores with the new options."
    )
    assert "micro mean" in caption  # the numbers shown are still the micro ones
    model = fresh.summary.model
    from PySide6.QtCore import Qt

    grey = model.data(model.index(0, model.column("adr")), Qt.ItemDataRole.ForegroundRole)
    assert grey is not None and grey.color().red() == 128
    c.score()
    wait_idle(qtbot, fresh, 7)
    caption = fresh.summary.rank_label.text()
    assert "Stale" not in caption and "macro mean" in caption
    assert model.data(model.index(0, model.column("adr")), Qt.ItemDataRole.ForegroundRole) is None


def test_options_dialog_shows_what_a_profile_fixes(qtbot):
    from shrec_gui.window.dialogs import OptionsDialog

    d = OptionsDialog(EvalOptions(remove_self=False))
    qtbot.addWidget(d)
    assert d.remove_self.isEnabled() and not d.remove_self.isChecked()
    d.profile.setCurrentIndex(d.profile.findData("psbtable"))
    assert not d.remove_self.isEnabled() and d.remove_self.isChecked()
    assert not d.cutoff.isEnabled() and d.cutoff.isChecked()
    assert REGISTRY["psbtable"].why in d.forced.text()
    assert "psbtable" in d.remove_self.toolTip()
    # the user's own choice stays underneath what the profile fixes
    assert d.options().remove_self is False and d.options().profile == "psbtable"
    d.profile.setCurrentIndex(d.profile.findData("shrec"))
    assert d.remove_self.isEnabled() and not d.remove_self.isChecked()
    d.profile.setCurrentIndex(d.profile.findData("boli"))
    assert not d.interp.isEnabled() and d.interp.currentData() == "psb"
    # every profile of the registry is offered, with its label
    assert [d.profile.itemData(i) for i in range(d.profile.count())] == list(REGISTRY)


@pytest.mark.parametrize("answer, kept", [(False, 0), (True, 7), (None, None)])
def test_a_new_assessment_asks_whether_to_keep_the_runs(fresh, qtbot, answer, kept):
    c = fresh.controller
    before = c.assessment
    asked = []

    def keep():
        asked.append(1)
        return answer

    c.open_files([str(DEMO / "target.cla")], keep_runs=keep)
    if kept is None:  # Cancel: nothing changes
        qtbot.waitUntil(lambda: bool(asked) and c.idle(), timeout=10000)
        assert c.assessment is before and len(c.entries) == 7
        return
    qtbot.waitUntil(lambda: c.assessment is not before, timeout=10000)
    wait_idle(qtbot, fresh)
    assert asked and len(c.entries) == kept
    # an assessment opened on its own is not saved anywhere yet: unsaved
    assert fresh.shown_title() == "SHREC evaluation — target.cla*"
    assert c.session_path is None


def test_shapenet17_is_refused_in_the_app_with_what_to_do(win, qtbot, tmp_path):
    """The app holds one assessment; shapenet17 scores each dataset against
    its own: the app says so and how to score it, and never scores other
    data under that profile (the command line refuses that too)."""
    from shrec_eval.contest import Contest
    from shrec_eval.errors import ShrecEvalError

    from shrec_gui.window.dialogs import OptionsDialog

    path = tmp_path / "sn.json"
    contest = Contest.read(DEMO / "contest.json")
    replace(contest, options=EvalOptions(profile="shapenet17", remove_self=False)).write(path)
    win.quiet = True
    win.controller.open_session(str(path))
    qtbot.waitUntil(lambda: bool(win.errors), timeout=10000)
    assert "shrec-eval evaluate TAXONOMY.csv METHOD/... --profile shapenet17" in win.errors[-1]
    assert win.controller.assessment is None
    d = OptionsDialog(EvalOptions())
    qtbot.addWidget(d)
    item = d.profile.model().item(d.profile.findData("shapenet17"))
    assert not item.isEnabled()
    a = load_assessment(DEMO / "target.cla", queries=DEMO / "queries.cla")
    with pytest.raises(ShrecEvalError, match="method folders"):
        list(score_runs(a, contest.runs[:1], EvalOptions(profile="shapenet17")))


def test_switching_to_trec_eval_and_back_reads_the_files_again(fresh, qtbot):
    """trec_eval reads ids as written and numbers as C does; switching to it
    and back in the app reads the contest again each way, and the session
    stays open."""
    c = fresh.controller
    before = {e.name: e.result.means for e in c.entries.values()}
    session = c.session_path
    for profile in ("trec_eval", "shrec"):
        c.set_options(replace(c.options, profile=profile))
        c.score()
        qtbot.waitUntil(
            lambda p=profile: all(
                e.result is not None and e.result.profile == p for e in c.entries.values()
            ),
            timeout=30000,
        )
        wait_idle(qtbot, fresh, 7)
        # the assessment read again by the profile's rules (trec_eval: ids as written)
        assert c.assessment.reading["normalize_ids"] == (profile != "trec_eval")
    assert {e.name: e.result.means for e in c.entries.values()} == before
    assert c.session_path == session


def test_profile_is_scored_named_and_saved(win, qtbot, monkeypatch, tmp_path):
    win.open_demo()
    wait_idle(qtbot, win, 7)
    assert "profile <b>shrec</b>" in win.summary.rank_label.text()
    before = {e.name: e.result.mean("ft_psb") for e in win.controller.entries.values()}

    def fill(self):
        self.profile.setCurrentIndex(self.profile.findData("psbtable"))
        self.average.setCurrentIndex(self.average.findData("macro"))
        self.f_beta.setValue(2.0)
        return QDialog.DialogCode.Accepted

    monkeypatch.setattr(OptionsDialog, "exec", fill)
    win.options_dialog()
    qtbot.waitUntil(
        lambda: all(
            e.result is not None and e.result.options.profile == "psbtable"
            for e in win.controller.entries.values()
        ),
        timeout=30000,
    )
    wait_idle(qtbot, win, 7)
    after = {e.name: e.result.mean("ft_psb") for e in win.controller.entries.values()}
    assert after != before  # macro averaging over the demo's unequal classes moves FT
    text = win.summary.rank_label.text()
    assert "profile <b>psbtable</b>" in text and "macro mean" in text and "--" not in text
    assert win.summary.grab().save(str(tmp_path / "summary_profile.png"))
    path = tmp_path / "s.json"
    assert win.controller.save_session(str(path))
    o = Contest.read(path).options
    assert (o.profile, o.average, o.f_beta) == ("psbtable", "macro", 2.0)


@pytest.mark.parametrize("profile", ["psbtable"])
def test_export_after_a_profile_change_scores_first_and_writes_the_command_lines_files(
    fresh, qtbot, tmp_path, profile
):
    """Export report and native files right after the profile changed, no F5:
    the runs are scored with the new profile first (trec_eval reads the files
    again by its rules), then the folders are those of `shrec-eval demo
    --profile`: the same summary.csv and per_query.csv, the same native files."""
    c = fresh.controller
    c.set_shapes(None)  # no gallery (its thumbnails are other tests'): the tables
    c.set_options(replace(c.options, profile=profile))
    assert c.stale_entries()
    done: list = []
    fresh.exports.folderDone.connect(lambda what, folder, err: done.append((what, err)))
    fresh.exports.export_report(str(tmp_path / "app"))
    assert "scoring the runs with the current options first" in (fresh.status_label.text().lower())
    native = REGISTRY[profile].native is not None
    if native:  # a second export asked for while the first waits: both follow
        fresh.exports.export_native(str(tmp_path / "app-native"))
        qtbot.waitUntil(lambda: ("native", "") in done, timeout=180000)
    qtbot.waitUntil(lambda: ("report", "") in done, timeout=180000)
    assert not c.stale_entries() and all(e.result.profile == profile for e in c.entries.values())
    cli = ["demo", "--profile", profile, "--csv", str(tmp_path / "cli")]
    assert (
        cli_main(
            cli + (["--native", str(tmp_path / "cli-native")] if native else []), out=io.StringIO()
        )
        == 0
    )
    for name in ("summary.csv", "per_query.csv"):
        assert (tmp_path / "app" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes()
    if native:

        def files(root):
            return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())

        names = files(tmp_path / "cli-native")
        assert names and names == files(tmp_path / "app-native")
        for n in names:
            assert (tmp_path / "app-native" / n).read_bytes() == (
                tmp_path / "cli-native" / n
            ).read_bytes(), n


def test_an_export_waiting_for_scoring_that_is_stopped_says_so(fresh, qtbot, tmp_path):
    c = fresh.controller
    c.set_options(replace(c.options, average="macro"))
    done: list = []
    fresh.exports.folderDone.connect(lambda what, folder, err: done.append((what, err)))
    fresh.exports.export_report(str(tmp_path / "r"))
    c.cancel()
    qtbot.waitUntil(lambda: bool(done), timeout=60000)
    what, err = done[0]
    if err:  # stopped before every run was scored again: nothing written, and why
        assert what == "report" and "press F5, then export again" in err
        assert not (tmp_path / "r").exists()
    else:  # (scoring had finished before the cancel): the report is whole
        assert (tmp_path / "r" / "summary.csv").is_file()
