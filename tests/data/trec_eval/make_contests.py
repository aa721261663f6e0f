"""Write the generated contests of this folder (fixed seeds; see README.md):

    python tests/data/trec_eval/make_contests.py

gen1: graded qrels (grades 0-3, a query whose judgments are all 0, a query
the run does not answer), a run with tied scores, short lists and a query
the qrels do not know.  gen2: binary qrels with many grade-0 lines, a run
cut at various depths, docnos that sort differently as strings and as
numbers.  The expected outputs are then made with the trec_eval binary
(README.md).
"""

from __future__ import annotations

import random
from pathlib import Path

HERE = Path(__file__).parent


def gen1(rng: random.Random) -> tuple[list[str], list[str]]:
    docs = [f"D{i:04d}" for i in range(400)]
    qrels, run = [], []
    for q in range(1, 13):
        qid = f"{q}"
        judged = rng.sample(docs, rng.randint(5, 60))
        for d in judged:
            grade = 0 if q == 7 else rng.choice((0, 0, 1, 1, 2, 3))
            qrels.append(f"{qid} 0 {d} {grade}")
        if q == 11:  # the run does not answer this query
            continue
        depth = rng.choice((3, 20, 50, 150, 400))
        ranked = rng.sample(docs, depth)
        pool = [d for d in judged if rng.random() < 0.5]
        ranked = pool + [d for d in ranked if d not in pool]
        rng.shuffle(ranked)
        for r, d in enumerate(ranked[:depth], 1):
            score = round(rng.random() * 10, 1)  # ties, broken by docno descending
            run.append(f"{qid} Q0 {d} {r} {score} gen1run")
    run += ["99 Q0 D0001 1 5.0 gen1run", "99 Q0 D0002 2 4.0 gen1run"]  # not in the qrels
    return qrels, run


def gen2(rng: random.Random) -> tuple[list[str], list[str]]:
    docs = [str(i) for i in range(1, 3000)]  # "10" < "9" as strings
    qrels, run = [], []
    for q in ("a1", "b2", "A3", "10", "9"):
        judged = rng.sample(docs, rng.randint(30, 200))
        for i, d in enumerate(judged):
            qrels.append(f"{q} 0 {d} {1 if i % 4 == 0 else 0}")
        depth = rng.choice((10, 100, 1000, 1500))
        pool = judged[: len(judged) // 2]
        ranked = pool + rng.sample(docs, depth)
        seen, lst = set(), []
        for d in ranked:
            if d not in seen:
                seen.add(d)
                lst.append(d)
        rng.shuffle(lst)
        for r, d in enumerate(lst[:depth], 1):
            run.append(f"{q} Q0 {d} {r} {depth - r + rng.random():.6f} gen2run")
    return qrels, run


def main() -> None:
    for name, make, seed in (("gen1", gen1, 22), ("gen2", gen2, 2022)):
        qrels, run = make(random.Random(seed))
        (HERE / f"{name}.qrels").write_text("\n".join(qrels) + "\n")
        (HERE / f"{name}.run").write_text("\n".join(run) + "\n")


if __name__ == "__main__":
    main()
