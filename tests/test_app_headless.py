"""The app without a window: the headless export says the readers' words only,
a file of no known kind is told with its line, the offscreen smoke test says
one line."""

import io
import os
import sys

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from shrec_eval.resources import demo_manifest  # noqa: E402

DEMO = demo_manifest().parent


def test_a_file_of_no_known_kind_is_told_with_its_line(tmp_path):
    """L10: a malformed TREC run dropped or added in the app says the line
    the readers looked at and what it holds, as the command line does."""
    from shrec_eval.errors import ContestFileError

    from shrec_gui.workers.scoring import classify

    bad = tmp_path / "bad.trec"
    bad.write_text("q01 Q0 12 x\nq01 Q0 13 2 -1.0 run\n")
    with pytest.raises(ContestFileError) as err:
        classify([str(bad)])
    assert err.value.line == 1
    assert str(err.value).startswith(f"{bad}, line 1: this is neither an assessment")
    assert "line 1 reads 'q01 Q0 12 x' (4 fields)" in str(err.value)


def test_headless_says_the_readers_words_only(qapp, tmp_path):
    """L11: a run that cannot be read stops a headless export with the
    reader's sentence, as the command line prints it, not the window's words
    around it ("The other results are kept.")."""
    from shrec_eval.cli.parser import main as cli_main

    from shrec_gui.headless import export

    lines = (DEMO / "viewharmonics.trec").read_text().splitlines()[:5]
    bad = tmp_path / "bad.trec"
    bad.write_text("\n".join(lines + ["q01 Q0 12 6 notanumber ViewHarmonics"]) + "\n")
    said: list[str] = []
    status = export(
        [str(DEMO / "target.cla"), str(bad)],
        report=str(tmp_path / "report"),
        say=said.append,
        windows=_KEEP,
    )
    assert status == 1 and not (tmp_path / "report").exists()
    import contextlib
    import io

    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        code = cli_main(["evaluate", str(DEMO / "target.cla"), str(bad)], out=io.StringIO())
    assert code != 0
    reader = err.getvalue().strip().removeprefix("shrec-eval: error: ")
    assert said == [f"shrec-gui: error: {reader}"]


_KEEP: list = []  # headless windows, alive to the end of the session (guitools.retire)


def _six_contest_file(tmp_path, profile: str):
    from hostile import six_contest
    from shrec_eval.contest import AssessmentSource, Contest, RunSource
    from shrec_eval.options import EvalOptions

    cla, m, _ = six_contest(tmp_path)
    path = tmp_path / "contest.json"
    Contest(AssessmentSource(cla), (RunSource(m),), EvalOptions(profile=profile)).write(path)
    return path


@pytest.mark.parametrize("which", ["native", "report"])
def test_headless_refuses_a_folder_of_other_files_before_reading_the_contest(qapp, tmp_path, which):
    """``shrec-gui CONTEST --export-report DIR --native DIR`` with a folder of
    the user's: refused in the command line's words before the contest is
    read or scored, nothing written (f04, f08)."""
    from shrec_gui.headless import export

    contest = _six_contest_file(tmp_path, "psbtable")
    paper = tmp_path / "paper"
    paper.mkdir()
    (paper / "micro.txt").write_text("mine\n")
    (paper / "notes.txt").write_text("mine\n")
    outputs = {"report": str(tmp_path / "rep"), "native": str(tmp_path / "nat")}
    outputs[which] = str(paper)
    said: list[str] = []
    windows: list = []
    status = export([str(contest)], **outputs, say=said.append, windows=windows)
    _KEEP.extend(windows)
    others = "notes.txt" if which == "native" else "micro.txt, notes.txt"
    assert status == 1 and said == [
        f"shrec-gui: error: {paper}: the folder holds other files than this output writes "
        f"({others}); choose a new or empty folder"
    ]
    assert windows[0].controller.assessment is None  # nothing was read, nothing scored
    assert sorted(os.listdir(paper)) == ["micro.txt", "notes.txt"]
    assert not (tmp_path / "rep").exists() and not (tmp_path / "nat").exists()


@pytest.mark.parametrize(
    "which, target, says",
    [
        ("native", "", "--native holds the input"),  # the contest's own folder
        ("report", "m.txt", "this is a file; --report writes a folder"),
        ("native", "/dev/null", "this is a file; --native writes a folder"),
        ("report", "nat", "--report and --native"),  # both in one folder
    ],
)
def test_headless_gate_refuses_before_reading_the_contest(qapp, tmp_path, which, target, says):
    """The rest of the gate, as the command line's, before the contest is read."""
    from shrec_gui.headless import export

    contest = _six_contest_file(tmp_path, "psbtable")
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()}
    outputs = {"report": str(tmp_path / "rep"), "native": str(tmp_path / "nat")}
    outputs[which] = target if target.startswith("/") else str(tmp_path / target)
    said: list[str] = []
    windows: list = []
    status = export([str(contest)], **outputs, say=said.append, windows=windows)
    _KEEP.extend(windows)
    assert status == 1 and len(said) == 1 and says in said[0], said
    assert windows[0].controller.assessment is None
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.is_file()} == before
    assert not (tmp_path / "rep").exists() and not (tmp_path / "nat").exists()


