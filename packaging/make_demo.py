"""Generate the bundled demo contest (fixed seed; the output is checked in).

    python packaging/make_demo.py

A hierarchical PSB classification of 1,100+ models in 44 classes under 8
parent classes (sister classes share a parent), 30 external queries with
graded relevance (highly relevant = the query's class, marginally relevant =
its sister classes, as SHREC 2006 did), and seven runs of clearly different
quality in the real formats of SHREC contests: an ASCII matrix, a binary
float32 matrix, TREC runs, and rank-list folders in three variants, full and
truncated.  The runs are made from a synthetic shape descriptor: each class
has a centre near its parent's, each model is its centre plus noise, and a
method's quality is how much noise its descriptor adds.

Every model and query also gets a small mesh (``shapes/m<id>.off``,
``shapes/q<nn>.off``, a flat shapes folder): each parent class has a body
(box, cylinder, sphere or cone, with its proportions), each class adds its
own parts to it, and each model is its class's shape with its parts' sizes
and places jittered, so that a class's models look alike and sister classes
share a body.  The meshes come from their own random stream, so that the
runs are the same with or without them; vertices are written with 3
decimals, and the whole folder stays small (the wheel under 5 MB).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np

#: the demo folder of the package data (this script lives outside it, so that it
#: is never installed)
HERE = Path(__file__).resolve().parents[1] / "resources" / "demo"
SEED = 2006
PARENTS = {
    "aircraft": ["biplane", "jet", "helicopter", "glider", "blimp", "fighter_jet"],
    "vehicle": ["car", "truck", "bus", "motorcycle", "bicycle", "train"],
    "furniture": ["chair", "table", "sofa", "bed", "shelf"],
    "animal": ["dog", "horse", "bird", "fish", "snake", "insect"],
    "plant": ["tree", "flower", "potted_plant", "cactus", "bush"],
    "building": ["house", "skyscraper", "church", "castle", "tent"],
    "household": ["lamp", "cup", "bottle", "vase", "knife", "screwdriver"],
    "human": ["standing_person", "walking_person", "head", "hand", "skeleton"],
}
DIM = 24
SHAPES = "shapes"
METHODS = [  # name, descriptor noise, file format, extra
    ("SpectralNet", 0.6, "ascii-matrix", {}),
    ("ViewHarmonics", 1.0, "trec", {}),
    ("LightField-200", 1.3, "ranklists", {"variant": "query-line", "cut": 200}),
    ("ShapeHistogram", 1.7, "ranklists", {"variant": "id-distance", "prefix": "m"}),
    ("SketchDistance", 2.2, "ranklists", {"variant": "distance-id", "cut": 500}),
    ("VoxelMoments", 3.0, "binary-matrix", {}),
    ("RandomBaseline", None, "trec", {"cut": 100}),
]


def make(out: Path = HERE) -> dict:
    rng = np.random.default_rng(SEED)
    classes, parent_of = [], {}
    parent_centre, centre = {}, {}
    for parent, children in PARENTS.items():
        parent_centre[parent] = rng.normal(0, 1.6, DIM)
        for c in children:
            classes.append(c)
            parent_of[c] = parent
            centre[c] = parent_centre[parent] + rng.normal(0, 0.8, DIM)
    # models: 18..34 per class, ids in file order 0..N-1
    members, feats = {}, []
    k = 0
    for c in classes:
        n = int(rng.integers(18, 35))
        members[c] = [str(k + i) for i in range(n)]
        feats.append(centre[c] + rng.normal(0, 0.75, (n, DIM)))
        k += n
    X = np.concatenate(feats)
    models = [m for c in classes for m in members[c]]
    # 30 external queries, one per class for the first 30 classes in a shuffled order
    qclasses = list(rng.permutation(classes)[:30])
    queries = [f"q{i + 1:02d}" for i in range(30)]
    Q = np.stack([centre[c] + rng.normal(0, 0.75, DIM) for c in qclasses])

    for p in out.iterdir():
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    _write_cla(out / "target.cla", PARENTS, members)
    _write_cla(
        out / "queries.cla",
        None,
        {c: [q for q, qc in zip(queries, qclasses) if qc == c] for c in dict.fromkeys(qclasses)},
    )
    runs = []
    for name, noise, fmt, extra in METHODS:
        if noise is None:
            D = rng.random((len(queries), len(models)))
        else:
            proj = np.eye(DIM) + rng.normal(0, 0.3, (DIM, DIM))
            Xm = X @ proj + rng.normal(0, noise, X.shape)
            Qm = Q @ proj + rng.normal(0, noise, Q.shape)
            D = np.sqrt(((Qm[:, None, :] - Xm[None, :, :]) ** 2).sum(-1))
        D = np.round(D.astype(np.float32), 4).astype(np.float32)
        runs.append(_write_run(out, name, fmt, D, queries, models, **extra))
    manifest = {
        "version": 3,
        "name": "SHREC demo contest (synthetic)",
        "description": "30 external queries against 1,100+ models in 44 classes; graded "
        "relevance: query class highly relevant, sister classes marginally",
        "assessment": {"path": "target.cla", "queries": "queries.cla", "graded": True},
        "runs": runs,
        "shapes": {"path": SHAPES, "layout": "flat"},
    }
    _write_shapes(out / SHAPES, classes, parent_of, members, queries, qclasses)
    (out / "contest.json").write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


# -- shapes ------------------------------------------------------------------------------


def _box():
    c = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float) / 2
    f = [(0, 1, 3), (0, 3, 2), (4, 6, 7), (4, 7, 5), (0, 4, 5), (0, 5, 1)]
    f += [(2, 3, 7), (2, 7, 6), (0, 2, 6), (0, 6, 4), (1, 5, 7), (1, 7, 3)]
    return c, np.array(f)


def _ring(n: int, y: float, r: float) -> np.ndarray:
    a = 2 * np.pi * np.arange(n) / n
    return np.stack([r * np.cos(a), np.full(n, y), r * np.sin(a)], axis=1)


def _lathe(profile, n: int = 8):
    """A surface of revolution about y through (y, radius) points; a zero
    radius is one vertex (a pole)."""
    verts, rings = [], []
    for y, r in profile:
        start = sum(len(v) for v in verts)
        if r == 0:
            verts.append(np.array([[0.0, y, 0.0]]))
            rings.append([start] * n)
        else:
            verts.append(_ring(n, y, r))
            rings.append(list(range(start, start + n)))
    faces = []
    for a, b in zip(rings, rings[1:]):
        for i in range(n):
            j = (i + 1) % n
            if a[i] != a[j]:
                faces.append((a[i], a[j], b[j]))
            if b[i] != b[j]:
                faces.append((a[i], b[j], b[i]))
    return np.concatenate(verts), np.array(faces)


def _primitive(kind: str):
    if kind == "box":
        return _box()
    if kind == "cylinder":
        return _lathe([(-0.5, 0), (-0.5, 0.5), (0.5, 0.5), (0.5, 0)])
    if kind == "cone":
        return _lathe([(-0.5, 0), (-0.5, 0.5), (0.5, 0)])
    angles = np.linspace(0, np.pi, 6)  # sphere
    return _lathe([(-0.5 * np.cos(t), 0.5 * np.sin(t)) for t in angles])


KINDS = ("box", "cylinder", "sphere", "cone")


def _part(rng, kind=None):
    return (
        kind or KINDS[int(rng.integers(len(KINDS)))],
        rng.uniform(-0.95, 0.95, 3),  # centre
        rng.uniform(0.3, 0.9, 3),  # size
    )


def _mesh_of(parts, rng, jitter: float):
    vs, fs, n = [], [], 0
    for kind, centre, size in parts:
        v, f = _primitive(kind)
        s = size * (1 + rng.normal(0, jitter, 3))
        c = centre + rng.normal(0, jitter * 0.5, 3)
        vs.append(v * s + c)
        fs.append(f + n)
        n += len(v)
    return np.concatenate(vs), np.concatenate(fs)


def _off(v, f) -> str:
    lines = ["OFF", f"{len(v)} {len(f)} 0"]
    lines += ["%.3f %.3f %.3f" % tuple(p) for p in v]
    lines += ["3 %d %d %d" % tuple(t) for t in f]
    return "\n".join(lines).replace("-0.000", "0.000") + "\n"


def _write_shapes(folder: Path, classes, parent_of, members, queries, qclasses) -> None:
    rng = np.random.default_rng(SEED + 1)
    body = {}
    for parent in dict.fromkeys(parent_of.values()):
        kind = KINDS[len(body) % len(KINDS)]
        body[parent] = (kind, np.zeros(3), rng.uniform(0.5, 1.6, 3))
    recipe = {c: [body[parent_of[c]]] + [_part(rng) for _ in range(2)] for c in classes}
    folder.mkdir()
    for c in classes:
        for m in members[c]:
            (folder / f"m{m}.off").write_text(_off(*_mesh_of(recipe[c], rng, 0.08)))
    for q, c in zip(queries, qclasses):
        (folder / f"{q}.off").write_text(_off(*_mesh_of(recipe[c], rng, 0.08)))


def _write_cla(path: Path, parents, members: dict) -> None:
    lines = []
    n_classes = 0
    if parents:
        for parent, children in parents.items():
            lines += [f"{parent} 0 0", ""]
            n_classes += 1
            for c in children:
                lines += [f"{c} {parent} {len(members[c])}", *members[c], ""]
                n_classes += 1
    else:
        for c, ms in members.items():
            lines += [f"{c} 0 {len(ms)}", *ms, ""]
            n_classes += 1
    total = sum(len(m) for m in members.values())
    path.write_text("\n".join(["PSB 1", f"{n_classes} {total}", ""] + lines))


def _write_run(
    out: Path, name: str, fmt: str, D, queries, models, *, variant=None, cut=None, prefix=""
) -> dict:
    order = np.argsort(D, axis=1, kind="stable")
    entry = {"name": name, "format": fmt}
    if fmt == "ascii-matrix":
        path = out / f"{name.lower()}.txt"
        path.write_text("\n".join(" ".join(f"{v:.4f}" for v in row) for row in D) + "\n")
    elif fmt == "binary-matrix":
        path = out / f"{name.lower()}.matrix"
        D.astype("<f4").tofile(path)
    elif fmt == "trec":
        path = out / f"{name.lower()}.trec"
        lines = []
        for r, q in enumerate(queries):
            for rank, j in enumerate(order[r, :cut], start=1):
                lines.append(f"{q} Q0 {models[j]} {rank} {-float(D[r, j]):.4f} {name}")
        path.write_text("\n".join(lines) + "\n")
    else:
        path = out / name.lower()
        path.mkdir()
        for r, q in enumerate(queries):
            lines = [q] if variant == "query-line" else []
            for j in order[r, :cut]:
                tid, d = prefix + models[j], f"{D[r, j]:.4f}"
                lines.append(f"{d} {tid}" if variant == "distance-id" else f"{tid} {d}")
            (path / f"{q}.txt").write_text("\n".join(lines) + "\n")
        entry["variant"] = variant
    entry["path"] = path.name
    return entry


if __name__ == "__main__":
    m = make()
    size = sum(p.stat().st_size for p in HERE.rglob("*") if p.is_file())
    print(f"wrote {len(m['runs'])} runs to {HERE} ({size / 2**20:.2f} MiB)")
