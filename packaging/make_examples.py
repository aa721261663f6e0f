"""Generate the example contests every command of README.md and docs/ runs on
(fixed seed; the output is checked in, and tests/test_project_examples.py
checks that running this script again writes the same bytes).

    python packaging/make_examples.py

Small on purpose (well under 1 MB), in the formats real contests use, told
apart by their content as every input is:

* ``psb_test.cla``: a PSB classification, 60 models in 6 classes under 3
  parent classes (leave-one-out: every model a query; ``--sister-classes``
  grades a sister class 1), scored by three runs in three formats:
  ``alice.matrix`` (PSB binary float32 matrix), ``bob.txt`` (ASCII matrix),
  ``carol/`` (a rank-list folder, one file per query, the first 20 results),
  and ``features.npz`` (feature vectors: ``features`` and ``ids``, the rows
  in another order than the collection's); ``contest.json`` is the contest
  file of the four;
* ``qrels.txt``: TREC qrels (8 topics, grades 0 to 2) over the 120 documents
  of ``collection.txt``, with two TREC runs, ``run.trec`` and ``run2.trec``
  (ties in their scores), and ``topics.npz``: feature vectors of the
  documents and of the topics, for ``--top-k``;
* ``datasetShape.cla``, ``queryShape.cla`` and ``testShape/``: a contest
  whose matrices are indexed by model id (SHREC 2021's layout,
  ``--profile sipiran21`` or ``--matrix-order id``), ids 0..N-1 listed by
  class, out of id order, with three runs named ``METHOD.RUN.txt``.

The runs come from a synthetic descriptor, as the demo's do
(packaging/make_demo.py, whose writers of ``.cla`` files and runs this script
uses): each class has a centre near its parent's, each model is its centre
plus noise, and a method's quality is how much noise its descriptor adds.
``.npz`` files are written with fixed zip timestamps, so that the bytes do
not depend on when the script runs.
"""

from __future__ import annotations

import io
import json
import shutil
import sys
import zipfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from make_demo import _write_cla, _write_run  # noqa: E402 - the demo's writers

#: the examples folder of the package data (this script lives outside it, so
#: that it is never installed)
HERE = Path(__file__).resolve().parents[1] / "resources" / "examples"
SEED = 1995
DIM = 16
PARENTS = {
    "furniture": ["chair", "table"],
    "vehicle": ["car", "bicycle"],
    "animal": ["dog", "bird"],
}
SIZES = [12, 10, 11, 9, 8, 10]  # 60 models
PSB_RUNS = [  # name, noise of the descriptor, format, extra
    ("alice", 0.7, "binary-matrix", {}),
    ("bob", 1.2, "ascii-matrix", {}),
    ("carol", 1.8, "ranklists", {"variant": "id-distance", "cut": 20}),
]
TOPICS = 8
DOCUMENTS = 120
TREC_RUNS = [("run", "alpha", 0.9), ("run2", "beta", 1.6)]  # file, tag, noise
SHAPE_CLASSES = ["amphora", "bowl", "figurine", "mask", "vessel"]
SHAPE_SIZES = ([9, 7, 8, 6, 6], [3, 2, 2, 2, 1])  # targets, queries
SHAPE_RUNS = [("Alice.run1.txt", 0.8), ("Alice.run2.txt", 1.1), ("Bob.run1.txt", 1.6)]

