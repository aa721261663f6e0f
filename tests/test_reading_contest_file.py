"""The Contest object: sources and options as one value, written and read as
JSON with paths relative to the file, every bad setting a FormatError that
names the file, a newer version refused; the demo manifest read with it."""

import json
import os
from dataclasses import replace
from pathlib import Path

import pytest
from shrec_eval import EvalOptions, evaluate
from shrec_eval import contest as contest_module
from shrec_eval.contest import CONTEST_VERSION, AssessmentSource, Contest, RunSource
from shrec_eval.errors import FileAccessError, FormatError, ShrecEvalError
from shrec_eval.resources import demo_manifest, resource_path

DEMO = resource_path("demo")


def a_contest(folder: Path) -> Contest:
    return Contest(
        AssessmentSource(
            folder / "qrels" / "topics.qrels",
            format="qrels",
            graded=True,
            collection_size=1814,
            collection=folder / "qrels" / "items.txt",
            normalize_ids=False,
        ),
        (
            RunSource(folder / "runs" / "alice.trec", format="trec", trec_order=True, name="A"),
            RunSource(
                folder / "runs" / "bob", format="ranklists", variant="id-distance", colour="#ff0000"
            ),
        ),
        EvalOptions(ranks=(3, 7), pr_interpolation="psb", f_beta=0.5, collection_size=2000),
        name="my contest",
        description="two runs",
    )


def test_round_trip_with_paths_relative_to_the_base(tmp_path):
    c = a_contest(tmp_path)
    d = c.to_dict(tmp_path)
    assert d["version"] == CONTEST_VERSION
    assert d["assessment"]["path"] == "qrels/topics.qrels"
    assert d["assessment"]["collection"] == "qrels/items.txt"
    assert [r["path"] for r in d["runs"]] == ["runs/alice.trec", "runs/bob"]
    assert d["runs"][1]["colour"] == "#ff0000" and d["options"]["ranks"] == [3, 7]
    back = Contest.from_dict(json.loads(json.dumps(d)), tmp_path)
    assert back == c
    # relative to another folder: "..", still the same files once resolved
    other = tmp_path / "sessions"
    d2 = c.to_dict(other)
    assert d2["runs"][0]["path"] == "../runs/alice.trec"
    assert Contest.from_dict(d2, other).runs[0].path.resolve() == c.runs[0].path.resolve()


def test_write_then_read_is_the_same_contest(tmp_path):
    c = a_contest(tmp_path)
    path = tmp_path / "s.json"
    c.write(path)
    text = path.read_text()
    assert str(tmp_path) not in text  # nothing absolute in the file
    assert Contest.read(path) == c
    # written atomically: no temporary file left beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["s.json"]


def test_sources_round_trip_alone(tmp_path):
    a = AssessmentSource("t.cla", queries="q.cla")
    assert a.path == Path("t.cla") and a.queries == Path("q.cla")
    assert AssessmentSource.from_dict(a.to_dict()) == a
    assert AssessmentSource.from_dict({"path": "t.cla"}, tmp_path).path == tmp_path / "t.cla"
    r = RunSource("/abs/run.trec", name="R")
    assert RunSource.from_dict(r.to_dict(tmp_path), tmp_path).path.resolve() == Path(
        "/abs/run.trec"
    )
    assert r.reader_dict() == {
        "format": None,
        "variant": None,
        "trec_order": False,
        "normalize_ids": None,
    }


def test_defaults_when_settings_are_left_out(tmp_path):
    c = Contest.from_dict({"assessment": {"path": "a.cla"}}, tmp_path, source=tmp_path / "x.json")
    assert c.assessment == AssessmentSource(tmp_path / "a.cla")
    assert c.runs == () and c.options == EvalOptions() and c.name == "x"


