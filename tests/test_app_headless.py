"""The app without a window: the headless export says the readers' words only,
a file of no known kind is told with its line, the offscreen smoke test says
one line."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from shrec_eval.resources import demo_manifest  # noqa: E402

DEMO = demo_manifest().parent


def test_a_file_of_no_known_kind_is_told_with_its_line(tmp_path):
    """L10: a malformed TREC run dropped or added in the app says the line
    the readers looked at and what it holds, as the command line does."""
    from shrec_eval.errors import ContestFileError

    from shrec_gui.worker import classify

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
