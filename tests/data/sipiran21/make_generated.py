"""Writes the generated contests of tests/test_profile_sipiran21.py (run once;
their expected tables were then made by SHREC 2021's experiments.py, see
README.md).  Seeded: running it again writes the same files."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent / "generated"


def cla(path: Path, classes: list[tuple[str, list[int]]]) -> None:
    n = sum(len(m) for _, m in classes)
    lines = ["PSB 1", f"{len(classes)} {n}", ""]
    for name, models in classes:
        lines.append(f"{name} 0 {len(models)}")
        lines += [str(m) for m in models]
        lines.append("")
    path.write_text("\n".join(lines) + "\n")


def scattered(rng, sizes: list[int]) -> list[list[int]]:
    """Ids 0..N-1 dealt to classes of the given sizes, out of order."""
    ids = rng.permutation(sum(sizes)).tolist()
    out, at = [], 0
    for s in sizes:
        out.append(sorted(ids[at : at + s]))
        at += s
    return out


def contest(name: str, seed: int, target_sizes, query_sizes, runs, *, names=None, levels=4):
    rng = np.random.default_rng(seed)
    folder = HERE / name
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    tnames = names[0] if names else [f"C{i}" for i in range(len(target_sizes))]
    qnames = names[1] if names else tnames[: len(query_sizes)]
    tids, qids = scattered(rng, target_sizes), scattered(rng, query_sizes)
    cla(folder / "target.cla", list(zip(tnames, tids)))
    cla(folder / "query.cla", list(zip(qnames, qids)))
    q, t = sum(query_sizes), sum(target_sizes)
    for run, extra in runs:
        # few distinct distances: many ties (broken by target id)
        m = rng.integers(0, levels, size=(q + extra, t)).astype(float) / 2
        text = "\n".join(" ".join(f"{v:.1f}" for v in row) for row in m)
        (folder / "runs" / run).write_text(text + "\n")


def main() -> int:
    # classes of 1 and 2 targets, ties everywhere, methods whose names sort
    # differently from their files (A, A-x: "A-x.run1.txt" < "A.run1.txt")
    contest(
        "ties_small_classes",
        2021,
        [1, 2, 5, 2],
        [2, 3, 4, 1],
        [
            ("A.run1.txt", 0),
            ("A.run10.txt", 0),
            ("A.run2.txt", 0),
            ("A-x.run1.txt", 0),
            ("B.first.txt", 0),
        ],
    )
    # query classes named otherwise than the target classes at their place, and
    # a matrix with rows past the queries (ignored)
    contest(
        "by_position_extra_rows",
        7,
        [3, 4, 2],
        [2, 2, 3],
        [("M.r1.txt", 0), ("M.r2.txt", 5), ("N.r1.txt", 0)],
        names=(["cat", "dog", "emu"], ["Cat", "Dog", "Emu"]),
        levels=3,
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
