"""An evaluator file in the app (docs/evaluators.md): Scoring > Options' Load
evaluator file… adds its profile to the choice and chooses it, with what it
fixes greyed; a file that is not one is said (its line) and nothing
changes; the contest scored under it gives the command line's numbers, and
its session names the file."""

from __future__ import annotations

import io
import json
from dataclasses import replace
from pathlib import Path

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from guitools import wait_idle  # noqa: E402
from shrec_eval.cli.parser import main as cli_main  # noqa: E402
from shrec_eval.options import EvalOptions  # noqa: E402

from shrec_gui.window.dialogs import OptionsDialog  # noqa: E402

DEMO = Path(__file__).resolve().parents[1] / "resources" / "demo"

TRACK = """\
[evaluator]
name = "apptrack"
label = "A track of the app's test"
source = "tests/test_app_evaluator_files.py"
help = "a track whose script keeps the query in its list: NN, FT, mAP"
why = "its script never takes a query out of its own list"

[options]
remove_self = false

[table]
columns = ["nn", "ft_psb", "ap_trec_r", "ndcg(discount=log2_from_1,ideal=retrieved)"]
rank_by = "ap_trec_r"
"""


def test_load_evaluator_file_adds_its_profile_and_chooses_it(qtbot, tmp_path, monkeypatch):
    path = tmp_path / "apptrack.toml"
    path.write_text(TRACK)
    d = OptionsDialog(EvalOptions(remove_self=True))
    qtbot.addWidget(d)
    assert d.load_file.text() == "Load evaluator file…" and d.load_file.isEnabled()
    said = []
    monkeypatch.setattr("PySide6.QtWidgets.QMessageBox.warning", lambda *a: said.append(a[1:]) or 0)
    bad = tmp_path / "bad.toml"
    bad.write_text(TRACK.replace('rank_by = "ap_trec_r"', 'rank_by = "mapp"'))
    before = [d.profile.itemData(i) for i in range(d.profile.count())]
    assert d.add_evaluator_file(bad) is False
    ((title, text),) = said
    assert title == "Cannot load the evaluator file"
    assert f"{bad}, line 13: table.rank_by: unknown measure 'mapp'" in text
    assert [d.profile.itemData(i) for i in range(d.profile.count())] == before
    assert d.profile.currentData() == "shrec"
    # the good one: added, chosen, what it fixes shown greyed
    monkeypatch.setattr(
        "PySide6.QtWidgets.QFileDialog.getOpenFileName", lambda *a, **k: (str(path), "")
    )
    d.load_file.click()
    assert d.profile.currentData() == "apptrack" and "apptrack" not in before
    assert d.profile.currentText() == "apptrack: A track of the app's test"
    assert not d.remove_self.isEnabled() and not d.remove_self.isChecked()
    assert "its script never takes a query out of its own list" in d.forced.text()
    o = d.options()
    assert o.profile == "apptrack" and o.rules.path == str(path)
    assert o.remove_self is True  # the user's own choice, underneath
    d.grab().save(str(tmp_path / "options.png"))


def test_the_app_scores_under_an_evaluator_file_as_the_command_line(win, qtbot, tmp_path):
    path = tmp_path / "apptrack.toml"
    path.write_text(TRACK)
    win.quiet = True
    win.open_demo()
    wait_idle(qtbot, win, 7)
    c = win.controller
    c.set_options(replace(c.options, profile=Path(path)))
    c.score()
    wait_idle(qtbot, win, 7)
    assert all(e.result.profile == "apptrack" for e in c.entries.values())
    out = io.StringIO()
    json_path = tmp_path / "cli.json"
    code = cli_main(
        ["evaluate", str(DEMO / "contest.json"), "--profile", str(path), "--json", str(json_path)],
        out=out,
    )
    assert code == 0
    doc = json.loads(json_path.read_text())
    key = "ndcg(discount=log2_from_1,ideal=retrieved)"
    for run in doc["runs"]:
        (e,) = [e for e in c.entries.values() if e.result.run_name == run["name"]]
        for k in ("nn", "ft_psb", "ap_trec_r", key):
            assert e.result.mean(k) == run["mean"][k], (run["name"], k)
    # its session names the evaluator file, and opens under it again
    assert c.save_session(str(tmp_path / "s.json"))
    session = json.loads((tmp_path / "s.json").read_text())
    assert session["evaluator"] == "apptrack.toml" and session["options"]["profile"] == "apptrack"
