"""The project carries its own documentation: README.md and docs/ link only
to files inside the repository, no code, test or doc cites a path outside
it, the measure table of docs/measures.md is the registry's, and the
library page's examples run and print what the page shows."""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import docblocks
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [ROOT / "README.md", *DOCS]
LINK = re.compile(r"\]\(([^)\s]+)\)")


def test_the_docs_exist():
    names = {p.name for p in DOCS}
    assert {"measures.md", "formats.md", "profiles.md", "app.md", "library.md"} <= names


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_resolve_inside_the_repository(page):
    text = page.read_text(encoding="utf-8")
    links = [m for m in LINK.findall(text) if not re.match(r"[a-z]+:", m)]
    for link in links:
        target = (page.parent / link.split("#", 1)[0]).resolve()
        assert target.is_relative_to(ROOT), f"{page.name}: {link} leaves the repository"
        assert target.exists(), f"{page.name}: {link} does not exist"


#: what a citation of the reference material outside the repository looks like
OUTSIDE = re.compile(r"\.\./(\.\./)*shared\b|/work/|\bshared/(spec|seeds|repro|data|design)\b")


def test_no_file_cites_a_path_outside_the_repository():
    folders = ("core", "shrec_gui", "tests", "packaging", "docs")
    files = [ROOT / "README.md", ROOT / "pyproject.toml"]
    for folder in folders:
        files += [
            p
            for p in (ROOT / folder).rglob("*")
            if p.suffix in (".py", ".md", ".txt", ".toml", ".cfg", ".spec", ".iss", ".sh")
        ]
    cited = [
        f"{p.relative_to(ROOT)}:{i}: {line.strip()}"
        for p in files
        for i, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        if OUTSIDE.search(line) and p != Path(__file__).resolve()
    ]
    assert cited == []


#: a test or benchmark file named anywhere: ``tests/test_x.py``, ``test_x.py``, ``bench_x.py``
CITED_TEST = re.compile(r"(?<![\w/.-])(?:tests/(?:benchmarks/)?)?((?:test|bench)_\w+\.py)\b")


def test_every_test_or_benchmark_file_cited_exists():
    """Test files are named by subject and renamed with git mv: no page, comment
    or script may keep naming one that is gone."""
    files = [ROOT / "README.md", ROOT / "pyproject.toml", ROOT / ".ci" / "run"]
    for folder in ("tests", "packaging", "docs", "core", "shrec_gui"):
        files += [
            p
            for p in (ROOT / folder).rglob("*")
            if p.suffix in (".py", ".md", ".txt", ".toml", ".spec", ".sh") and p.is_file()
        ]
    present = {p.name for p in (ROOT / "tests").glob("test_*.py")}
    present |= {p.name for p in (ROOT / "tests" / "benchmarks").glob("bench_*.py")}
    stale = [
        f"{p.relative_to(ROOT)}:{i}: {name}"
        for p in files
        for i, line in enumerate(p.read_text(encoding="utf-8", errors="replace").splitlines(), 1)
        for name in CITED_TEST.findall(line)
        if name not in present
        and p != Path(__file__).resolve()
        and name == name.lower()  # test_profile_NAME.py: a pattern, not a file
    ]
    assert stale == []


def test_the_where_your_change_goes_table_names_files_that_exist():
    text = (ROOT / "docs" / "development.md").read_text(encoding="utf-8")
    table = text.split("## Where your change goes", 1)[1].split("\n## ", 1)[0]
    paths = {
        p
        for p in re.findall(r"`([\w./]+\.(?:py|md))`", table)
        if "/" in p and p == p.replace("NAME", "") and "SUBJECT" not in p
    }
    assert len(paths) >= 15
    assert sorted(p for p in paths if not (ROOT / p).exists()) == []


