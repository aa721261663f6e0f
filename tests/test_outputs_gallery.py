"""The report's gallery and the thumbnails command: gallery.html shows, for
each query, the right thumbnails at the right ranks of each run, framed by
grade, with the query's measure values; worst/best pick the right queries; a
missing shape is a placeholder and a note; `shrec-eval thumbnails` writes a
folder's thumbnails."""

from __future__ import annotations

import io
import json
from html.parser import HTMLParser
from pathlib import Path

import pytest
import trimesh
from contest_files import distances, make_classes, ranking, write_ascii_matrix, write_cla
from shrec_eval.cli.parser import main
from shrec_eval.outputs.gallery import GRADE_COLOURS
from shrec_eval.shapes.index import ShapeFiles
from shrec_eval.shapes.thumbnails import decode_png, thumbnail

K = 4


def run_main(argv):
    out = io.StringIO()
    return main(argv, out=out), out.getvalue()


class _Gallery(HTMLParser):
    """(query, run) -> [(rank, item, src, border colour)] and the query images."""

    def __init__(self) -> None:
        super().__init__()
        self.query = self.run = None
        self.in_name = False
        self.strips: dict[tuple[str, str], list] = {}
        self.query_img: dict[str, str] = {}
        self.values: dict[tuple[str, str], str] = {}
        self.in_vals = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "h2" and a.get("id", "").startswith("q-"):
            self.query = a["id"][2:]
        elif tag == "td" and a.get("class") == "name":
            self.in_name = True
        elif tag == "div" and a.get("class") == "vals":
            self.in_vals = True
        elif tag == "img" and "data-rank" in a:
            colour = a["style"].split("border-color:")[1]
            self.strips.setdefault((self.query, self.run), []).append(
                (int(a["data-rank"]), a["data-item"], a["src"], colour)
            )
        elif tag == "img" and a.get("alt", "").startswith("query "):
            self.query_img[self.query] = a["src"]

    def handle_endtag(self, tag):
        if tag == "div":
            self.in_vals = False

    def handle_data(self, data):
        if self.in_name:
            self.run = data
            self.in_name = False
        elif self.in_vals and data.strip():  # "NN 1.0000" spans, one a measure
            self.values.setdefault((self.query, self.run), []).append(data)


@pytest.fixture
def contest(tmp_path):
    """19 models in 5 classes (leave-one-out), two runs, a flat shapes
    folder: boxes for aircraft, spheres for animals, cylinders for chairs,
    one model's file missing."""
    classes = make_classes()
    cla = write_cla(tmp_path / "c.cla", classes)
    ids = [m for _, _, ms in classes for m in ms]
    shapes = tmp_path / "shapes"
    shapes.mkdir()
    maker = {
        "jet": lambda: trimesh.creation.box(extents=(2, 0.5, 1)),
        "prop": lambda: trimesh.creation.box(),
        "dog": lambda: trimesh.creation.icosphere(2),
        "cat": lambda: trimesh.creation.capsule(),
        "chair": lambda: trimesh.creation.cylinder(0.5, 2, sections=12),
    }
    for name, _, ms in classes:
        for m in ms:
            if m != "9":
                maker[name]().export(shapes / f"m{m}.off")
    runs = []
    for seed, name in ((1, "good"), (2, "other")):
        d = distances(len(ids), len(ids), seed)
        runs.append((write_ascii_matrix(tmp_path / f"{name}.txt", d), d))
    return {"cla": cla, "ids": ids, "shapes": shapes, "runs": runs, "classes": classes}


def _expected_top(d, row, ids):
    order = [j for j in ranking(d, row) if j != row]  # the self-match removed
    return [ids[j] for j in order[:K]]


