"""The formats' table (shrec_eval.choices, as trec_eval's
``te_rel_info_format[]``): a new run format is one module
(tests/toy_run_format.py) plus one row, and every face knows it: detection,
``--run-format`` and the help, contest files, the app's file filter, Help
page and reader dialog, and scoring."""

from __future__ import annotations

import io
import json

import pytest
from shrec_eval import choices
from shrec_eval.choices import FormatRow, register_run_format
from shrec_eval.cli.parser import main
from shrec_eval.contest import Contest
from shrec_eval.reading.readers import detect_run_format, load_assessment, load_run

TOY = FormatRow("toy-lists", "toy rank lists (#toy-lists)", ("*.toy",), "toy_run_format")
CLA = "PSB 1\n2 4\nA 0 2\n0\n1\nB 0 2\n2\n3\n"


@pytest.fixture
def toy(tmp_path):
    """The toy format registered for one test, taken out after."""
    register_run_format(TOY)
    (tmp_path / "c.cla").write_text(CLA)
    # a perfect run for queries 0 and 2, a wrong first answer for 1 and 3
    (tmp_path / "r.toy").write_text("#toy-lists\n0: 1 2 3\n1: 2 0 3\n2: 3 0 1\n3: 0 2 1\n")
    yield tmp_path
    choices.RUN_FORMAT_TABLE.remove(TOY)
    del choices.RUN_FORMATS[TOY.name]


def run(argv) -> tuple[int, str]:
    out = io.StringIO()
    return main([str(a) for a in argv], out=out), out.getvalue()


def test_a_registered_format_is_detected_and_read(toy):
    a = load_assessment(toy / "c.cla")
    assert detect_run_format(toy / "r.toy", a) == "toy-lists"
    r = load_run(toy / "r.toy", a)
    assert r.format == "toy-lists" and len(r.query_ids) == 4


def test_a_registered_format_is_scored_by_the_command_line(toy):
    code, _ = run(["evaluate", toy / "c.cla", toy / "r.toy", "--json", toy / "o.json"])
    assert code == 0
    mean = json.loads((toy / "o.json").read_text())["runs"][0]["mean"]
    assert mean["nn"] == pytest.approx(0.5)
    code, _ = run(
        ["evaluate", toy / "c.cla", toy / "r.toy", "--run-format", "toy-lists"]
        + ["--json", toy / "p.json"]
    )
    again = json.loads((toy / "p.json").read_text())["runs"][0]["mean"]
    assert code == 0 and again == mean


def test_a_registered_format_is_in_the_help_and_contest_files(toy, capsys):
    code, out = run(["evaluate", "--help"])
    assert code == 0 and "toy-lists" in out + capsys.readouterr().out
    contest = {
        "version": 3,
        "assessment": {"path": "c.cla"},
        "runs": [{"path": "r.toy", "format": "toy-lists"}],
    }
    (toy / "contest.json").write_text(json.dumps(contest))
    c = Contest.read(toy / "contest.json")
    assert c.runs[0].format == "toy-lists"


def test_a_registered_format_is_in_the_app(toy, qtbot):
    pytest.importorskip("PySide6")
    from shrec_gui.window.dialogs import ReaderDialog  # noqa: F401  (the reader dialog lists formats)
    from shrec_gui.window.help import formats_html

    assert "*.toy" in choices.run_file_filters()
    assert "toy-lists" in formats_html()