def test_the_measure_table_is_the_registrys():
    spec = importlib.util.spec_from_file_location(
        "make_measures_table", ROOT / "docs" / "make_measures_table.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = (ROOT / "docs" / "measures.md").read_text(encoding="utf-8")
    assert mod.render(text) == text, "run python docs/make_measures_table.py"
    from shrec_eval.scoring.measures import ALIASES, MEASURES

    for m in MEASURES:
        assert f"| `{m.key.replace('{k}', 'K')}` |" in text
    for a in ALIASES:
        assert f"`{a.name.replace('{k}', 'K')}`" in text


def _page_id(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


#: the tier of a page's blocks: a page with commands runs processes (slow)
PYTHON_PAGES = [
    p for p in docblocks.PAGES if docblocks.runnable(p) and not docblocks.has_commands(p)
]
COMMAND_PAGES = [p for p in docblocks.PAGES if docblocks.has_commands(p)]
NOT_RUN = [b for p in docblocks.PAGES for b in docblocks.blocks(p) if b.not_run is not None]


@pytest.mark.parametrize("page", docblocks.PAGES, ids=_page_id)
def test_every_block_runs_or_says_why_not(page):
    """A block is code these tests run, what code prints or a file holds, or
    code that cannot run here with the reason on the line before it; a
    marker sits right before a block."""
    assert docblocks.parse(page)[1] == []


def _status(folder: Path) -> set[str]:
    """What git sees changed or new in a checkout (ignored files aside)."""
    out = subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all"],
        cwd=folder,
        capture_output=True,
        text=True,
    )
    return set(out.stdout.splitlines()) if out.returncode == 0 else set()


def _run_page(page: Path, tmp_path: Path) -> None:
    """A page's blocks as a reader runs them in a fresh clone; then nothing
    new in that clone (outputs go to the reader's folders) nor in this one."""
    clone = docblocks.scratch_clone(tmp_path / "clone")
    (tmp_path / "home").mkdir()
    session = docblocks.Session(clone, tmp_path / "home")
    files = {p for p in clone.rglob("*") if ".venv" not in p.parts}
    before = _status(ROOT)
    for block in docblocks.runnable(page):
        session.run(block)
    new = {p for p in clone.rglob("*") if ".venv" not in p.parts} - files
    assert sorted(str(p.relative_to(clone)) for p in new) == [], "written into the clone"
    assert _status(ROOT) == before


@pytest.mark.parametrize("page", PYTHON_PAGES, ids=_page_id)
def test_the_page_runs_as_written(page, tmp_path):
    """Every Python block of a page without commands, in one session started
    in a fresh clone, printing what the page shows."""
    pytest.importorskip("pandas")
    _run_page(page, tmp_path)


@pytest.mark.parametrize("page", COMMAND_PAGES, ids=_page_id)
def test_the_commands_of_the_page_run_as_written(page, tmp_path):
    """Every shell and Python block of a page with commands, in order, as one
    reader's terminal in a fresh clone after README's install command,
    printing what the page shows."""
    pytest.importorskip("pandas")
    _run_page(page, tmp_path)


@pytest.mark.parametrize("block", NOT_RUN, ids=lambda b: b.where)
def test_a_block_that_cannot_run_here_is_skipped_with_its_reason(block):
    assert block.kind in ("shell", "python") or block.lang in docblocks.ELSEWHERE
    assert len(block.not_run) >= 3
    pytest.skip(f"{block.where}: not run: {block.not_run}")


def test_the_block_reader_pairs_outputs_markers_and_languages(tmp_path, monkeypatch):
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- not run: windows -->\n\n```bat\ndir\n```\n\n"
        "```bash\necho hi\n```\n\n```text\nhi\n```\n\n"
        "```text\njust text\n```\n\n"
        "```console\n$ echo a\na\n```\n\n"
        "<!-- not run: -->\n```python\npass\n```\n"
        "<!-- not run: gone -->\nprose\n\n```zsh\nls\n```\n```rust\nfn\n```\n"
    )
    monkeypatch.setattr(docblocks, "ROOT", tmp_path)
    found, problems = docblocks.parse(page)
    assert [(b.line, b.lang, b.not_run, b.shown) for b in found] == [
        (3, "bat", "windows", None),
        (7, "bash", None, "hi\n"),
        (15, "text", None, None),
        (19, "console", None, None),
        (25, "python", "", None),
        (31, "zsh", None, None),
        (34, "rust", None, None),
    ]
    assert problems == [
        "page.md:28: a 'not run' marker not right before a block",
        "page.md:25: a 'not run' marker without its reason",
        "page.md:31: a zsh block needs <!-- not run: REASON -->",
        "page.md:34: a block of language 'rust': tests/docblocks.py does not know whether it "
        "runs (add the language to SHELL, PYTHON, DATA or ELSEWHERE)",
    ]
    assert docblocks.console_script("$ a \\\n> b\nout\n$ c\n") == ("a \\\nb\nc\n", "out\n")


@pytest.mark.parametrize(
    "output,shown,same",
    [
        ("a  \nb\n\n", "a\nb", True),
        ("a\nb\n", "a\n b", False),  # padding counts
        ("0.75 0.5\n", "0.75  0.5", False),
        (
            "12 files written to /tmp/x/ex (README.md)\n",
            "12 files written to .../ex (README.md)",
            True,
        ),
        ("t\nnote: 1\nnote: 2\n", "t\n...", True),
        ("t\nnote: 1\n", "t\nnote: 2\n...", False),
        ("a(b)[c]*\n", "a(b)[c]*", True),
    ],
)
def test_a_shown_output_is_compared_line_by_line_with_ellipses(output, shown, same):
    assert docblocks.matches(output, shown) is same


def test_a_failing_command_or_block_fails_the_page(tmp_path):
    session = docblocks.Session(tmp_path, tmp_path)
    assert session.shell("cd /\necho $HOME\n") == f"{tmp_path}\n"
    assert session.cwd == Path("/")
    with pytest.raises(AssertionError, match="exit status 3"):
        session.shell("false || exit 3\necho never")
    with pytest.raises(AssertionError, match="exit status 1"):
        session.shell("true | false | true\n")
    session.cwd = tmp_path
    assert session.python("x = 2\nprint(x * 21)\n", "p.md:1") == "42\n"
    assert session.python("print(x)\n", "p.md:5") == "2\n"  # one session
    with pytest.raises(NameError):
        session.python("print(contest)\n", "p.md:9")