@pytest.mark.parametrize(
    "doc,needle",
    [
        ({"assessment": {"path": "a.cla", "graded": "false"}}, "'graded' must be true or false"),
        ({"assessment": {"path": 3}}, "'path' must be a string"),
        ({"assessment": {"path": "a", "collection_size": 2.5}}, "must be a whole number"),
        ({"assessment": {"path": "a", "collection_size": True}}, "must be a whole number"),
        ({"assessment": {"path": "a", "collection_size": 0}}, "positive whole number"),
        ({"assessment": {"path": "a", "format": "csv"}}, "unknown assessment format 'csv'"),
        ({"assessment": {"path": "a", "sister": True}}, "unknown assessment setting(s) sister"),
        ({"assessment": {"queries": "q.cla"}}, '"assessment" object needs a "path"'),
        ({"assessment": []}, "'assessment' must be an object"),
        ({"runs": []}, 'needs an "assessment"'),
        ([], 'needs an "assessment"'),
        ({"assessment": {"path": "a"}, "runs": {}}, "'runs' must be a list"),
        ({"assessment": {"path": "a"}, "runs": ["r.trec"]}, "run must be an object"),
        ({"assessment": {"path": "a"}, "runs": [{"name": "x"}]}, 'every run needs a "path"'),
        ({"assessment": {"path": "a"}, "runs": [{"path": "r", "colour": "red"}]}, "colour"),
        ({"assessment": {"path": "a"}, "runs": [{"path": "r", "variant": "x"}]}, "variant 'x'"),
        ({"assessment": {"path": "a"}, "runs": [{"path": "r", "trec_order": 1}]}, "trec_order"),
        ({"assessment": {"path": "a"}, "options": {"ranks": "5,10"}}, "list of whole numbers"),
        ({"assessment": {"path": "a"}, "options": {"ranks": [0]}}, "positive integers"),
        ({"assessment": {"path": "a"}, "options": {"beta": 2}}, "unknown scoring setting(s) beta"),
        ({"assessment": {"path": "a"}, "options": {"pr_interpolation": "x"}}, "one of max, psb"),
        ({"assessment": {"path": "a"}, "options": {"memory_budget": 1}}, "memory_budget"),
        ({"assessment": {"path": "a"}, "extra": 1}, "unknown contest setting(s) extra"),
        ({"assessment": {"path": "a"}, "version": "1"}, "'version' must be a whole number"),
        ({"assessment": {"path": "a"}, "version": 0}, "unknown contest file version 0"),
    ],
)
def test_bad_settings_name_the_file(tmp_path, doc, needle):
    src = tmp_path / "contest.json"
    with pytest.raises(FormatError) as e:
        Contest.from_dict(doc, tmp_path, source=src)
    assert str(e.value).startswith(f"{src}: ") and needle in str(e.value), str(e.value)


def test_a_version_1_file_still_opens(tmp_path):
    """Version 1 spelt a run's colour "color" and had no view; it reads as the
    same contest, and is written back as the current version."""
    (tmp_path / "runs").mkdir()
    v1 = {
        "version": 1,
        "name": "old",
        "assessment": {"path": "a.cla", "graded": True},
        "runs": [
            {"path": "runs/x.trec", "name": "X", "color": "#ff0000"},
            {"path": "runs/y.trec"},
        ],
        "options": {"ranks": [3]},
    }
    p = tmp_path / "old.json"
    p.write_text(json.dumps(v1))
    c = Contest.read(p)
    assert c.name == "old" and c.assessment == AssessmentSource(tmp_path / "a.cla", graded=True)
    assert [(r.path, r.name, r.colour) for r in c.runs] == [
        (tmp_path / "runs" / "x.trec", "X", "#ff0000"),
        (tmp_path / "runs" / "y.trec", None, None),
    ]
    assert c.options.ranks == (3,) and c.view == {}
    c.write(p)
    d = json.loads(p.read_text())
    assert d["version"] == CONTEST_VERSION == 3 and d["runs"][0]["colour"] == "#ff0000"
    assert "color" not in d["runs"][0] and Contest.read(p) == c
    # a file without a version is a version-1 file
    del v1["version"]
    assert Contest.from_dict(v1, tmp_path).runs[0].colour == "#ff0000"