def test_gallery_holds_the_right_images_at_the_right_ranks(contest, tmp_path):
    rep = tmp_path / "rep"
    code, text = run_main(
        [
            "evaluate",
            str(contest["cla"]),
            *(str(p) for p, _ in contest["runs"]),
            "--names",
            "good,other",
            "--shapes",
            str(contest["shapes"]),
            "--report",
            str(rep),
            "--gallery-k",
            str(K),
            "--thumbnail-size",
            "64",
            "--json",
            str(tmp_path / "r.json"),
        ]
    )
    assert code == 0
    assert "note: shapes: shapes that could not be shown: 1 (e.g. 9 (no shape file))" in text
    assert (rep / "index.html").is_file() and (rep / "gallery.html").is_file()
    page = (rep / "gallery.html").read_text()
    # the organiser's folders are not printed: the assessment by its name
    for name in ("gallery.html", "index.html"):
        text = (rep / name).read_text()
        assert str(tmp_path) not in text and "Assessment: c.cla" in text, name
    # the query on the left of its runs' strips (one cell over their rows)
    assert page.count('<td class="query" rowspan="2">') == len(contest["ids"])
    g = _Gallery()
    g.feed(page)
    ids = contest["ids"]
    cls = {m: name for name, _, ms in contest["classes"] for m in ms}
    assert set(g.query_img) == set(ids)
    for (_, d), run in zip(contest["runs"], ("good", "other")):
        for row, q in enumerate(ids):
            strip = g.strips[(q, run)]
            want = _expected_top(d, row, ids)
            assert [(r, item) for r, item, _, _ in strip] == list(enumerate(want, 1))
            for _, item, src, colour in strip:
                grade = 2 if cls[item] == cls[q] else 0
                assert colour == "#{:02x}{:02x}{:02x}".format(*GRADE_COLOURS[grade])
                png = decode_png((rep / src).read_bytes())
                files = ShapeFiles(mesh=contest["shapes"] / f"m{item}.off") if item != "9" else None
                assert (png == thumbnail(files, 64).rgba).all(), (q, run, item)
    # the query image is the query's own shape
    q_png = decode_png((rep / g.query_img["0"]).read_bytes())
    assert (q_png == thumbnail(ShapeFiles(mesh=contest["shapes"] / "m0.off"), 64).rgba).all()
    # the measure values shown are the run's values for that query
    doc = json.loads((tmp_path / "r.json").read_text())
    for r in doc["runs"]:
        for q in ("0", "7"):
            v = r["per_query"][q]
            assert g.values[(q, r["name"])][:2] == [f"NN {v['nn']:.4f}", f"FT {v['ft_psb']:.4f}"]
    # each thumbnail is written once
    assert len(list((rep / "thumbs").iterdir())) == 2 * len(ids)
    assert "Data checks" in (rep / "gallery.html").read_text()


def test_gallery_worst_picks_each_runs_worst_queries(contest, tmp_path):
    rep = tmp_path / "rep"
    argv = [
        "evaluate",
        str(contest["cla"]),
        *(str(p) for p, _ in contest["runs"]),
        "--names",
        "good,other",
        "--shapes",
        str(contest["shapes"]),
        "--gallery",
        "worst",
        "--gallery-queries",
        "2",
        "--rank-by",
        "nn",
        "--json",
        str(tmp_path / "r.json"),
        "--report",
        str(rep),
    ]
    assert run_main(argv)[0] == 0
    doc = json.loads((tmp_path / "r.json").read_text())
    want = set()
    for r in doc["runs"]:
        pq = r["per_query"]
        order = sorted(pq, key=lambda q: pq[q]["ap_trec_r"] * 0 + pq[q]["nn"])
        # the two lowest NN of the run (stable: in query order among ties)
        qs = list(pq)
        order = sorted(qs, key=lambda q: pq[q]["nn"])
        want |= set(order[:2])
    g = _Gallery()
    g.feed((rep / "gallery.html").read_text())
    assert set(g.query_img) == want
    assert "worst 1 of good" in (rep / "gallery.html").read_text()


def test_no_gallery_without_shapes(contest, tmp_path):
    rep = tmp_path / "rep"
    code, _ = run_main(
        ["evaluate", str(contest["cla"]), str(contest["runs"][0][0]), "--report", str(rep)]
    )
    assert code == 0 and not (rep / "gallery.html").exists() and not (rep / "thumbs").exists()


def test_a_missing_shapes_folder_is_refused_before_scoring(contest, tmp_path):
    code, _ = run_main(
        [
            "evaluate",
            str(contest["cla"]),
            str(contest["runs"][0][0]),
            "--shapes",
            str(tmp_path / "nope"),
            "--report",
            str(tmp_path / "rep"),
        ]
    )
    assert code == 2 and not (tmp_path / "rep").exists()


