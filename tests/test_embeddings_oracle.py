"""The distances of every metric against a float64 numpy oracle, as a user
gets them (`distances`, `evaluate --json`, from files), with fixed seeds:
each value within the float32 error of its metric (docs/embeddings.md:
the inner products in float32, a euclidean distance accurate in its
square), the embeddings scoring exactly as the matrix `distances` writes
for them (every value of the JSON), and MAP@R equal to an own loop of
pytorch-metric-learning's definition (the first R of a stable ranking)."""

from __future__ import annotations

import io
import json

import numpy as np
import pytest
from shrec_eval.cli.parser import main

N, D, C = 400, 32, 12
METRICS = ("cosine", "euclidean", "sqeuclidean", "dot")


def _contest(folder, seed):
    rng = np.random.default_rng(seed)
    lab = rng.integers(0, C, N)
    centres = rng.normal(size=(C, D))
    f = (centres[lab] + rng.normal(scale=1.5, size=(N, D))).astype(np.float32)
    order = np.concatenate([np.flatnonzero(lab == c) for c in range(C)])
    f, lab = f[order], lab[order]  # rows in the .cla's listing order
    with open(folder / "a.cla", "w") as fh:
        fh.write(f"PSB 1\n{C} {N}\n")
        for c in range(C):
            m = np.flatnonzero(lab == c)
            fh.write(f"\nc{c} 0 {m.size}\n" + "".join(f"m{i}\n" for i in m))
    np.save(folder / "f.npy", f)
    return f.astype(np.float64), lab


def _oracle(f, metric):
    s = f @ f.T
    n2 = (f * f).sum(1)
    if metric == "cosine":
        return 1 - s / np.sqrt(np.outer(n2, n2))
    sq = np.maximum(n2[:, None] + n2[None] - 2 * s, 0)
    return {"euclidean": np.sqrt(sq), "sqeuclidean": sq, "dot": -s}[metric]


def _map_at_r(dist, lab):
    """MAP@R of each query, the query itself left out: pytorch-metric-
    learning's definition over a stable ascending ranking."""
    out = []
    for q in range(len(lab)):
        order = np.argsort(dist[q], kind="stable")
        order = order[order != q]
        r_count = int((lab == lab[q]).sum()) - 1
        if r_count == 0:
            out.append(None)
            continue
        rel = (lab[order] == lab[q])[:r_count]
        prec = np.cumsum(rel) / np.arange(1, r_count + 1)
        out.append(float((prec * rel).sum() / r_count))
    return out


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("metric", METRICS)
def test_distances_against_a_float64_oracle(tmp_path, seed, metric):
    f, lab = _contest(tmp_path, seed)
    out = tmp_path / f"{metric}.matrix"
    argv = ["distances", tmp_path / "f.npy", "--metric", metric, "-o", out]
    assert main([str(a) for a in argv]) == 0
    m = np.fromfile(out, dtype="<f4").reshape(N, N).astype(np.float64)
    o = _oracle(f, metric)
    eps = np.finfo(np.float32).eps
    n2 = (f * f).sum(1)
    scale = n2[:, None] + n2[None]  # |q|^2 + |g|^2: the size of the products
    if metric == "cosine":
        assert np.abs(m - o).max() <= 8 * eps
    elif metric == "euclidean":  # accurate in its square
        assert (np.abs(m * m - o * o) <= 8 * eps * scale).all()
    else:
        assert (np.abs(m - o) <= 8 * eps * scale).all()
    # scoring: the features as the matrix, every value; MAP@R as defined
    docs = {}
    for kind, path, more in (
        ("matrix", out, []),
        ("emb", tmp_path / "f.npy", ["--metric", metric]),
    ):
        j = tmp_path / f"{kind}.json"
        argv = ["evaluate", tmp_path / "a.cla", path, *more, "--json", j, "--columns", "map@r"]
        assert main([str(a) for a in argv], out=io.StringIO()) == 0
        docs[kind] = json.loads(j.read_text())["runs"][0]
    for key in ("mean", "averages", "per_query", "per_class", "curves"):
        assert docs["matrix"][key] == docs["emb"][key], key
    ours = [docs["emb"]["per_query"][f"{q}"]["map@r"] for q in range(N)]
    want = _map_at_r(m.astype(np.float32), lab)
    assert all((a is None and b is None) or abs(a - b) < 1e-12 for a, b in zip(ours, want))
