"""What a command loads: scoring a TREC run loads none of the heavy
packages that other commands and options need (matplotlib for reports,
Pillow and trimesh for the gallery's thumbnails, scipy for the statistical
tests, Dask for --dask, pandas, Qt), so that it starts sooner.  Our own
modules are imported at the top (docs/architecture.md): only third-party
weight waits for the command that uses it."""

import subprocess
import sys
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "trec_eval"
HEAVY = ("matplotlib", "PIL", "trimesh", "scipy", "dask", "distributed", "pandas", "PySide6")


def _loaded(argv: list[str]) -> list[str]:
    probe = (
        "import io, sys; from shrec_eval.cli.parser import main\n"
        f"code = main({argv!r}, out=io.StringIO())\n"
        f"print(code, *[m for m in {HEAVY!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return out.stdout.split()


@pytest.mark.parametrize(
    "extra",
    [["--format", "trec_eval"], ["--json", "JSON"], []],
    ids=["trec_eval-text", "json", "table"],
)
def test_evaluate_loads_none_of_the_heavy_packages(tmp_path, extra):
    argv = ["evaluate", "--profile", "trec_eval", "-c", str(DATA / "gen1.qrels")]
    extra = [str(tmp_path / "o.json") if x == "JSON" else x for x in extra]
    assert _loaded(argv + [str(DATA / "gen1.run"), *extra]) == ["0"]


def test_compare_loads_scipy_for_its_tests(tmp_path):
    (tmp_path / "b.run").write_bytes((DATA / "gen1.run").read_bytes())
    argv = ["compare", str(DATA / "gen1.qrels"), str(DATA / "gen1.run"), str(tmp_path / "b.run")]
    got = _loaded(argv + ["--profile", "trec_eval", "--measure", "map", "--test", "t"])
    assert got[0] == "0" and "scipy" in got


def test_evaluate_loads_no_url_opener():
    """The hint that says how to add an extra reads where shrec-eval was
    installed from (a file URL): its path is read without urllib.request,
    which brings http, ssl and email with it (14 to 40 ms of every
    command's start)."""
    probe = (
        "import io, sys; from shrec_eval.cli.parser import main\n"
        f"argv = ['evaluate', '--profile', 'trec_eval', '-c', {str(DATA / 'gen1.qrels')!r}, "
        f"{str(DATA / 'gen1.run')!r}, '--format', 'trec_eval']\n"
        "code = main(argv, out=io.StringIO())\n"
        "print(code, *[m for m in ('urllib.request', 'ssl', 'http.client') if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0"]


@pytest.mark.parametrize(
    "extra", [["--format", "trec_eval"], ["--json", "JSON"]], ids=["text", "json"]
)
def test_a_builtin_profile_looks_for_no_installed_evaluator(tmp_path, extra):
    """``--profile`` naming a built-in (and ``--format`` naming its own text
    output) neither scans the installed packages' entry points for
    evaluators nor imports ``importlib.metadata`` (with email and zipfile,
    20 to 80 ms of every command's start); a name that is no built-in still
    looks for them (tests/test_profile_toy.py: the config folder's).  Text
    files are read without filetype (which names a file that is not text)."""
    argv = ["evaluate", "--profile", "trec_eval", "-c", str(DATA / "gen1.qrels")]
    extra = [str(tmp_path / "o.json") if x == "JSON" else x for x in extra]
    probe = (
        "import io, sys; from shrec_eval.cli.parser import main\n"
        "from shrec_eval.profiles import discovery\n"
        f"code = main({argv + [str(DATA / 'gen1.run'), *extra]!r}, out=io.StringIO())\n"
        "print(code, discovery._found.cache_info().misses, 'importlib.metadata' in sys.modules,"
        " 'filetype' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0", "0", "False", "False"]


@pytest.mark.parametrize(
    "extra", [["--format", "trec_eval"], ["--json", "JSON"]], ids=["text", "json"]
)
def test_evaluate_imports_no_module_of_what_it_was_not_asked_for(tmp_path, extra):
    """Without --report, evaluate imports neither the report's figures and
    their processes (multiprocessing) nor the gallery and its thumbnails;
    the paired tests (compare), the file commands and the socket of
    --dask's check wait for what uses them too (some 25 modules of every
    command's start)."""
    argv = ["evaluate", "--profile", "trec_eval", "-c", str(DATA / "gen1.qrels")]
    extra = [str(tmp_path / "o.json") if x == "JSON" else x for x in extra]
    unused = (
        "shrec_eval.outputs.report",
        "shrec_eval.outputs.figures",
        "shrec_eval.outputs.figure_jobs",
        "shrec_eval.outputs.gallery",
        "shrec_eval.shapes.thumbnails",
        "shrec_eval.scoring.stats",
        "shrec_eval.cli.report_step",
        "shrec_eval.cli.compare_command",
        "shrec_eval.cli.file_commands",
        "multiprocessing",
        "socket",
    )
    probe = (
        "import io, sys; from shrec_eval.cli.parser import main\n"
        f"code = main({argv + [str(DATA / 'gen1.run'), *extra]!r}, out=io.StringIO())\n"
        f"print(code, *[m for m in {unused!r} if m in sys.modules])"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0"]