def test_thumbnails_command(contest, tmp_path, capsys):
    out = tmp_path / "thumbs"
    code, text = run_main(
        ["thumbnails", "--shapes", str(contest["shapes"]), str(out), "--size", "48"]
    )
    assert code == 0 and "18 thumbnails of" in text and "flat layout" in text
    names = sorted(p.name for p in out.iterdir())
    assert names == sorted(f"{m}.png" for m in contest["ids"] if m != "9")
    png = decode_png((out / "15.png").read_bytes())
    assert (png == thumbnail(ShapeFiles(mesh=contest["shapes"] / "m15.off"), 48).rgba).all()
    # a broken file: a placeholder and a note, exit 0
    (contest["shapes"] / "m3.off").write_text("OFF\n1 1 0\n")
    code, text = run_main(
        ["thumbnails", "--shapes", str(contest["shapes"]), str(out), "--size", "48"]
    )
    assert (
        code == 0
        and "note: shapes that could not be shown: 1 (e.g. 3 (m3.off: cannot be read" in text
    )
    # the output may not go inside the shapes folder
    code, _ = run_main(
        ["thumbnails", "--shapes", str(contest["shapes"]), str(contest["shapes"] / "t")]
    )
    assert code == 2 and not (contest["shapes"] / "t").exists()
    err = capsys.readouterr().err
    assert "OUT" in err


def test_the_demo_report_has_a_gallery(tmp_path):
    rep = tmp_path / "rep"
    code, _ = run_main(
        ["demo", "--report", str(rep), "--gallery", "best", "--gallery-queries", "1"]
    )
    assert code == 0
    g = _Gallery()
    g.feed((rep / "gallery.html").read_text())
    assert 1 <= len(g.query_img) <= 7 and all(len(s) == 10 for s in g.strips.values())
    assert len(g.strips) == 7 * len(g.query_img)
    for _, _, src, _ in next(iter(g.strips.values())):
        assert decode_png((rep / src).read_bytes())[..., 3].any()  # a drawn mesh
    assert all(Path(rep / s).is_file() for s in g.query_img.values())


def test_the_gallery_lists_each_run_in_one_pass(monkeypatch):
    """The gallery's lists: every picked query of a run from one preparation
    of the run's lists (not one per query and run), each strip the query's
    ranked list as the app shows it (query_detail), cut at K."""
    import numpy as np
    from shrec_eval import evaluate
    from shrec_eval.outputs.gallery import gallery_files, run_lists
    from shrec_eval.reading.formats.matrix import MatrixRun
    from shrec_eval.scoring import list_views
    from test_scoring_engine_hits import graded

    rng = np.random.default_rng(5)
    a = graded(24, rng)
    runs = [MatrixRun(f"run{i}", rng.random((24, 24)).astype(np.float32), a) for i in range(3)]
    results = [evaluate(a, r) for r in runs]
    prepared = []
    real = list_views._prepare
    monkeypatch.setattr(list_views, "_prepare", lambda *x: prepared.append(1) or real(*x))
    files, _ = gallery_files(
        a, results, run_lists(a, runs, None), None, keys=["nn"], rank_key="nn", k=K
    )
    assert len(prepared) == len(runs)  # not 24 x 3
    g = _Gallery()
    g.feed(files["gallery.html"])
    assert len(g.query_img) == 24 and len(g.strips) == 24 * 3
    for (q, name), strip in g.strips.items():
        d = list_views.query_detail(a, runs[int(name[-1])], q)
        assert [(rank, item) for rank, item, _, _ in strip] == [
            (rank, a.item_ids[j]) for rank, j in enumerate(d.item_indices[:K], 1)
        ]
        framed = ["#{:02x}{:02x}{:02x}".format(*GRADE_COLOURS[min(g, 2)]) for g in d.gains[:K]]
        assert [colour for *_, colour in strip] == framed
    # the N worst of each run: said so, each run's strips of those queries
    files, _ = gallery_files(
        a, results, run_lists(a, runs, None), None, keys=["nn"], rank_key="nn", mode="worst", n=4
    )
    assert "<p>The 4 worst queries of each run (by Nearest Neighbour)" in files["gallery.html"]
    g = _Gallery()
    g.feed(files["gallery.html"])
    assert len(g.query_img) == 6 and len(g.strips) == 3 * 6  # runs share some of their worst