README = """\
# Example contests

Small contests in the formats real contests use, for trying every command of
shrec-eval's documentation. `shrec-eval examples DIR` copies this folder to DIR
(it is package data of the installed shrec-eval; in a clone of the repository
it is `resources/examples/`, made by `packaging/make_examples.py`).

| file | what it is |
|---|---|
| `psb_test.cla` | a PSB classification: 60 models, 6 classes under 3 parents |
| `alice.matrix` | a run: a PSB binary matrix (60 x 60 float32 dissimilarities) |
| `bob.txt` | a run: an ASCII matrix |
| `carol/` | a run: a rank-list folder, one file per query (its first 20 results) |
| `features.npz` | a run: feature vectors (`features`, `ids`) of the 60 models |
| `contest.json` | a contest file: `psb_test.cla` and the four runs above |
| `qrels.txt` | TREC qrels: 8 topics, grades 0 to 2, over the documents of `collection.txt` |
| `collection.txt` | the 120 document ids of the qrels' collection, one per line |
| `run.trec`, `run2.trec` | two TREC runs of the qrels' topics (ties in their scores) |
| `topics.npz` | feature vectors of the 120 documents and the 8 topics |
| `datasetShape.cla`, `queryShape.cla` | targets and queries of matrices indexed by id |
| `testShape/` | three runs of them, `METHOD.RUN.txt` (SHREC 2021's layout) |

Try:

    shrec-eval evaluate psb_test.cla alice.matrix bob.txt carol/ features.npz
    shrec-eval evaluate qrels.txt run.trec run2.trec --profile trec_eval
    shrec-eval evaluate datasetShape.cla --queries queryShape.cla testShape/* --profile sipiran21
"""


def _descriptors(rng, parents: dict, sizes: list[int]):
    """Class centres near their parent's, models around their class's."""
    centres = []
    for _parent, children in parents.items():
        pc = rng.normal(0, 1.6, DIM)
        centres += [pc + rng.normal(0, 0.9, DIM) for _ in children]
    X = np.concatenate([c + rng.normal(0, 0.8, (n, DIM)) for c, n in zip(centres, sizes)])
    return np.stack(centres), X


def _method(rng, X: np.ndarray, noise: float) -> np.ndarray:
    """A method's descriptor of the models: a distortion plus noise."""
    proj = np.eye(DIM) + rng.normal(0, 0.3, (DIM, DIM))
    return X @ proj + rng.normal(0, noise, X.shape)


