"""M9: one naming rule for a run from the moment it is added, the command
line's: the name given, else its reader's (a TREC run's tag), else its
path's without the extension (a folder's whole name).  Waiting, scored,
renamed and undone, a run never comes back as "DNE.run1.txt"."""

from __future__ import annotations

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import wait_idle  # noqa: E402
from shrec_eval.contest import AssessmentSource, Contest, RunSource  # noqa: E402
from shrec_eval.reading.formats.source import default_name  # noqa: E402
from shrec_eval.service import score_contest  # noqa: E402

CLA = "PSB 1\n2 4\n\na 0 2\n0\n1\n\nc 0 2\n2\n3\n"
MATRIX = "0.0 1.0 2.0 3.0\n1.0 0.0 2.0 3.0\n2.0 3.0 0.0 1.0\n3.0 2.0 1.0 0.0\n"
#: a TREC run whose tag is not its file's name
TREC = "".join(
    f"{q} Q0 {d} {r} {-r}.0 mytag\n" for q in range(4) for r, d in enumerate(range(4), start=1)
)


@pytest.fixture
def contest(tmp_path):
    (tmp_path / "a.cla").write_text(CLA)
    (tmp_path / "DNE.run1.txt").write_text(MATRIX)
    (tmp_path / "alice.trec").write_text(TREC)
    lists = tmp_path / "lists.v2"  # a folder of rank lists, a dot in its name
    lists.mkdir()
    for q in range(4):
        (lists / f"{q}.txt").write_text("".join(f"{d} {abs(d - q)}.0\n" for d in range(4)))
    return tmp_path


def command_line_names(contest, *runs) -> list[str]:
    """The names the command line's tables give (the scoring service's)."""
    c = Contest(AssessmentSource(contest / "a.cla"), tuple(RunSource(contest / r) for r in runs))
    return [r.run_name for r in score_contest(c)[1]]


def opened(win, qtbot, contest, runs):
    win.quiet = True
    c = win.controller
    c.open_assessment(AssessmentSource(contest / "a.cla"), runs=runs)
    qtbot.waitUntil(lambda: c.assessment is not None, timeout=10000)
    return c


def test_a_run_is_named_as_the_command_line_names_it_waiting_and_scored(win, qtbot, contest):
    c = opened(win, qtbot, contest, [])
    wait_idle(qtbot, win)
    files = ["DNE.run1.txt", "alice.trec", "lists.v2"]
    c.add_runs([RunSource(contest / f) for f in files])
    waiting = [e.name for e in c.entries.values()]
    assert all(e.result is None for e in c.entries.values())
    assert waiting == ["DNE.run1", "alice", "lists.v2"]  # the path's name, no extension
    wait_idle(qtbot, win, 3)
    scored = [e.name for e in c.entries.values()]
    assert scored == command_line_names(contest, *files) == ["DNE.run1", "mytag", "lists.v2"]
    assert [default_name(contest / f) for f in files] == waiting


def test_undoing_a_rename_brings_back_the_same_name(win, qtbot, contest):
    c = opened(win, qtbot, contest, [])
    wait_idle(qtbot, win)
    c.add_runs([RunSource(contest / "DNE.run1.txt")])
    (key,) = c.entries
    c.rename_run(key, "Renamed while waiting")  # read under that name: its own is not known
    assert c.entries[key].name == "Renamed while waiting"
    wait_idle(qtbot, win, 1)
    win.menus.undo_action.trigger()
    wait_idle(qtbot, win, 1)
    assert [e.name for e in c.entries.values()] == ["DNE.run1"]
    win.menus.redo_action.trigger()
    wait_idle(qtbot, win, 1)
    assert [e.name for e in c.entries.values()] == ["Renamed while waiting"]
    c.rename_run(next(iter(c.entries)), "")  # empty: the name its file gives
    wait_idle(qtbot, win, 1)
    assert [e.name for e in c.entries.values()] == ["DNE.run1"]


def test_a_run_read_under_a_name_shows_its_tag_once_the_name_goes(win, qtbot, contest):
    """A session names its runs: a TREC run renamed to nothing shows its tag
    (its reader's name, known from its one reading), not its file's name."""
    c = opened(win, qtbot, contest, [RunSource(contest / "alice.trec", name="Alice")])
    wait_idle(qtbot, win, 1)
    (key,) = c.entries
    assert c.entries[key].name == "Alice" and c.entries[key].own_name == "mytag"
    c.rename_run(key, "")
    assert not c.busy  # nothing read again
    (e,) = c.entries.values()
    assert e.name == "mytag" and e.result.run_name == "mytag"
    win.menus.undo_action.trigger()
    wait_idle(qtbot, win, 1)
    assert [e.name for e in c.entries.values()] == ["Alice"]
