"""Embedding runs (feature vectors ranked by distance), MAP@R and --top-k.

An embedding run scores exactly as the distance matrix that
``shrec-eval distances`` writes for it (every metric, float16/32/64, ids in
any order, cross-domain queries, blocks of queries of any size, tiles of any
size); the distances are the metric's (against float64 numpy); the first K
kept by ``--top-k`` are the first K of the full ranking; bad inputs are
refused naming the file.  MAP@R against hand-computed values and the plain
loops of ``tests/reference.py``."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
import reference
from contest_files import write_cla
from helpers import gains_contest
from shrec_eval import Assessment, EvalOptions, RankedRun, evaluate
from shrec_eval.cli.parser import main
from shrec_eval.contest import Contest, RunSource
from shrec_eval.errors import ContestFileError, FormatError
from shrec_eval.kernels import distances as tiles
from shrec_eval.reading.formats import embeddings as emb
from shrec_eval.reading.formats.file_rows import FileRows
from shrec_eval.reading.readers import detect_run_format, load_assessment, load_run, sniff
from shrec_eval.scoring.measures import measure_by_key, resolve
from tiers import examples

N, DIM, N_CLASSES = 150, 12, 6
METRICS = ("cosine", "euclidean", "sqeuclidean", "dot")
#: an engine block of a few queries (not a multiple of a tile): per query
#: the engine budgets 64 x 150 + 152 bytes, two blocks at once
SMALL_BUDGET = 2 * 7 * (64 * N + N + 2)


def _labels(n=N, seed=0):
    """Classes of the models 0..n-1, ascending: the .cla lists them by
    class, so the collection's item order is then the models' order."""
    return np.sort(np.random.default_rng(seed).integers(0, N_CLASSES, n))


def _write_target(path, labels, prefix=""):
    classes = [
        (f"c{c}", "0", [f"{prefix}{i}" for i in np.flatnonzero(labels == c)])
        for c in range(N_CLASSES)
    ]
    return write_cla(path, classes)


def _features(labels, dtype=np.float32, seed=1, dim=DIM):
    """Clustered features, with exact duplicate rows (tied distances)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((N_CLASSES, dim)) * 1.5
    f = centres[labels] + rng.standard_normal((labels.size, dim))
    f[5] = f[4]
    if labels.size > 40:
        f[40] = f[4]
    return f.astype(dtype)


def _reference_distances(q, g, metric):
    q, g = q.astype(np.float64), g.astype(np.float64)
    dot = q @ g.T
    if metric == "dot":
        return -dot
    if metric == "cosine":
        return 1 - dot / np.linalg.norm(q, axis=1)[:, None] / np.linalg.norm(g, axis=1)[None, :]
    sq = (q * q).sum(1)[:, None] + (g * g).sum(1)[None, :] - 2 * dot
    return np.sqrt(np.maximum(sq, 0)) if metric == "euclidean" else sq


def _same_results(r1, r2):
    assert r1.keys == r2.keys
    assert np.array_equal(r1.values, r2.values, equal_nan=True)
    for key in r1.curves:
        assert np.array_equal(r1.curves[key].per_query, r2.curves[key].per_query, equal_nan=True), (
            key
        )
    ties = [[w.to_dict() for w in r.warnings if w.code == "ties"] for r in (r1, r2)]
    assert ties[0] == ties[1]


def _score_both(a, run, matrix):
    for budget in (SMALL_BUDGET, EvalOptions().memory_budget):
        o = EvalOptions(memory_budget=budget)
        _same_results(evaluate(a, run, o), evaluate(a, matrix, o))


@pytest.fixture
def small_tiles(monkeypatch):
    """Tiles of 16 rows x 40 columns: several tiles and pieces per matrix."""
    monkeypatch.setattr(tiles, "TILE_ROWS", 16)
    monkeypatch.setattr(tiles, "TILE_COLS", 40)
    monkeypatch.setattr(tiles, "TOPK_TILES", 2)


# -- embeddings = the matrix they produce ----------------------------------------------


@pytest.mark.parametrize("tiles", ["default tiles", "small tiles"])
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
@pytest.mark.parametrize("metric", METRICS)
def test_embeddings_score_as_the_matrix_they_produce(tmp_path, request, metric, dtype, tiles):
    if tiles == "small tiles":
        request.getfixturevalue("small_tiles")
    labels = _labels()
    cla = _write_target(tmp_path / "target.cla", labels)
    f = _features(labels, dtype)
    np.save(tmp_path / "f.npy", f)
    out = tmp_path / "d.matrix"
    assert main(["distances", str(tmp_path / "f.npy"), "--metric", metric, "-o", str(out)]) == 0
    a = load_assessment(cla)
    run = load_run(tmp_path / "f.npy", a, metric=metric)
    matrix = load_run(out, a)
    assert matrix.format == "PSB binary matrix (float32)"
    assert run.format == f"embeddings (.npy, {DIM}-d {np.dtype(dtype)}, {metric} distance)"
    _score_both(a, run, matrix)
    d = np.fromfile(out, dtype="<f4").reshape(N, N).astype(np.float64)
    want = _reference_distances(f, f, metric)
    if metric == "euclidean":  # |q|^2 + |g|^2 - 2 q.g: the error is in the square
        d, want = d * d, want * want
    assert np.allclose(d, want, atol=1e-5 * np.abs(want).max(), rtol=0)


