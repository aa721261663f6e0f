"""The project carries its own documentation: README.md and docs/ link only
to files inside the repository, no code, test or doc cites a path outside
it, the measure table of docs/measures.md is the registry's, and the
library page's examples run and print what the page shows."""

import contextlib
import importlib.util
import io
import re
import sys
from pathlib import Path

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


def _examples(page: Path) -> list[tuple[str, str | None]]:
    """(python block, the text block right after it, if any)."""
    text = page.read_text(encoding="utf-8")
    out = []
    for m in re.finditer(r"```python\n(.*?)```\n(\n```text\n(.*?)```)?", text, re.S):
        out.append((m.group(1), m.group(3)))
    return out


def _words(text: str) -> list[str]:
    return text.split()


def test_the_library_page_runs_as_written(tmp_path, monkeypatch):
    pytest.importorskip("pandas")
    pytest.importorskip("matplotlib")
    monkeypatch.chdir(tmp_path)
    scope: dict = {}
    examples = _examples(ROOT / "docs" / "library.md")
    assert len(examples) >= 4
    for code, shown in examples:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, "library.md", "exec"), scope)
        if shown is not None:
            assert _words(out.getvalue()) == _words(shown)
    assert (tmp_path / "pr.png").stat().st_size > 10_000


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