@pytest.mark.parametrize(
    "doc,needle",
    [
        ({"version": 1, "view": {}}, 'version-1 contest file has no "view"'),
        ({"version": 1, "runs": [{"path": "r", "colour": "red"}]}, 'spells it "color"'),
        ({"version": 2, "runs": [{"path": "r", "color": "red"}]}, "unknown run setting(s) color"),
        ({"version": 2, "view": []}, "'view' must be an object of JSON values"),
        ({"version": 2, "view": {"x": float("nan")}}, "'view' must be an object"),
    ],
)
def test_each_version_has_its_own_keys(tmp_path, doc, needle):
    src = tmp_path / "c.json"
    with pytest.raises(FormatError) as e:
        Contest.from_dict({"assessment": {"path": "a"}, **doc}, tmp_path, source=src)
    assert str(e.value).startswith(f"{src}: ") and needle in str(e.value), str(e.value)


def test_the_view_is_kept_as_it_is(tmp_path):
    """What an app showed: JSON data written and read back untouched."""
    view = {
        "summary": {"columns": ["nn", "ft"], "sort": {"column": "FT", "order": "descending"}},
        "curves": {"kind": "pr"},
        "n": [1, 2.5, None, True],
    }
    c = replace(a_contest(tmp_path), view=view)
    view["curves"]["kind"] = "f"  # the contest keeps its own copy
    assert c.view["curves"]["kind"] == "pr"
    c.write(tmp_path / "v.json")
    back = Contest.read(tmp_path / "v.json")
    assert back == c and back.view["summary"]["sort"] == {"column": "FT", "order": "descending"}
    assert "view" not in a_contest(tmp_path).to_dict()  # nothing shown, nothing written
    with pytest.raises(TypeError, match="view"):
        Contest(AssessmentSource("a.cla"), view={"x": object()})
    hash(c)  # still a value: the view does not take part in the hash


def test_paths_are_written_relative_and_normalised(tmp_path):
    """Relative to the session's folder with forward slashes, as few ".." as
    needed (also through a linked folder or a path with "x/.." or "//" in it),
    absolute when nothing below the root is shared."""
    (tmp_path / "data" / "runs").mkdir(parents=True)
    (tmp_path / "sessions" / "deep").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "sessions")
    run = tmp_path / "data" / "runs" / "a.trec"
    rel = contest_module.relative_path
    assert rel(run, tmp_path / "sessions") == "../data/runs/a.trec"
    assert rel(run, tmp_path / "link" / "deep") == "../../data/runs/a.trec"
    messy = Path(f"{tmp_path}/data//runs/../runs/./a.trec")
    assert rel(messy, tmp_path / "sessions" / "deep") == "../../data/runs/a.trec"
    assert rel(tmp_path / "link" / "x.cla", tmp_path / "sessions") == "x.cla"
    assert rel(run, tmp_path / "data") == "runs/a.trec"
    assert rel(tmp_path / "data", tmp_path / "data") == "."
    # a run that is itself a link stays the link
    (tmp_path / "data" / "b.trec").symlink_to(run)
    assert rel(tmp_path / "data" / "b.trec", tmp_path) == "data/b.trec"
    # nothing in common below the root: absolute
    assert rel(Path("/") / "elsewhere" / "r.trec", tmp_path) == "/elsewhere/r.trec"
    # written and read back: the same files
    c = Contest(AssessmentSource(messy), (RunSource(tmp_path / "link" / "r.trec"),))
    c.write(tmp_path / "link" / "deep" / "s.json")
    d = json.loads((tmp_path / "sessions" / "deep" / "s.json").read_text())
    assert (
        d["assessment"]["path"] == "../../data/runs/a.trec" and d["runs"][0]["path"] == "../r.trec"
    )
    back = Contest.read(tmp_path / "sessions" / "deep" / "s.json")
    assert back.assessment.path.resolve() == run.resolve()
    assert back.runs[0].path.resolve() == (tmp_path / "sessions" / "r.trec").resolve()


def test_a_newer_version_is_refused(tmp_path):
    p = tmp_path / "future.json"
    d = a_contest(tmp_path).to_dict(tmp_path)
    d["version"] = CONTEST_VERSION + 1
    p.write_text(json.dumps(d))
    with pytest.raises(FormatError, match=f"version {CONTEST_VERSION + 1}, newer than") as e:
        Contest.read(p)
    assert e.value.path == str(p) and "update shrec-eval" in str(e.value)