def test_headless_native_class_tables_stay_in_the_folder_as_the_command_lines(qapp, tmp_path):
    """sipiran21's class tables of hostile class names (f01): the app writes
    the command line's files, every one directly in the folder."""
    from hostile import sipiran21_contest
    from shrec_eval.cli.parser import main as cli_main
    from shrec_eval.contest import AssessmentSource, Contest, RunSource
    from shrec_eval.options import EvalOptions

    from shrec_gui.headless import export

    names = ["a/../../escaped", "../x", "a\\b", "Vase", "vase", "CON", "x" * 300, "c"]
    t, q, run = sipiran21_contest(tmp_path, names)
    path = tmp_path / "contest.json"
    options = EvalOptions(profile="sipiran21")
    Contest(AssessmentSource(t, queries=q), (RunSource(run),), options).write(path)
    nat = tmp_path / "out" / "nat"
    (nat / "table_a").mkdir(parents=True)
    said: list[str] = []
    status = export([str(path)], report=str(tmp_path / "rep"), native=str(nat),
                    say=said.append, windows=_KEEP)  # fmt: skip
    assert status == 0, said
    cli = ["evaluate", str(path), "--native", str(tmp_path / "cli")]
    assert cli_main(cli, out=io.StringIO()) == 0
    app = {f: (nat / f).read_bytes() for f in os.listdir(nat) if f != "table_a"}
    cli = {f: (tmp_path / "cli" / f).read_bytes() for f in os.listdir(tmp_path / "cli")}
    assert app == cli and len(app) == 2 + 2 * len(names)
    assert os.listdir(tmp_path / "out") == ["nat"] and os.listdir(nat / "table_a") == []


def test_offscreen_smoke_test_says_one_line(tmp_path):
    """The smoke test (CI runs it offscreen) prints its one line, not Qt's
    "This plugin does not support propagateSizeHints()" for every window."""
    import os
    import subprocess
    import sys

    env = dict(
        os.environ, QT_QPA_PLATFORM="offscreen", SHREC_EVAL_CACHE_DIR=str(tmp_path / "cache")
    )
    p = subprocess.run(
        [sys.executable, "-m", "shrec_gui", "--smoke-test", str(tmp_path / "pr.png")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    lines = [ln for ln in (p.stdout + p.stderr).splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("smoke test: window shown"), lines


def test_headless_starts_the_figure_processes_before_its_window(qapp, tmp_path, monkeypatch):
    """``--export-report``: the figures' processes start first (their import
    of matplotlib while the window is made and the contest scored), once:
    the export draws in them and ends them."""
    from shrec_eval.outputs.figure_jobs import FigureDrawers

    from shrec_gui.headless import export
    from shrec_gui.window.main import MainWindow

    events: list[str] = []
    made: list = []
    init, window, close = FigureDrawers.__init__, MainWindow.__init__, FigureDrawers.close

    def drawers(self, *args, **kwargs):
        events.append("drawers")
        made.append(self)
        init(self, *args, **kwargs)

    def closed(self):
        events.append("closed" if self._pool is not None else "closed again")
        close(self)

    def made_window(self, *args, **kwargs):
        events.append("window")
        window(self, *args, **kwargs)

    monkeypatch.setattr(FigureDrawers, "__init__", drawers)
    monkeypatch.setattr(FigureDrawers, "close", closed)
    monkeypatch.setattr(MainWindow, "__init__", made_window)
    contest = _six_contest_file(tmp_path, "shrec")
    windows: list = []
    status = export([str(contest)], report=str(tmp_path / "rep"), say=print, windows=windows)
    _KEEP.extend(windows)
    assert status == 0 and (tmp_path / "rep" / "figures" / "class_heatmap.png").is_file()
    assert events[:2] == ["drawers", "window"] and events.count("drawers") == 1
    assert events.count("closed") == 1 and made[0]._pool is None


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="forkserver: Linux")
def test_headless_starts_the_drawers_server_before_it_imports_the_app(tmp_path):
    """``shrec-gui --export-report``: the server the figures' processes are
    forked from starts before the app (Qt, the window's modules) is
    imported, so that its import of matplotlib runs meanwhile; the report
    is written and neither a server nor its folder is left, nor after an
    export that fails; ``shrec-gui --version`` starts none."""
    import json
    import shutil
    import subprocess
    import tempfile

    contest = _six_contest_file(tmp_path, "shrec")
    short = tempfile.mkdtemp(prefix="hs-", dir="/tmp")  # the socket's path: 107 bytes
    commands = [
        [str(contest), "--export-report", str(tmp_path / "rep")],
        [str(tmp_path / "missing.json"), f"--export-report={tmp_path / 'rep2'}"],
        ["--version"],
    ]
    env = dict(
        os.environ,
        QT_QPA_PLATFORM="offscreen",
        TMPDIR=short,
        SHREC_EVAL_CACHE_DIR=str(tmp_path / "cache"),
    )
    from hostile import early_server_probe

    probe = early_server_probe("shrec_gui.launch", "PySide6", "main(argv)")
    here = os.path.dirname(os.path.abspath(__file__))
    try:
        run = subprocess.run(
            [sys.executable, "-c", probe, here, json.dumps(commands)],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
    finally:
        shutil.rmtree(short, ignore_errors=True)
    assert run.returncode == 0 and "Traceback" not in run.stderr, run.stderr
    out = json.loads(run.stdout.splitlines()[-1])
    assert out["seen"] == {"server at the import of PySide6": True}
    done, failed, version = out["runs"]
    assert (done["code"], failed["code"], version["code"]) == (0, 1, 0), out
    assert (done["servers"], failed["servers"], version["servers"]) == (1, 1, 0), out
    for each in (done, failed, version):
        assert each["users"] == 0 and each["servers left"] == [], out
        assert each["server now"] is None and each["folder"] == [], out
    assert (tmp_path / "rep" / "figures" / "class_heatmap.png").is_file()
    assert not (tmp_path / "rep2").exists()
