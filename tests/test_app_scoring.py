"""The app's scoring jobs (issue "Review day, round 3": H1, M6, F5; defect
f06 of round 5): after the options or the profile change, runs added,
brought back by an undo or a redo end scored with the new options, without
F5 (the assessment read again first when the profile reads it by other
rules); a job never lets an exception out (a failure names the run, nothing
on stderr); the progress bar moves while a run is read and scored; F5 with
nothing to do says so in the status bar."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from contest_files import distances, make_classes, write_ascii_matrix, write_cla  # noqa: E402
from guitools import wait_idle  # noqa: E402
from shrec_eval.contest import AssessmentSource, RunSource  # noqa: E402
from shrec_eval.errors import ShrecEvalError  # noqa: E402
from shrec_eval.profiles import get_profile  # noqa: E402

DEMO = Path(__file__).resolve().parents[1] / "resources" / "demo"

#: the profiles a switch from shrec goes to: trec_eval and sipiran21 read the
#: assessment by other rules (ids as written, matrices by id), psbtable and
#: boli fix options and run rules
PROFILES = ["trec_eval", "psbtable", "boli", "sipiran21"]


@pytest.fixture
def small(tmp_path):
    """A contest every profile scores: 40 models with ids 0..39 (sipiran21
    reads matrices by id) in five classes, and three ASCII matrices."""
    classes = make_classes((0, 8, 8, 0, 8, 8, 8))
    cla = write_cla(tmp_path / "models.cla", classes)
    runs = []
    for seed in range(3):
        runs.append(
            write_ascii_matrix(tmp_path / f"run{seed}.txt", distances(40, 40, seed), fmt="{:.3f}")
        )
    return cla, runs


def _open(win, qtbot, cla, runs):
    win.quiet = True
    c = win.controller
    c.open_assessment(AssessmentSource(str(cla)))
    qtbot.waitUntil(lambda: c.assessment is not None and c.idle(), timeout=20000)
    c.add_runs([RunSource(str(r)) for r in runs])
    wait_idle(qtbot, win, len(runs))
    assert all(e.result.profile == "shrec" for e in c.entries.values())
    return c


def _scored_with(win, qtbot, profile: str, n: int, names=None) -> None:
    """The runs ``names`` (None: every run) end scored with the options now
    chosen, under ``profile``, no F5 pressed; ``n`` runs; nothing went wrong."""
    c = win.controller

    def runs():
        return [e for e in c.entries.values() if names is None or e.name in names]

    qtbot.waitUntil(
        lambda: (
            not c.opening()
            and c.idle()
            and len(c.entries) == n
            and all(c.is_current(e.result) for e in runs())
        ),
        timeout=30000,
    )
    wait_idle(qtbot, win, n)
    assert [e.result.profile for e in runs()] == [profile] * len(runs())
    assert len(runs()) == (n if names is None else len(names))
    assert all(e.error is None for e in c.entries.values())
    assert win.errors == []
    if not win.status_label.text().startswith(("Undid", "Redid")):  # (nothing to score)
        current = sum(c.is_current(e.result) for e in c.entries.values())
        assert win.status_label.text() == f"{current} of {n} runs scored with the current options."


def _others_stale_or_read_again(c, profile: str, names) -> None:
    """Under a profile that reads the assessment by other rules every run was
    read and scored again; under the others the runs not touched keep their
    stale results (F5 scores them, as the Summary says)."""
    others = [e for e in c.entries.values() if e.name not in names]
    if profile in ("trec_eval", "sipiran21"):
        assert all(c.is_current(e.result) for e in others)
    else:
        assert others and all(e.result.profile == "shrec" for e in others)


def _no_traceback(capfd) -> None:
    err = capfd.readouterr().err
    assert "Traceback" not in err and "Error" not in err, err


@pytest.mark.parametrize("profile", PROFILES)
def test_a_run_added_after_a_profile_switch_is_scored_under_it(win, qtbot, capfd, small, profile):
    """f06: the run added after the switch was scored against the assessment
    read by the old rules (trec_eval, sipiran21: a ReadingError escaped the
    job, a traceback on stderr, the run left '…'); now the assessment is read
    again first and every run scored with the new profile, without F5."""
    cla, runs = small
    c = _open(win, qtbot, cla, runs[:2])
    c.set_options(replace(c.options, profile=profile))  # results stale, F5 not pressed
    c.add_runs([RunSource(str(runs[2]), name="added")])
    _scored_with(win, qtbot, profile, 3, ["added"])
    _others_stale_or_read_again(c, profile, ["added"])
    # the assessment as the profile reads it (trec_eval: ids as written; sipiran21: by id)
    rules = get_profile(profile).reading
    assert {k: v for k, v in c.assessment.reading.items() if k in rules} == {
        k: v for k, v in rules.items() if k in c.assessment.reading
    }
    _no_traceback(capfd)


@pytest.mark.parametrize("profile", PROFILES)
def test_a_removal_undone_after_a_profile_switch_is_scored_under_it(
    win, qtbot, capfd, small, profile
):
    cla, runs = small
    c = _open(win, qtbot, cla, runs)
    c.set_options(replace(c.options, profile=profile))
    first = next(iter(c.entries))
    name = c.entries[first].name
    c.remove([first])
    win.menus.undo_action.trigger()
    _scored_with(win, qtbot, profile, 3, [name])
    _others_stale_or_read_again(c, profile, [name])
    _no_traceback(capfd)


@pytest.mark.parametrize("profile", PROFILES)
def test_runs_added_while_the_switch_reads_the_assessment_and_redone_are_scored(
    win, qtbot, capfd, small, profile
):
    """The Options dialog's way (undoable, scored at once): a run added at
    once (the assessment may still be read again for the profile: the run
    waits for it, it is not dropped), a run removed meanwhile stays removed;
    then the add undone and redone, and the switch undone and redone."""
    cla, runs = small
    c = _open(win, qtbot, cla, runs[:2])
    c.change_options(replace(c.options, profile=profile))
    c.add_runs([RunSource(str(runs[2]), name="added")])
    c.remove([next(iter(c.entries))])  # while it is read: it stays removed
    _scored_with(win, qtbot, profile, 2)
    assert "added" in [e.name for e in c.entries.values()]
    win.menus.undo_action.trigger()  # the removal
    win.menus.undo_action.trigger()  # the add
    _scored_with(win, qtbot, profile, 2)
    win.menus.redo_action.trigger()  # the add again
    _scored_with(win, qtbot, profile, 3)
    win.menus.undo_action.trigger()
    win.menus.undo_action.trigger()  # the switch: back to shrec
    _scored_with(win, qtbot, "shrec", 2)
    win.menus.redo_action.trigger()  # the switch again (undo waits while it reads the assessment)
    qtbot.waitUntil(lambda: not c.opening(), timeout=20000)
    win.menus.redo_action.trigger()  # the add again
    _scored_with(win, qtbot, profile, 3)
    _no_traceback(capfd)


def test_a_reading_stopped_leaves_the_contest_as_it_was_and_the_next_run_scored(
    win, qtbot, capfd, small, monkeypatch
):
    """Esc while the assessment is read again for the profile: the contest
    stays as it was (undo and redo work again), a run added meanwhile waits
    for F5, and the next run added reads it again and is scored."""
    from shrec_eval.contest import AssessmentSource as Source

    cla, runs = small
    c = _open(win, qtbot, cla, runs[:1])
    assessment = c.assessment
    real = Source.load

    def slow(self, *args, **kwargs):
        import time

        time.sleep(0.5)
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Source, "load", slow)
    c.change_options(replace(c.options, profile="trec_eval"))
    c.add_runs([RunSource(str(runs[1]), name="meanwhile")])
    assert c.opening()
    c.cancel()
    qtbot.waitUntil(lambda: c.idle() and not c.opening(), timeout=20000)
    assert c.assessment is assessment and win.controller.history.blocked() is None
    waiting = [e for e in c.entries.values() if e.name == "meanwhile"]
    assert waiting and waiting[0].result is None and waiting[0].error is None
    monkeypatch.undo()
    c.add_runs([RunSource(str(runs[2]), name="next")])
    _scored_with(win, qtbot, "trec_eval", 3)
    _no_traceback(capfd)


@pytest.mark.parametrize("mode", ["add", "undo"])
def test_the_demo_switched_to_trec_eval_scores_the_run_added_or_restored(win, qtbot, capfd, mode):
    """repro4 f06 itself, on the demo."""
    win.quiet = True
    win.open_demo()
    wait_idle(qtbot, win, 7)
    c = win.controller
    c.set_options(replace(c.options, profile="trec_eval"))
    if mode == "add":
        c.add_runs([RunSource(str(DEMO / "spectralnet.txt"), name="added")])
    else:
        c.remove([next(iter(c.entries))])
        win.menus.undo_action.trigger()
    n = 8 if mode == "add" else 7
    _scored_with(win, qtbot, "trec_eval", n)
    assert c.assessment.reading["normalize_ids"] is False  # read again: ids as written
    _no_traceback(capfd)


def test_a_bad_run_added_after_a_switch_says_so_naming_it(win, qtbot, capfd, small):
    cla, runs = small
    c = _open(win, qtbot, cla, runs[:2])
    c.set_options(replace(c.options, profile="trec_eval"))
    bad = Path(cla).parent / "broken.txt"
    bad.write_text("1 2 3\n4 5 6\n7 8 9\n")
    c.add_runs([RunSource(str(bad), format="ascii-matrix")])
    qtbot.waitUntil(lambda: c.idle() and not c.opening() and bool(win.errors), timeout=30000)
    wait_idle(qtbot, win)
    (entry,) = [e for e in c.entries.values() if e.error is not None]
    assert entry.name == "broken" and "row 1 has 3 values; 40 were expected" in entry.error
    assert win.errors[-1].startswith("broken: ") and "broken.txt" in win.errors[-1]
    # the other runs scored under trec_eval all the same
    assert [e.result.profile for e in c.entries.values() if e.error is None] == ["trec_eval"] * 2
    assert "2 of 3 runs scored with the current options; 1 could not be read" in (
        win.status_label.text()
    )
    _no_traceback(capfd)


def test_a_profile_that_cannot_read_the_assessment_names_the_runs_not_scored(win, qtbot, capfd):
    """sipiran21 reads matrices by id: the demo's ids (q01...) cannot be;
    the run added says why it is not scored, the others keep their results."""
    win.quiet = True
    win.open_demo()
    wait_idle(qtbot, win, 7)
    c = win.controller
    before = {e.name: e.result for e in c.entries.values()}
    c.set_options(replace(c.options, profile="sipiran21"))
    c.add_runs([RunSource(str(DEMO / "spectralnet.txt"), name="added")])
    qtbot.waitUntil(lambda: c.idle() and not c.opening() and bool(win.errors), timeout=30000)
    wait_idle(qtbot, win)
    added = [e for e in c.entries.values() if e.name == "added"][0]
    assert added.result is None and added.error.startswith("not scored: the sipiran21 profile")
    assert "0..29" in added.error
    assert "never scored: added" in win.errors[-1] and "0..29" in win.errors[-1]
    assert {e.name: e.result for e in c.entries.values() if e.name != "added"} == before
    _no_traceback(capfd)


def test_no_exception_escapes_a_job(win, qtbot, capfd, small, monkeypatch):
    """Whatever a job raises (here a defect inside the scoring service) ends
    as a failure of each of its runs, named in the window; nothing on stderr,
    and the app goes on scoring."""
    import shrec_gui.workers.scoring as worker

    cla, runs = small
    c = _open(win, qtbot, cla, runs[:1])
    real = worker.score_runs

    def broken(*args, **kwargs):
        raise KeyError("a defect")
        yield  # a generator, as the service's

    monkeypatch.setattr(worker, "score_runs", broken)
    c.add_runs([RunSource(str(runs[1]), name="second"), RunSource(str(runs[2]), name="third")])
    qtbot.waitUntil(lambda: c.idle() and bool(win.errors), timeout=20000)
    wait_idle(qtbot, win)
    errors = {e.name: e.error for e in c.entries.values() if e.error is not None}
    assert errors == {n: "unexpected KeyError: 'a defect'" for n in ("second", "third")}
    assert "second: unexpected KeyError" in win.errors[-1]
    assert "third: unexpected KeyError" in win.errors[-1]
    _no_traceback(capfd)
    # a reader's error raised before any run (a profile's check) says so as well
    monkeypatch.setattr(worker, "score_runs", real)

    def check(*args, **kwargs):
        raise ShrecEvalError("read by other rules")

    monkeypatch.setattr(type(get_profile("shrec")), "check_reading", check)
    win.errors.clear()
    c.add_runs([RunSource(str(runs[2]), name="fourth")])
    qtbot.waitUntil(lambda: c.idle() and bool(win.errors), timeout=20000)
    assert win.errors[-1].startswith("fourth: read by other rules")
    monkeypatch.undo()
    c.score()  # F5 tries the failed runs again: every run scored
    wait_idle(qtbot, win, 4)
    _no_traceback(capfd)


def test_progress_moves_while_a_run_is_read_and_scored(win, qtbot, tmp_path, monkeypatch):
    """M6: the bar moved only once a run was read (0% for the whole reading
    of a large text matrix); now it follows the bytes read (the first half
    of the run's share), then the queries scored, and never goes back."""
    import shrec_gui.workers.scoring as worker

    n = 1000
    cla = write_cla(tmp_path / "big.cla", make_classes((0, 200, 200, 0, 200, 200, 200)))
    rows = np.random.default_rng(3).permutation(n * n).reshape(n, n).tolist()
    run = tmp_path / "big.txt"  # 7 MB: several blocks read
    run.write_text("\n".join(" ".join(map(str, r)) for r in rows) + "\n")
    win.quiet = True
    c = win.controller
    c.open_assessment(AssessmentSource(str(cla)))
    qtbot.waitUntil(lambda: c.assessment is not None and c.idle(), timeout=20000)
    seen, texts = [], []
    c.progress.connect(seen.append)
    c.status.connect(texts.append)
    monkeypatch.setattr(worker, "PROGRESS_EVERY", 0.0)  # every block read, not 20 a second
    c.add_runs([RunSource(str(run), format="ascii-matrix")])
    wait_idle(qtbot, win, 1, timeout=60000)
    values = [v for v in seen if v >= 0]
    assert values == sorted(values), values  # never back
    assert len({v for v in values if 0 < v < 500}) >= 3, values  # reading
    assert [v for v in values if 500 <= v < 1000], values  # scoring
    assert seen[-1] == -1 and values[-1] == 1000
    assert texts.index("Reading big (1 of 1)") < texts.index("Scoring big (1 of 1)", 2)


def test_the_bar_moves_at_most_every_100_ms_to_the_latest_value_and_hides_at_once(
    win, qtbot, monkeypatch
):
    """QProgressBar.setValue repaints the bar at once: a job's steps, up to
    30 a second, cost a fifth of the GUI thread while the demo was scored.
    The bar (JobProgress) takes the first step at once, then the latest step
    at most every MOVE_MS, and the job's end (-1) hides it at once."""
    shown = []
    real = win.progress.setValue
    monkeypatch.setattr(win.progress, "setValue", lambda v: shown.append(v) or real(v))
    for v in range(0, 1000, 10):
        win.controller.progress.emit(v)
    assert shown == [0] and win.progress.isVisible()
    qtbot.waitUntil(lambda: len(shown) == 2, timeout=2000)
    assert shown == [0, 990] and win.progress.value() == 990  # the latest, not each
    win.controller.progress.emit(1000)  # the timer has ended: at once
    win.controller.progress.emit(-1)  # the end: at once, and nothing after it
    assert shown == [0, 990, 1000, 0] and not win.progress.isVisible()
    qtbot.wait(win.progress.MOVE_MS * 2)
    assert shown == [0, 990, 1000, 0] and win.progress.value() == 0


def test_f5_with_nothing_to_do_says_so(win, qtbot, small):
    win.quiet = True
    c = win.controller
    c.score()  # nothing open: said in the status bar, no dialog
    assert win.status_label.text().startswith("Nothing to score: open an assessment")
    assert win.errors == []
    cla, runs = small
    c = _open(win, qtbot, cla, runs)
    results = {k: e.result for k, e in c.entries.items()}
    c.score()
    wait_idle(qtbot, win, 3)
    assert win.status_label.text() == (
        "Nothing to score (no option or file changed): 3 of 3 runs scored with the current options."
    )
    assert {k: e.result for k, e in c.entries.items()} == results  # the same objects
    # a file changed: that run only is read and scored again
    Path(runs[1]).write_text(Path(runs[2]).read_text() + "\n")
    c.score()
    wait_idle(qtbot, win, 3)
    again = {k: e.result is results[k] for k, e in c.entries.items()}
    assert list(again.values()) == [True, False, True]
    assert win.status_label.text() == "3 of 3 runs scored with the current options."


def test_the_curves_means_are_made_in_the_worker_not_by_the_window(win, qtbot, small):
    """A curve's means are made when first read (the library's way: the
    command line's trec_eval text reads none); the app's scoring worker
    reads them before it hands the result over, so that the window never
    makes them when a tab first draws a curve (80,000 queries: a second)."""
    cla, runs = small
    win.quiet = True
    c = win.controller
    c.open_assessment(AssessmentSource(str(cla)))
    qtbot.waitUntil(lambda: c.assessment is not None and c.idle(), timeout=20000)
    made = []
    # a lambda runs in the worker's thread, as the result is handed over
    c.scoring.worker.runScored.connect(
        lambda gen, key, result, run: made.append(
            {k: {"averages", "count"} <= set(vars(v)) for k, v in result.curves.items()}
        )
    )
    c.add_runs([RunSource(str(r)) for r in runs[:2]])
    wait_idle(qtbot, win, 2)
    assert len(made) == 2 and all(m and all(m.values()) for m in made), made