def test_unreadable_files_are_contest_file_errors(tmp_path):
    with pytest.raises(ShrecEvalError, match="cannot read the file"):
        Contest.read(tmp_path / "none.json")
    p = tmp_path / "bad.json"
    p.write_text('{"assessment": {\n  "path": }')
    with pytest.raises(FormatError, match="not valid JSON") as e:
        Contest.read(p)
    assert e.value.line == 2


def test_sources_are_frozen():
    s = RunSource("r.trec")
    with pytest.raises(AttributeError):
        s.name = "x"
    assert replace(s, name="x").name == "x" and s.name is None


def test_the_demo_manifest_is_a_contest():
    c = Contest.read(demo_manifest())
    assert c.name == "SHREC demo contest (synthetic)" and "44 classes" in c.description
    assert c.assessment.path == DEMO / "target.cla" and c.assessment.graded
    assert [r.format for r in c.runs] == [
        "ascii-matrix",
        "trec",
        "ranklists",
        "ranklists",
        "ranklists",
        "binary-matrix",
        "trec",
    ]
    assert all(r.path.exists() for r in c.runs)
    a = c.load_assessment()
    run = c.runs[2].load(a)
    assert run.name == "LightField-200" and "query-line" in run.format
    # the manifest holds what a written contest holds
    assert Contest.from_dict(c.to_dict(DEMO), DEMO) == c


def test_reader_parameters_travel_through_load(tmp_path):
    c = Contest.read(demo_manifest())
    a = c.load_assessment()
    whole = c.runs[0].load(a)
    blocks = c.runs[0].load(a, chunk_size=5000)
    assert (whole.matrix == blocks.matrix).all()
    with pytest.raises(TypeError):
        c.runs[0].load(a, no_such_parameter=1)


def test_every_engine_option_can_be_written_and_read():
    """Every option of the schema (the EvalOptions fields) has its type in the
    contest file checks (``rules`` is the profile resolved, not an option)."""
    from dataclasses import fields

    from shrec_eval.contest_options import OPTION_KINDS

    assert set(OPTION_KINDS) == {f.name for f in fields(EvalOptions)} - {"memory_budget", "rules"}
    o = EvalOptions(
        ranks=(2,), max_rank=50, relevance_level=2, complete_queries=True, profile="trec_eval"
    )
    c = Contest(AssessmentSource("a.qrels"), options=o)
    assert Contest.from_dict(json.loads(json.dumps(c.to_dict()))).options == o


def test_the_demo_has_shapes():
    """Every model and query of the demo has a mesh in its shapes folder."""
    c = Contest.read(demo_manifest())
    assert c.shapes.path == DEMO / "shapes" and c.shapes.layout == "flat"
    a = c.load_assessment()
    index = c.shapes.index()
    assert all(index.files(i) is not None for i in a.item_ids + a.query_ids)
    assert len(index) == len(a.item_ids) + len(a.query_ids)


def test_make_demo_regenerates_the_demo_byte_for_byte(tmp_path):
    """packaging/make_demo.py writes exactly the checked-in demo folder."""
    import importlib.util

    script = Path(__file__).resolve().parents[1] / "packaging" / "make_demo.py"
    spec = importlib.util.spec_from_file_location("make_demo", script)
    make_demo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_demo)
    make_demo.make(tmp_path)

    def files(root):
        return {
            p.relative_to(root).as_posix(): p.read_bytes()
            for p in root.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts and p.name != "__init__.py"
        }

    made, shipped = files(tmp_path), files(DEMO)
    assert sorted(made) == sorted(shipped)
    assert [n for n in made if made[n] != shipped[n]] == []


def _contest_case(tmp_path, doc):
    (tmp_path / "q.qrels").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n")
    (tmp_path / "r.trec").write_text("1 Q0 d1 1 5 t\n1 Q0 d2 2 4 t\n2 Q0 d3 1 1 t\n")
    s = tmp_path / "s.json"
    s.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    c = Contest.read(s)
    a = c.load_assessment()
    for r in c.runs:
        evaluate(a, r.load(a), c.options)