def test_blocks_of_queries_never_change_a_distance(tmp_path, small_tiles):
    """Rows asked in any blocks (the engine's, ragged, out of order) are
    the rows of the whole matrix, bit for bit."""
    labels = _labels()
    np.save(tmp_path / "f.npy", _features(labels))
    a = load_assessment(_write_target(tmp_path / "t.cla", labels))
    whole = np.concatenate(
        [load_run(tmp_path / "f.npy", a).matrix.tile(t) for t in range(-(-N // 16))]
    )
    d = load_run(tmp_path / "f.npy", a).matrix
    assert np.array_equal(d[3:90], whole[3:90])
    rows = np.array([149, 2, 77, 78, 15, 16, 0])
    assert np.array_equal(d[rows], whole[rows])
    assert np.array_equal(d[17:18], whole[17:18])


def test_ids_in_any_order_score_as_rows_in_item_order(tmp_path, small_tiles):
    labels = _labels()
    cla = _write_target(tmp_path / "t.cla", labels)
    f = _features(labels)
    np.save(tmp_path / "f.npy", f)
    perm = np.random.default_rng(3).permutation(N)
    ids = np.array([f"m{i:04d}" for i in range(N)])  # normalised to the .cla's ids
    np.savez(tmp_path / "shuffled.npz", features=f[perm], ids=ids[perm])
    np.savez_compressed(tmp_path / "packed.npz", features=f[perm], ids=ids[perm])
    np.save(tmp_path / "shuffled.npy", f[perm])
    (tmp_path / "ids.txt").write_text("".join(f"{i}\n" for i in perm))
    a = load_assessment(cla)
    in_order = evaluate(a, load_run(tmp_path / "f.npy", a))
    # an uncompressed .npz is read from the file a block of rows at a time
    # (never whole, never memory-mapped), a compressed one read whole
    assert isinstance(emb.load_features(tmp_path / "shuffled.npz").gallery, FileRows)
    assert isinstance(emb.load_features(tmp_path / "packed.npz").gallery, np.ndarray)
    for run in (
        load_run(tmp_path / "shuffled.npz", a),
        load_run(tmp_path / "packed.npz", a),
        load_run(tmp_path / "shuffled.npy", a, ids=tmp_path / "ids.txt"),
    ):
        _same_results(evaluate(a, run), in_order)
    out = tmp_path / "d.matrix"
    args = ["distances", str(tmp_path / "shuffled.npz"), "--assessment", str(cla), "-o", str(out)]
    assert main(args) == 0
    _score_both(a, load_run(tmp_path / "shuffled.npz", a), load_run(out, a))


def test_cross_domain_queries_against_a_gallery(tmp_path, small_tiles):
    labels = _labels()
    target = _write_target(tmp_path / "target.cla", labels)
    q_labels = np.arange(40) % N_CLASSES
    qclasses = [
        (f"c{c}", "0", [f"sketch{i}" for i in np.flatnonzero(q_labels == c)])
        for c in range(N_CLASSES)
    ]
    queries = write_cla(tmp_path / "queries.cla", qclasses)
    g = _features(labels, seed=1, dim=20)
    q = _features(q_labels, seed=2, dim=20)[:40] + 0.5
    qp, gp = np.random.default_rng(5).permutation(40), np.random.default_rng(6).permutation(N)
    np.savez(
        tmp_path / "cross.npz",
        query_features=q[qp],
        query_ids=np.array([f"sketch{i}" for i in range(40)])[qp],
        gallery_features=g[gp],
        gallery_ids=gp,  # whole numbers are ids too
    )
    a = load_assessment(target, queries=queries)
    for metric in METRICS:
        out = tmp_path / f"{metric}.matrix"
        args = [
            "distances",
            str(tmp_path / "cross.npz"),
            "--metric",
            metric,
            "--assessment",
            str(target),
            "--queries",
            str(queries),
            "-o",
            str(out),
        ]
        assert main(args) == 0
        run = load_run(tmp_path / "cross.npz", a, metric=metric)
        assert run.format.startswith("cross-domain embeddings (.npz, 20-d float32")
        assert not [w for w in run.warnings if w.code == "self_match"]
        _score_both(a, run, load_run(out, a))
        d = np.fromfile(out, dtype="<f4").reshape(40, N).astype(np.float64)
        rows = [int(s.removeprefix("sketch")) for s in a.query_ids]  # the .cla's order
        want = _reference_distances(q[rows], g, metric)
        if metric == "euclidean":
            d, want = d * d, want * want
        assert np.allclose(d, want, atol=1e-5 * np.abs(want).max(), rtol=0)


def test_the_note_says_the_self_match_is_removed(tmp_path):
    labels = _labels()
    np.save(tmp_path / "f.npy", _features(labels))
    a = load_assessment(_write_target(tmp_path / "t.cla", labels))
    res = evaluate(a, load_run(tmp_path / "f.npy", a))
    note = next(w for w in res.warnings if w.code == "self_match")
    assert "taken out by default" in note.message and note.count == N
    # each query's own item comes first (rows 4, 5 and 40 are the same vector)
    firsts = load_run(tmp_path / "f.npy", a).ranked_block(np.arange(N))[0][:, 0]
    others = np.setdiff1d(np.arange(N), [4, 5, 40])
    assert np.array_equal(firsts[others], others) and set(firsts[[4, 5, 40]]) <= {4, 5, 40}
    # and is taken out of its list: nn is then the nearest other item's class
    kept = evaluate(a, load_run(tmp_path / "f.npy", a), EvalOptions(remove_self=False))
    assert kept.mean("nn") >= (N - 2) / N > res.mean("nn")


# -- top-K -----------------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["euclidean", "dot"])  # dot: values of both signs
@pytest.mark.parametrize("k", [1, 10, 37, N + 5])
def test_top_k_keeps_the_first_k_of_the_ranking(tmp_path, small_tiles, k, metric):
    labels = _labels()
    np.save(tmp_path / "f.npy", _features(labels))
    a = load_assessment(_write_target(tmp_path / "t.cla", labels))
    full = load_run(tmp_path / "f.npy", a, metric=metric)
    top = load_run(tmp_path / "f.npy", a, metric=metric, top_k=k)
    rows = np.arange(N)
    order, _ = full.ranked_block(rows)
    lists, lengths = top.ranked_block(rows)
    for q in range(N):
        own = q in order[q, : min(k + 1, N)]
        want = min(k + 1, N) if own else min(k, N)
        assert lengths[q] == want
        assert np.array_equal(lists[q, :want], order[q, :want])
    o = EvalOptions(ranks=(1, min(k, 5)), memory_budget=SMALL_BUDGET)
    rf, rt = evaluate(a, full, o), evaluate(a, top, o)
    for key in ("nn", f"p@{min(k, 5)}", "ndcg@1"):
        assert np.array_equal(rf.column(key), rt.column(key)), key
    exact = rf.n_relevant <= k  # R, the query's own item left out
    for key in ("map@r", "ft_psb"):
        assert np.array_equal(rf.column(key)[exact], rt.column(key)[exact]), key
    notes = [w for w in rt.warnings if w.code == "top_k"]
    if k + 1 >= N:  # no list is cut: every value exact, and no note calls one a bound
        assert not notes
        assert all(np.array_equal(rf.column(m), rt.column(m), equal_nan=True) for m in rf.keys)
        return
    note = notes[0]
    assert note.count == int((rf.n_relevant > k).sum())
    assert f"first {k} results" in note.message and "map@r where R <=" in note.message


@pytest.mark.parametrize(
    "own, k, cut",
    [(True, 4, True), (True, 5, False), (True, 100, False), (False, 5, True), (False, 6, False)],
)
def test_top_k_notes_bounds_only_when_a_list_is_cut(tmp_path, own, k, cut):
    """A gallery of 6: K = 5 cuts no list of a query that is a gallery item
    (its own item is kept besides the K), an external query's needs K = 6;
    a K that cuts nothing gives every value of the full ranking and no note
    calls one a bound."""
    rng = np.random.default_rng(4)
    target = write_cla(
        tmp_path / "t.cla", [("a", "0", ["0", "1", "2"]), ("b", "0", ["3", "4", "5"])]
    )
    gallery = rng.standard_normal((6, 3)).astype(np.float32)
    if own:
        path = tmp_path / "f.npy"
        np.save(path, gallery)
        a = load_assessment(target)
    else:
        queries = write_cla(tmp_path / "q.cla", [("a", "0", ["s1"]), ("b", "0", ["s2"])])
        path = tmp_path / "x.npz"
        np.savez(path, query_features=rng.standard_normal((2, 3)).astype(np.float32),
                 query_ids=np.array(["s1", "s2"]), gallery_features=gallery,
                 gallery_ids=np.arange(6))  # fmt: skip
        a = load_assessment(target, queries=queries)
    full, top = load_run(path, a), load_run(path, a, top_k=k)
    notes = [w for w in top.warnings if w.code == "top_k"]
    rf, rt = evaluate(a, full), evaluate(a, top)
    if cut:
        assert len(notes) == 1 and "become lower bounds" in notes[0].message
    else:
        assert not notes
        assert all(np.array_equal(rf.column(m), rt.column(m), equal_nan=True) for m in rf.keys)


def test_top_k_with_external_queries(tmp_path, small_tiles):
    labels = _labels()
    target = _write_target(tmp_path / "target.cla", labels)
    queries = write_cla(tmp_path / "q.cla", [("c0", "0", ["s1", "s2"]), ("c3", "0", ["s3"])])
    q = np.random.default_rng(9).standard_normal((3, DIM)).astype(np.float32)
    np.savez(
        tmp_path / "x.npz",
        query_features=q,
        query_ids=np.array(["s1", "s2", "s3"]),
        gallery_features=_features(labels),
        gallery_ids=np.arange(N),
    )
    a = load_assessment(target, queries=queries)
    order, _ = load_run(tmp_path / "x.npz", a).ranked_block(np.arange(3))
    lists, lengths = load_run(tmp_path / "x.npz", a, top_k=12).ranked_block(np.arange(3))
    assert lengths.tolist() == [12, 12, 12]
    assert np.array_equal(lists, order[:, :12])
    # the note counts the queries whose R exceeds K (no own item to leave out)
    r = np.diff(a.indptr)
    for k in (int(r.min()), int(r.max()) - 1):
        note = [w for w in load_run(tmp_path / "x.npz", a, top_k=k).warnings if w.code == "top_k"]
        assert note[0].count == int((r > k).sum()) > 0


# -- MAP@R and the aliases -------------------------------------------------------------


def test_map_at_r_by_hand():
    # R = 4: hits at ranks 1, 3, 4 (and 6, past R): (1 + 2/3 + 3/4) / 4
    a, run = gains_contest(
        {
            "q": ([1, 0, 1, 1, 0, 1], [1, 1, 1, 1]),
            # graded: every grade >= 1 is relevant; R = 3; hits at 2 and 3: (1/2 + 2/3) / 3
            "g": ([0, 2, 1, 0, 2], [2, 2, 1]),
            "none": ([0, 0], []),  # nothing to find: undefined
            "short": ([1], [1, 1, 1]),  # a list shorter than R: 1/3
        },
        ds=20,
    )
    res = evaluate(a, run)
    col = dict(zip(a.query_ids, res.column("map@r")))
    assert col["q"] == pytest.approx(29 / 48, abs=1e-15)
    assert col["g"] == pytest.approx((1 / 2 + 2 / 3) / 3, abs=1e-15)
    assert np.isnan(col["none"])
    assert col["short"] == pytest.approx(1 / 3, abs=1e-15)


def test_map_at_r_against_the_reference_on_random_lists():
    rng = np.random.default_rng(11)
    for trial in range(30):
        n_items = int(rng.integers(5, 60))
        items = [f"i{j}" for j in range(n_items)]
        judgments, lists = {}, {}
        for q in range(int(rng.integers(1, 12))):
            rel = rng.random(n_items) < rng.random()
            grades = rng.integers(1, 3, n_items)
            judgments[f"q{q}"] = {items[j]: int(grades[j]) for j in np.flatnonzero(rel)}
            length = int(rng.integers(0, n_items + 1))
            lists[f"q{q}"] = [items[j] for j in rng.permutation(n_items)[:length]]
        a = Assessment.from_judgments(judgments, items, top_grade=2)
        res = evaluate(a, RankedRun.from_lists("r", lists, a))
        for qi, q in enumerate(a.query_ids):
            gains = [judgments[q].get(it, 0) for it in lists[q]]
            want = reference.map_at_r(gains, len(judgments[q]))
            got = res.column("map@r")[qi]
            if want is None:
                assert np.isnan(got), (trial, q)
            else:
                assert got == pytest.approx(float(want), abs=1e-12), (trial, q, gains)


def test_aliases_name_the_registry_measures(tmp_path):
    assert resolve("mean_average_precision_at_r") == "map@r"
    assert resolve("r_precision") == "ft_psb"
    assert resolve("precision_at_1") == "nn"
    assert resolve("ap_trec_r") == "ap_trec_r"
    assert measure_by_key("r_precision").label == "First Tier (PSB)"
    assert measure_by_key("mean_average_precision_at_r").key == "map@r"
    labels = _labels()
    cla = _write_target(tmp_path / "t.cla", labels)
    np.save(tmp_path / "f.npy", _features(labels))
    out = tmp_path / "r.json"
    args = ["evaluate", str(cla), str(tmp_path / "f.npy"), "--json", str(out)]
    args += ["--columns", "precision_at_1,r_precision", "--rank-by", "mean_average_precision_at_r"]
    sink = io.StringIO()
    assert main(args, out=sink) == 0
    table = sink.getvalue()
    assert "ranked by map@r" in table and "ft_psb" in table.splitlines()[0]
    doc = json.loads(out.read_text())
    run = doc["runs"][0]
    assert "metric" not in run["reader"]  # the default (cosine): nothing to write
    assert run["format"] == f"embeddings (.npy, {DIM}-d float32, cosine distance)"
    assert 0 < run["mean"]["map@r"] <= run["mean"]["ft_psb"]


# -- reading: detection, contest files, the command line -------------------------------


def test_detection_and_contest_files(tmp_path):
    labels = _labels()
    cla = _write_target(tmp_path / "t.cla", labels)
    f = _features(labels)
    np.save(tmp_path / "f.npy", f)
    np.savez(tmp_path / "f.npz", features=f, ids=np.arange(N))
    (tmp_path / "ids.txt").write_text("".join(f"{i}\n" for i in range(N)))
    a = load_assessment(cla)
    for name in ("f.npy", "f.npz"):
        assert sniff(tmp_path / name) == "embeddings"
        assert detect_run_format(tmp_path / name, a) == "embeddings"
    doc = {
        "version": 2,
        "assessment": {"path": "t.cla"},
        "runs": [
            {"path": "f.npy", "metric": "dot", "ids": "ids.txt", "top_k": 7},
            {"path": "f.npz"},
        ],
    }
    (tmp_path / "c.json").write_text(json.dumps(doc))
    c = Contest.read(tmp_path / "c.json")
    src = c.runs[0]
    assert (src.metric, src.ids, src.top_k) == ("dot", tmp_path / "ids.txt", 7)
    run = src.load(a)
    assert run.format.endswith("dot distance), first 7") and run.max_length == 8
    c.write(tmp_path / "again.json")
    back = json.loads((tmp_path / "again.json").read_text())["runs"]
    assert back[0]["metric"] == "dot" and back[0]["ids"] == "ids.txt" and back[0]["top_k"] == 7
    assert "metric" not in back[1]
    doc["runs"] = [{"path": "f.npy", "metric": "manhattan"}]
    (tmp_path / "bad.json").write_text(json.dumps(doc))
    with pytest.raises(FormatError, match="bad.json.*unknown metric 'manhattan'"):
        Contest.read(tmp_path / "bad.json")
    assert RunSource(tmp_path / "f.npy").to_dict().keys() == RunSource(cla).to_dict().keys()


def test_check_and_every_profile_take_embeddings(tmp_path):
    labels = _labels()
    cla = _write_target(tmp_path / "t.cla", labels)
    np.save(tmp_path / "f.npy", _features(labels))
    sink = io.StringIO()
    assert main(["check", str(cla), str(tmp_path / "f.npy")], out=sink) == 0
    assert "format: embeddings (.npy" in sink.getvalue() and "verdict: OK" in sink.getvalue()
    # --strict: the tied distances of the repeated rows are a problem, not the self-match
    sink = io.StringIO()
    assert main(["check", str(cla), str(tmp_path / "f.npy"), "--strict"], out=sink) == 1
    assert (
        "problem: tied pairs" in sink.getvalue() and "problem: the queries" not in sink.getvalue()
    )
    for profile in ("shrec", "boli", "psbtable", "trec_eval"):
        args = ["evaluate", str(cla), str(tmp_path / "f.npy"), "--profile", profile]
        assert main(args + ["--metric", "euclidean", "--top-k", "20"], out=sink) == 0
        assert main(args, out=sink) == 0


def test_distances_refuses_to_replace_its_input(tmp_path, capsys):
    labels = _labels()
    np.save(tmp_path / "f.npy", _features(labels))
    before = (tmp_path / "f.npy").read_bytes()
    assert main(["distances", str(tmp_path / "f.npy"), "-o", str(tmp_path / "f.npy")]) == 2
    assert "--output" in capsys.readouterr().err
    assert (tmp_path / "f.npy").read_bytes() == before


# -- bad inputs, named -----------------------------------------------------------------


def _bad(tmp_path, name, message, *, save=None, savez=None, a=None, **kw):
    labels = _labels()
    cla = _write_target(tmp_path / "t.cla", labels)
    path = tmp_path / name
    if save is not None:
        np.save(path, save)
    if savez is not None:
        np.savez(path, **savez)
    with pytest.raises(ContestFileError, match=message) as info:
        load_run(path, a or load_assessment(cla), **kw)
    return str(info.value)


def test_bad_feature_values_are_named(tmp_path):
    f = _features(_labels())
    nan = f.copy()
    nan[7, 3] = np.nan
    msg = _bad(tmp_path, "nan.npy", "row 8 of the array holds NaN or infinite", save=nan)
    assert msg.startswith(str(tmp_path / "nan.npy"))
    inf = f.copy()
    inf[9] = np.inf
    _bad(
        tmp_path,
        "inf.npz",
        r"row 10 \(id 9\) of features holds NaN",
        savez={"features": inf, "ids": np.arange(N)},
    )
    zero = f.copy()
    zero[2] = 0
    _bad(tmp_path, "zero.npy", "row 3 of the array is all zeros: its cosine", save=zero)
    assert load_run(tmp_path / "zero.npy", load_assessment(tmp_path / "t.cla"), metric="dot")
    huge = np.full((N, DIM), 1e20, dtype=np.float32)
    a = load_assessment(tmp_path / "t.cla")
    run = load_run(_save(tmp_path / "huge.npy", huge), a, metric="dot")
    with pytest.raises(FormatError, match="huge.npy: the dot distance .* beyond float32's range"):
        evaluate(a, run)


def _save(path, arr):
    np.save(path, arr)
    return path


def test_bad_shapes_and_types_are_named(tmp_path):
    f = _features(_labels())
    _bad(
        tmp_path,
        "short.npy",
        "149 feature rows, but the assessment's collection has 150",
        save=f[:-1],
    )
    _bad(
        tmp_path,
        "int.npy",
        "holds int64 values; float16, float32 or float64",
        save=np.ones((N, 3), np.int64),
    )
    _bad(tmp_path, "flat.npy", "must be a 2-D array", save=np.ones(N, np.float32))
    _bad(tmp_path, "keys.npz", "holds 'features' .* this one holds 'x'", savez={"x": f})
    _bad(
        tmp_path,
        "count.npz",
        "149 ids for the 150 rows of features",
        savez={"features": f, "ids": np.arange(N - 1)},
    )
    (tmp_path / "cut.npy").write_bytes(_save(tmp_path / "whole.npy", f).read_bytes()[:500])
    _bad(tmp_path, "cut.npy", "cut.npy: the .npy file is cut short: its header declares 150 x 12")
    (tmp_path / "ids.txt").write_text("1\n2\n")
    _bad(
        tmp_path,
        "f.npy",
        "ids.txt: 2 ids for the 150 rows of f.npy",
        save=f,
        ids=tmp_path / "ids.txt",
    )
    _bad(tmp_path, "f.npy", "unknown metric 'l1'", save=f, metric="l1")


def test_unknown_missing_and_repeated_ids_are_named(tmp_path):
    f = _features(_labels())
    ids = np.arange(N)
    unknown = ids.copy()
    unknown[4] = 9999
    _bad(
        tmp_path,
        "u.npz",
        r"1 collection items of the assessment have no feature row \(4\)",
        savez={"features": f, "ids": unknown},
    )
    more = np.concatenate([f, f[:1]])
    _bad(
        tmp_path,
        "x.npz",
        r"1 ids the assessment does not have \(777\)",
        savez={"features": more, "ids": np.append(ids, 777)},
    )
    as_objects = np.array([str(i) for i in ids], dtype=object)  # as pandas gives them
    _bad(
        tmp_path,
        "o.npz",
        r"ids holds Python objects .*; save ids as strings",
        savez={"features": f, "ids": as_objects},
    )
    twice = ids.copy()
    twice[3] = 2
    _bad(tmp_path, "t.npz", "id 2 names rows 3 and 4", savez={"features": f, "ids": twice})


def test_external_queries_need_their_own_features(tmp_path):
    labels = _labels()
    target = _write_target(tmp_path / "target.cla", labels)
    queries = write_cla(tmp_path / "q.cla", [("c0", "0", ["s1"])])
    a = load_assessment(target, queries=queries)
    _bad(
        tmp_path,
        "f.npy",
        r"queries that are not collection items \(s1\)",
        save=_features(labels),
        a=a,
    )
    g = _features(labels)
    cross = {"gallery_features": g, "gallery_ids": np.arange(N)}
    np.savez(tmp_path / "x.npz", query_features=g[:1], query_ids=np.array(["s9"]), **cross)
    with pytest.raises(FormatError, match=r"x.npz: 1 query ids the assessment does not have"):
        load_run(tmp_path / "x.npz", a)
    np.savez(tmp_path / "y.npz", query_features=g[:0, :], query_ids=np.array([], str), **cross)
    with pytest.raises(FormatError, match="y.npz: query_features is empty"):
        load_run(tmp_path / "y.npz", a)
    np.savez(tmp_path / "z.npz", query_features=g[:1, :3], query_ids=np.array(["s1"]), **cross)
    with pytest.raises(FormatError, match="z.npz: query_features have 3 dimensions"):
        load_run(tmp_path / "z.npz", a)


def test_top_k_of_a_binary_matrix_and_what_refuses_it(tmp_path, small_tiles):
    labels = _labels()
    cla = _write_target(tmp_path / "t.cla", labels)
    a = load_assessment(cla)
    d = np.random.default_rng(0).integers(0, 40, (N, N)).astype("<f4")  # many ties
    d.tofile(tmp_path / "d.matrix")
    full = load_run(tmp_path / "d.matrix", a)
    top = load_run(tmp_path / "d.matrix", a, top_k=9)
    assert top.format == "PSB binary matrix (float32), first 9"
    order, _ = full.ranked_block(np.arange(N))
    lists, lengths = top.ranked_block(np.arange(N))
    for q in range(N):
        assert np.array_equal(lists[q, : lengths[q]], order[q, : lengths[q]])
        assert lengths[q] == (10 if q in order[q, :10] else 9)
    o = EvalOptions(ranks=(5, 9))
    rf, rt = evaluate(a, full, o), evaluate(a, top, o)
    for key in ("nn", "p@9", "ndcg@5"):
        assert np.array_equal(rf.column(key), rt.column(key)), key
    write_ascii = tmp_path / "d.txt"
    write_ascii.write_text("\n".join(" ".join(map(str, row)) for row in d[:, :].tolist()) + "\n")
    with pytest.raises(FormatError, match="d.txt: --top-k applies to embedding runs"):
        load_run(write_ascii, a, top_k=5)
    with pytest.raises(FormatError, match="d.matrix: --ids applies to embedding runs"):
        load_run(tmp_path / "d.matrix", a, ids=tmp_path / "d.txt")
    assert main(["evaluate", str(cla), str(write_ascii), "--top-k", "5"]) == 2


def test_the_app_tells_features_apart(tmp_path):
    pytest.importorskip("PySide6")
    from shrec_gui.workers.scoring import classify

    labels = _labels()
    np.save(tmp_path / "f.npy", _features(labels))
    np.savez(tmp_path / "f.npz", features=_features(labels), ids=np.arange(N))
    cla = _write_target(tmp_path / "t.cla", labels)
    kinds = dict(classify([tmp_path / "f.npy", tmp_path / "f.npz", cla]))
    assert kinds == {
        str(tmp_path / "f.npy"): "embeddings",
        str(tmp_path / "f.npz"): "embeddings",
        str(cla): "cla",
    }
    assert Path(cla).exists()


def test_the_number_of_blas_threads_changes_no_distance(tmp_path):
    """numpy's product of the same tile differs in its last bits with one or
    two BLAS threads (the negative control below); the distances are made
    on one BLAS thread whatever the process's setting, so the matrix written
    under two threads scores as the features under one."""
    from threadpoolctl import threadpool_limits

    n, dim = 1024, 256
    labels = np.sort(np.random.default_rng(7).integers(0, 10, n))
    cla = write_cla(
        tmp_path / "t.cla",
        [(f"c{c}", "0", [str(m) for m in np.flatnonzero(labels == c)]) for c in range(10)],
    )
    f = np.random.default_rng(8).standard_normal((n, dim)).astype(np.float32)
    np.save(tmp_path / "f.npy", f)
    with threadpool_limits(limits=1, user_api="blas"):
        one = f[:64] @ f.T
    with threadpool_limits(limits=2, user_api="blas"):
        two = f[:64] @ f.T
        assert main(["distances", str(tmp_path / "f.npy"), "-o", str(tmp_path / "d.matrix")]) == 0
    if np.array_equal(one, two):
        pytest.skip("this BLAS gives the same bits on one and two threads")
    a = load_assessment(cla)
    with threadpool_limits(limits=1, user_api="blas"):
        _score_both(a, load_run(tmp_path / "f.npy", a), load_run(tmp_path / "d.matrix", a))


@pytest.mark.slow
def test_any_features_tiles_and_blocks_score_as_their_matrix(tmp_path):
    """Hypothesis: small integer features (many exact ties), any metric and
    type, tiles and engine blocks of any size: the features score as the
    matrix of their distances, bit for bit, and top-K keeps its first K.
    Up to 40 items: more than the largest tile drawn has rows (20) or
    columns (30), more query tiles than top-K takes in one pass (16) at one
    or two rows a tile, and K goes past the items; at 1 x 1 tiles an
    example of 70 items took twice the time of one of 40, for no path more."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    @settings(max_examples=examples(150), deadline=None, suppress_health_check=list(HealthCheck))
    @given(
        n=st.integers(2, 40),
        dim=st.integers(1, 6),
        n_classes=st.integers(1, 5),
        metric=st.sampled_from(METRICS),
        dtype=st.sampled_from([np.float16, np.float32, np.float64]),
        tile_rows=st.integers(1, 20),
        tile_cols=st.integers(1, 30),
        budget=st.integers(1, 2**20),
        k=st.integers(1, 80),
        seed=st.integers(0, 2**32 - 1),
    )
    def check(n, dim, n_classes, metric, dtype, tile_rows, tile_cols, budget, k, seed):
        rng = np.random.default_rng(seed)
        f = rng.integers(-2, 3, (n, dim)).astype(dtype)
        f[~f.any(axis=1)] = 1  # no zero vector (cosine)
        labels = rng.integers(0, n_classes, n)
        items = [str(i) for i in range(n)]
        a = Assessment.from_judgments(
            {q: {j: 1 for j in items if labels[int(j)] == labels[int(q)]} for q in items},
            items,
            leave_one_out=True,
        )
        path = tmp_path / f"f{seed}.npy"
        np.save(path, f)
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(tiles, "TILE_ROWS", tile_rows)
            mp.setattr(tiles, "TILE_COLS", tile_cols)
            run = load_run(path, a, metric=metric)
            d = np.frombuffer(b"".join(emb.matrix_pieces(run.matrix)), "<f4").reshape(n, n)
            matrix = emb.MatrixRun("m", d.copy(), a, finite=True)
            o = EvalOptions(ranks=(1, 5), curve_length=10, memory_budget=budget)
            _same_results(evaluate(a, run, o), evaluate(a, matrix, o))
            order, _ = matrix.ranked_block(np.arange(n))
            lists, lengths = load_run(path, a, metric=metric, top_k=k).ranked_block(np.arange(n))
            for q in range(n):
                assert np.array_equal(lists[q, : lengths[q]], order[q, : lengths[q]])
        path.unlink()

    check()


def test_top_k_keys_keep_their_order_across_pieces(tmp_path, monkeypatch):
    """A piece whose distances are all positive beside one with negative
    ones (dot products): the keys of every piece map values alike."""
    monkeypatch.setattr(tiles, "TILE_ROWS", 1)
    monkeypatch.setattr(tiles, "TILE_COLS", 1)
    f = np.array([[1, 0], [-1, 0], [2, 0], [0.5, 0]], dtype=np.float32)
    np.save(tmp_path / "f.npy", f)
    items = ["0", "1", "2", "3"]
    a = Assessment.from_judgments({q: {"0": 1} for q in items}, items, leave_one_out=True)
    lists, lengths = load_run(tmp_path / "f.npy", a, metric="dot", top_k=3).ranked_block(
        np.arange(4)
    )
    # query 0: distances -1, 1, -2, -0.5: items 2, 0, 3 first
    assert lists[0, : lengths[0]].tolist() == [2, 0, 3, 1][: lengths[0]]
    assert lengths[0] == 4  # its own item among the first 4: K + 1 kept


@pytest.mark.parametrize("k", [1, 7, 40])
def test_top_k_judged_ranks_of_many_pairs_sorted_or_not(tmp_path, small_tiles, k):
    """The rank of each asked (list, item) pair in the top-K lists, -1 where
    the list does not hold it, whether the pairs outnumber the lists'
    entries or not and come in (list, item) order or not (the engine asks
    the judged items in that order, then the lists' own items)."""
    labels = _labels()
    np.save(tmp_path / "f.npy", _features(labels))
    a = load_assessment(_write_target(tmp_path / "t.cla", labels))
    top = load_run(tmp_path / "f.npy", a, metric="dot", top_k=k)
    rows = np.array([0, 3, 4, 77, 149])
    lists, lengths = top.ranked_block(rows)
    rng = np.random.default_rng(k)
    for per in (2, k + 1, N):  # pairs asked of each list: fewer or more than its entries
        # each list's first item asked among others
        asked = [
            np.union1d(rng.choice(N, per - 1, replace=False), lists[r, :1])
            for r in range(rows.size)
        ]
        pr = np.repeat(np.arange(rows.size), [x.size for x in asked])
        pi = np.concatenate(asked)
        want = np.array(
            [
                list(lists[r, : lengths[r]]).index(i) if i in lists[r, : lengths[r]] else -1
                for r, i in zip(pr.tolist(), pi.tolist())
            ]
        )
        assert (want >= 0).any() and (want < 0).any()
        for order in (np.arange(pr.size), rng.permutation(pr.size)):
            got_len, got = top.judged_ranks(rows, pr[order], pi[order])
            assert np.array_equal(got_len, lengths)
            assert np.array_equal(got, want[order])
