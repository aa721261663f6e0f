"""The example contests the documentation's commands run on
(resources/examples, made by packaging/make_examples.py): made again, the
same bytes; small; each a contest that reads and scores, in the formats the
docs say (three kinds of matrix runs, TREC runs, feature vectors, matrices
indexed by id); shipped with the package."""

import importlib.util
import sys
from pathlib import Path

import numpy as np
from shrec_eval import evaluate, load_assessment, load_run
from shrec_eval.contest import AssessmentSource, Contest, RunSource
from shrec_eval.options import EvalOptions
from shrec_eval.reading.detect import detect_run_format
from shrec_eval.resources import resource_path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "resources" / "examples"


def _maker():
    path = ROOT / "packaging" / "make_examples.py"
    spec = importlib.util.spec_from_file_location("make_examples", path)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(path.parent))
    try:
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(path.parent))
    return mod


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_making_the_examples_again_gives_the_same_bytes(tmp_path):
    _maker().make(tmp_path / "examples")
    made, shipped = _files(tmp_path / "examples"), _files(EXAMPLES)
    assert sorted(made) == sorted(shipped)
    assert [name for name in made if made[name] != shipped[name]] == []


def test_the_examples_are_small_and_are_the_installed_package_data():
    files = _files(EXAMPLES)
    assert 50 < len(files) and sum(map(len, files.values())) < 300_000
    assert _files(resource_path("examples")) == files


def test_the_psb_contest_has_runs_of_three_matrix_formats_and_features():
    contest = Contest.read(EXAMPLES / "contest.json")
    a = contest.assessment.load()
    assert (a.n_queries, a.collection_size) == (60, 60)
    assert list(a.item_ids[:3]) == ["0", "1", "2"]
    formats = [detect_run_format(EXAMPLES / r.path) for r in contest.runs]
    assert formats == ["binary-matrix", "ascii-matrix", "ranklists", "embeddings"]
    means = {r.name: evaluate(a, r.load(a)).mean("nn") for r in contest.runs}
    # a method's quality follows the noise of its descriptor
    assert means["Alice"] > means["Bob"] > 0.5 and means["Carol"] > 0.5
    sisters = AssessmentSource(EXAMPLES / "psb_test.cla", graded=True).load()
    assert sisters.top_grade == 2


def test_the_qrels_and_trec_runs_differ_under_trec_eval_and_have_features():
    a = load_assessment(EXAMPLES / "qrels.txt", profile="trec_eval")
    assert a.n_queries == 8
    opts = EvalOptions(profile="trec_eval")
    alpha = evaluate(a, load_run(EXAMPLES / "run.trec", a), opts).mean("ap_trec_r")
    beta = evaluate(a, load_run(EXAMPLES / "run2.trec", a), opts).mean("ap_trec_r")
    assert alpha > beta > 0.3
    lines = (EXAMPLES / "run.trec").read_text().splitlines()
    scores = [ln.split()[4] for ln in lines[:50]]
    assert len(set(scores)) < len(scores)  # ties, which trec_eval orders by docno
    c = AssessmentSource(EXAMPLES / "qrels.txt", collection=EXAMPLES / "collection.txt").load()
    assert c.collection_size == 120
    top = load_run(EXAMPLES / "topics.npz", c, top_k=10)
    assert evaluate(c, top).mean("nn") > 0.5


def test_the_shape_contest_is_indexed_by_id_not_by_listing():
    from shrec_eval.profiles import get_profile

    assert get_profile("sipiran21").name == "sipiran21"  # the profile these files are for

    ids = [
        ln for ln in (EXAMPLES / "datasetShape.cla").read_text().splitlines()[3:] if ln.isdigit()
    ]
    assert sorted(map(int, ids)) == list(range(len(ids))) and ids != sorted(ids, key=int)
    runs = sorted((EXAMPLES / "testShape").iterdir())
    assert [p.name for p in runs] == ["Alice.run1.txt", "Alice.run2.txt", "Bob.run1.txt"]
    nn = {}
    for order in ("id", "listing"):
        a = AssessmentSource(
            EXAMPLES / "datasetShape.cla", queries=EXAMPLES / "queryShape.cla", matrix_order=order
        ).load()
        nn[order] = evaluate(a, RunSource(runs[0]).load(a)).mean("nn")
    assert nn["id"] > 0.9 > 0.5 > nn["listing"]
    assert np.loadtxt(runs[0]).shape == (10, 36)