@pytest.mark.parametrize(
    "doc, needle",
    [
        ({"options": {"pr_levels": 10**9}}, "11 or 21 recall levels"),
        ({"assessment": {"path": "q.qrels", "collection_size": 10**13}}, "collection size"),
        ({"assessment": {"path": "q.qrels", "collection_size": 2**63}}, "collection size"),
        ({"runs": [{"path": "r\u0000.trec"}]}, "'path' must be a string"),
        ('{"runs": [{"path": "\\ud800"}]}', "'path' must be a string"),
        ('{"view": {"a": ' + "[" * 100000 + "]" * 100000 + "}}", "nested too deeply"),
        ('{"options": {"f_beta": NaN}}', "positive number"),
        ({"options": {"relevance_level": 2**70}}, "relevance level"),
    ],
)
def test_e12_contest_file_values_are_checked_and_name_the_file(tmp_path, doc, needle):
    base = {"version": 2, "assessment": {"path": "q.qrels"}, "runs": [{"path": "r.trec"}]}
    if isinstance(doc, dict):
        doc = {**base, **doc}
    else:  # JSON text: the base's members spliced in front
        doc = json.dumps(base)[:-1] + ", " + doc[1:]
        doc = doc.replace('"runs": [{"path": "r.trec"}], "runs"', '"runs"')
    with pytest.raises(FormatError) as e:
        _contest_case(tmp_path, doc)
    assert str(e.value).startswith(f"{tmp_path / 's.json'}: ") and needle in str(e.value)


def test_e12_contest_file_through_a_fifo_times_out(tmp_path, monkeypatch):
    from shrec_eval.reading.formats import source

    # the wait for a writer, half a second here (5 s by default): what it
    # says after the wait is the question, not how long the wait is
    monkeypatch.setitem(source.open_source.__kwdefaults__, "wait", 0.5)
    os.mkfifo(tmp_path / "c.json")
    with pytest.raises(FileAccessError, match="no program writing"):
        Contest.read(tmp_path / "c.json")


def test_paths_outside_the_folder_read_back_as_they_were_written(tmp_path):
    """A contest file beside, not above, its data: the paths it writes climb
    (..) and read back spelt as they were before (one file, one spelling),
    through a linked folder too."""
    (tmp_path / "data").mkdir()
    (tmp_path / "sessions" / "deep").mkdir(parents=True)
    (tmp_path / "ln").symlink_to(tmp_path / "sessions")
    qrels = (tmp_path / "data" / "q.qrels").resolve()
    qrels.write_text("1 0 d1 1\n")
    inside = tmp_path / "sessions" / "deep" / "r.trec"
    c = Contest(AssessmentSource(qrels), (RunSource(inside),))
    for where in (tmp_path / "sessions" / "deep", tmp_path / "ln" / "deep"):
        c.write(where / "s.json")
        d = json.loads((where / "s.json").read_text())
        assert d["assessment"]["path"] == "../../data/q.qrels" and d["runs"][0]["path"] == "r.trec"
        back = Contest.read(where / "s.json")
        assert back.assessment.path == qrels and ".." not in back.assessment.path.parts
        assert back.runs[0].path.resolve() == inside.resolve()
        assert ".." not in back.runs[0].path.parts


def test_e11_contest_saved_through_a_symlinked_folder_reopens_through_it(tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "links").mkdir()
    (tmp_path / "proj" / "q.qrels").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n")
    (tmp_path / "proj" / "r.trec").write_text("1 Q0 d1 1 5 t\n1 Q0 d2 2 4 t\n2 Q0 d3 1 1 t\n")
    (tmp_path / "proj" / "session.json").touch()
    (tmp_path / "links" / "current.json").symlink_to("../proj/session.json")
    # a decoy beside the link, which must never be read
    (tmp_path / "links" / "q.qrels").write_text("9 0 zz 1\n")
    c = Contest(
        AssessmentSource(tmp_path / "proj" / "q.qrels"),
        (RunSource(tmp_path / "proj" / "r.trec", name="R"),),
    )
    c.write(tmp_path / "links" / "current.json")
    back = Contest.read(tmp_path / "links" / "current.json")
    assert back.load_assessment().query_ids == ("1", "2")
    assert os.path.samefile(back.assessment.path, tmp_path / "proj" / "q.qrels")
