"""Makes the contests of this folder and, given the track's evaluation
function, its numbers for them (README.md says how; the test suite never
runs this, it reads what it wrote).

    python make.py                          # the contests (fixed seeds)
    python make.py --script sbsrw_eval.py   # expected.json, from the script

``sbsrw_eval.py`` is the first code cell of the track's notebook (its
``RetrievalEvaluation``), kept outside this repository.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
#: name -> (class sizes of the models, sketches per class, seed, distances)
CONTESTS = {
    # fewer models than E's 32, classes of 1 and 2, integer distances (many ties)
    "small": ([1, 2, 3, 5, 7], [2, 1, 2, 3, 1], 1, "integers"),
    # more than 32 models, distances to two decimals (some ties)
    "large": ([6, 9, 12, 15, 18], [3, 4, 3, 2, 4], 2, "decimals"),
}
RUNS = ("teamA", "teamB")


def _cla(path: Path, labels: np.ndarray, n_classes: int) -> None:
    """A PSB .cla: class k named "k" holds the ids (0..) whose label is k."""
    text = f"PSB 1\n{n_classes} {labels.size}\n"
    for k in range(n_classes):
        ids = np.flatnonzero(labels == k)
        text += f"\n{k} 0 {ids.size}\n" + "".join(f"{i}\n" for i in ids)
    path.write_text(text)


def make(name: str) -> Path:
    sizes, sketches, seed, kind = CONTESTS[name]
    rng = np.random.default_rng(seed)
    folder = HERE / name
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    models = rng.permutation(np.repeat(np.arange(len(sizes)), sizes))  # classes interleaved
    queries = rng.permutation(np.repeat(np.arange(len(sizes)), sketches))
    _cla(folder / "models.cla", models, len(sizes))
    _cla(folder / "sketches.cla", queries, len(sizes))
    np.savetxt(folder / "model_labels.txt", models, fmt="%d")
    np.savetxt(folder / "sketch_labels.txt", queries, fmt="%d")
    for i, run in enumerate(RUNS):
        close = (queries[:, None] == models[None, :]) * (1.0 + i)  # a better run, a worse one
        if kind == "integers":
            d = rng.integers(0, 6, (queries.size, models.size)) - close
            np.savetxt(folder / "runs" / f"{run}.txt", d, fmt="%d")
        else:
            d = np.round(rng.random((queries.size, models.size)) * 4 - close, 2)
            np.savetxt(folder / "runs" / f"{run}.txt", d, fmt="%.2f")
    return folder


def expected(script: Path) -> dict:
    """The script's six means of every run of every contest, as it prints them."""
    spec = importlib.util.spec_from_file_location("sbsrw_eval", script)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    out = {}
    for name in CONTESTS:
        folder = HERE / name
        model_label = np.loadtxt(folder / "model_labels.txt")
        sketch_label = np.loadtxt(folder / "sketch_labels.txt")
        for run in RUNS:
            dist = np.loadtxt(folder / "runs" / f"{run}.txt")
            nn, ft, st, dcg, e, map_, *_ = mod.RetrievalEvaluation(dist, model_label, sketch_label)
            printed = (
                f"nn_av: {nn}\nft_av: {ft}\nst_av: {st}\ndcg_av: {dcg}\ne_av: {e}\nmap_: {map_}\n"
            )
            # what the notebook prints (repr of each mean), read back exactly
            out[f"{name}/{run}"] = {
                key: float(value)
                for key, value in (line.split(": ") for line in printed.splitlines())
            }
    return out


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--script", type=Path, help="the track's RetrievalEvaluation (a .py)")
    args = ap.parse_args()
    for name in CONTESTS:
        make(name)
    if args.script:
        result = expected(args.script)
        (HERE / "expected.json").write_text(json.dumps(result, indent=2) + "\n")