def _dist(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    D = np.sqrt(((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))
    return np.round(D.astype(np.float32), 4).astype(np.float32)


def _write_npz(path: Path, arrays: dict[str, np.ndarray]) -> None:
    """An ``.npz`` as numpy writes it, but with fixed zip timestamps."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as z:
        for name, arr in arrays.items():
            buf = io.BytesIO()
            np.lib.format.write_array(buf, np.asarray(arr), allow_pickle=False)
            info = zipfile.ZipInfo(f"{name}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            z.writestr(info, buf.getvalue())


def _psb(out: Path, rng) -> None:
    _, X = _descriptors(rng, PARENTS, SIZES)
    classes = [c for children in PARENTS.values() for c in children]
    members, k = {}, 0
    for c, n in zip(classes, SIZES):
        members[c] = [str(k + i) for i in range(n)]
        k += n
    models = [m for c in classes for m in members[c]]
    _write_cla(out / "psb_test.cla", PARENTS, members)
    runs = []
    for name, noise, fmt, extra in PSB_RUNS:
        Xm = _method(rng, X, noise)
        entry = _write_run(out, name, fmt, _dist(Xm, Xm), models, models, **extra)
        runs.append(entry)
    # feature vectors: ids in another order than the collection's
    F = _method(rng, X, 1.0).astype(np.float32)
    order = rng.permutation(len(models))
    _write_npz(
        out / "features.npz",
        {"features": F[order], "ids": np.array([f"m{models[i]}" for i in order])},
    )
    runs.append({"name": "features", "format": "embeddings", "path": "features.npz"})
    for r in runs:
        r["name"] = r["name"].capitalize()
    manifest = {
        "version": 3,
        "name": "Example PSB contest (synthetic)",
        "description": "60 models in 6 classes under 3 parent classes, every model a query",
        "assessment": {"path": "psb_test.cla"},
        "runs": runs,
    }
    (out / "contest.json").write_text(json.dumps(manifest, indent=2) + "\n")


def _trec(out: Path, rng) -> None:
    docs = [f"doc{i:03d}" for i in range(1, DOCUMENTS + 1)]
    topics = [str(401 + t) for t in range(TOPICS)]
    centres = rng.normal(0, 1.5, (TOPICS, DIM))
    # each document is about one topic (or none: the last fifth)
    about = rng.integers(0, TOPICS + 2, len(docs))
    X = np.stack(
        [(centres[a] if a < TOPICS else np.zeros(DIM)) + rng.normal(0, 0.8, DIM) for a in about]
    )
    Q = centres + rng.normal(0, 0.5, (TOPICS, DIM))
    lines = []
    for t, topic in enumerate(topics):
        d = np.sqrt(((X - Q[t]) ** 2).sum(-1))
        judged = np.argsort(d, kind="stable")[:30]
        for j in sorted(judged):
            grade = 2 if about[j] == t and d[j] < np.median(d[judged]) else int(about[j] == t)
            lines.append(f"{topic} 0 {docs[j]} {grade}")
    (out / "qrels.txt").write_text("\n".join(lines) + "\n")
    (out / "collection.txt").write_text("\n".join(docs) + "\n")
    for file, tag, noise in TREC_RUNS:
        Xm, Qm = X + rng.normal(0, noise, X.shape), Q + rng.normal(0, noise, Q.shape)
        lines = []
        for t, topic in enumerate(topics):
            # scores with one decimal: ties, which trec_eval orders by docno
            score = np.round(10 - np.sqrt(((Xm - Qm[t]) ** 2).sum(-1)), 1)
            order = np.lexsort((np.arange(len(docs)), -score))[:50]
            for rank, j in enumerate(order, start=1):
                lines.append(f"{topic} Q0 {docs[j]} {rank} {score[j]:.1f} {tag}")
        (out / f"{file}.trec").write_text("\n".join(lines) + "\n")
    F = np.concatenate([X, Q]).astype(np.float32)
    _write_npz(out / "topics.npz", {"features": F, "ids": np.array(docs + topics)})


def _scattered(rng, sizes: list[int]) -> list[list[str]]:
    """Ids 0..N-1 dealt to classes of the given sizes, out of id order."""
    ids = rng.permutation(sum(sizes)).tolist()
    out, at = [], 0
    for s in sizes:
        out.append([str(i) for i in sorted(ids[at : at + s])])
        at += s
    return out


def _by_id(out: Path, rng) -> None:
    tsizes, qsizes = SHAPE_SIZES
    tids, qids = _scattered(rng, tsizes), _scattered(rng, qsizes)
    _write_cla(out / "datasetShape.cla", None, dict(zip(SHAPE_CLASSES, tids)))
    _write_cla(out / "queryShape.cla", None, dict(zip(SHAPE_CLASSES, qids)))
    centres = rng.normal(0, 1.5, (len(SHAPE_CLASSES), DIM))
    # the descriptors by id: row r of a matrix is the query of id r
    T = np.zeros((sum(tsizes), DIM))
    Q = np.zeros((sum(qsizes), DIM))
    for c, (ts, qs) in enumerate(zip(tids, qids)):
        for i in ts:
            T[int(i)] = centres[c] + rng.normal(0, 0.8, DIM)
        for i in qs:
            Q[int(i)] = centres[c] + rng.normal(0, 0.8, DIM)
    folder = out / "testShape"
    folder.mkdir()
    for name, noise in SHAPE_RUNS:
        D = _dist(Q + rng.normal(0, noise, Q.shape), T + rng.normal(0, noise, T.shape))
        (folder / name).write_text("\n".join(" ".join(f"{v:.4f}" for v in row) for row in D) + "\n")


def make(out: Path = HERE) -> None:
    out.mkdir(exist_ok=True)
    for p in out.iterdir():
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    rng = np.random.default_rng(SEED)
    _psb(out, rng)
    _trec(out, rng)
    _by_id(out, rng)
    (out / "README.md").write_text(README)


if __name__ == "__main__":
    make()
    files = [p for p in HERE.rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files)
    print(f"wrote {len(files)} files to {HERE} ({size / 2**10:.0f} KiB)")