def test_to_frame_without_pandas_says_what_to_install(monkeypatch):
    from shrec_eval import Assessment, RankedRun, evaluate

    a = Assessment.from_judgments({"q": {"a": 1}}, ["a", "b"])
    r = evaluate(a, RankedRun.from_lists("run", {"q": ["b", "a"]}, a))
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="needs pandas.*pip install pandas"):
        r.to_frame()


def test_to_frame_takes_other_tools_names():
    pd = pytest.importorskip("pandas")
    from shrec_eval import Assessment, EvalOptions, RankedRun, evaluate

    a = Assessment.from_judgments({"q1": {"a": 1}, "q2": {"b": 1, "c": 1}}, ["a", "b", "c"])
    run = RankedRun.from_lists("run", {"q1": ["b", "a"], "q2": ["b", "a", "c"]}, a)
    r = evaluate(a, run, EvalOptions(profile="trec_eval"))
    f = r.to_frame(["map", "recip_rank", "P_5"])
    assert list(f.columns) == ["ap_trec_r", "rr", "p@5"] and f.index.name == "query"
    expected = pd.DataFrame(
        {"ap_trec_r": [0.5, (1 + 2 / 3) / 2], "rr": [0.5, 1.0], "p@5": [0.2, 0.4]},
        index=pd.Index(["q1", "q2"], name="query"),
    )
    pd.testing.assert_frame_equal(f, expected)


def test_the_profiles_table_is_the_registrys():
    """docs/profiles.md's table is made from the built-in evaluator files: a
    new built-in is its file (python docs/make_profiles_table.py)."""
    spec = importlib.util.spec_from_file_location(
        "make_profiles_table", ROOT / "docs" / "make_profiles_table.py"
    )
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    text = (ROOT / "docs" / "profiles.md").read_text(encoding="utf-8")
    assert mod.render(text) == text, "run python docs/make_profiles_table.py"


def test_the_profiles_page_states_each_profiles_columns_and_ranking():
    from shrec_eval.options import PROFILES, EvalOptions
    from shrec_eval.profiles import get_profile

    text = (ROOT / "docs" / "profiles.md").read_text(encoding="utf-8")
    rows = {
        m.group(1): (m.group(2).split(), m.group(3))
        for m in re.finditer(r"^\| `(\w+)` \| `([^`]*)`[^|]*\| `?([\w@]+)`?", text, re.M)
    }
    assert set(rows) == set(PROFILES)
    for name in PROFILES:
        keys, rank_key = get_profile(name).table(None, EvalOptions(profile=name))
        assert rows[name][0] == keys, name
        if get_profile(name).rank_key:
            assert rows[name][1] == rank_key == get_profile(name).rank_key, name
        else:  # the default: adr for sister-class grades, else ap_trec_r
            assert rank_key == "ap_trec_r" and rows[name][1] in ("adr", "as")


def test_the_architecture_page_is_readmes_first_link_and_names_real_files():
    """docs/architecture.md: under 250 lines, the first page README links to,
    and every module or file it names in backticks exists (under core/, the
    repository or the app)."""
    page = ROOT / "docs" / "architecture.md"
    text = page.read_text(encoding="utf-8")
    assert len(text.splitlines()) < 250
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert LINK.findall(readme)[0] == "docs/architecture.md"
    named = set(re.findall(r"`([\w/]+\.(?:py|toml))`", text))
    assert len(named) > 20  # the map names the modules it describes
    missing = [
        n
        for n in sorted(named)
        if "NAME" not in n and not any((base / n).exists() for base in (ROOT / "core", ROOT))
    ]
    assert missing == []


def test_no_merge_conflict_markers_are_left_in_the_tracked_files():
    """A conflict's markers committed by mistake (it happened once, in this
    page's neighbour docs/development.md) break a page or a module quietly."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False
    ).stdout.split(b"\0")
    if not any(listed):
        pytest.skip("not a git checkout")
    marker = re.compile(rb"^(<{7} |>{7} |={7}$)", re.M)
    found = []
    for name in filter(None, listed):
        path = ROOT / name.decode()
        if path.suffix in {".py", ".md", ".toml", ".txt", ".cfg", ".spec", ".sh", ".json"}:
            if path.is_file() and marker.search(path.read_bytes()):
                found.append(name.decode())
    assert found == []


def test_readme_test_command_is_what_ci_runs():
    """README's install-and-test command is .ci/run's last line (its Python
    and a quiet pip aside): the import contracts, mypy, ruff, then the suite."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").rstrip().splitlines()[-1]
    (command,) = [line for line in readme.splitlines() if line.endswith("pytest -q --full -n 3")]
    assert ci.replace('"$PY"', "python3").replace("pip install -q ", "pip install ") == command
    checks = [c.strip().split()[0] for c in command.split("&&")[2:-1]]
    assert checks == [
        ".venv/bin/lint-imports",
        ".venv/bin/mypy",
        ".venv/bin/ruff",
        ".venv/bin/ruff",
    ]
