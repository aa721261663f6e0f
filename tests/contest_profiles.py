"""Small contests built to hit each profile's quirks (tests/test_profile_*.py)."""

from __future__ import annotations

from pathlib import Path

# psbtable: 11 models; P is a parent class without models, -1 sits before B
# (psbTable would average the wrong models after it), B has 2 models and S 1
PSB_CLA = """PSB 1
6 11

P 0 0

A 0 3
a1
a2
a3

-1 0 1
z

B 0 2
b1
b2

S 0 1
s

D P 4
d1
d2
d3
d4
"""


def psb_contest(folder: Path) -> tuple[Path, Path]:
    """The .cla and an ASCII matrix with d(i, j) = |i - j| (ties: lower index first)."""
    cla = folder / "psb.cla"
    cla.write_text(PSB_CLA)
    m = folder / "dist.txt"
    m.write_text("\n".join(" ".join(str(abs(i - j)) for j in range(11)) for i in range(11)) + "\n")
    return cla, m


# boli: 4 sketch queries against 38 targets (N >= 32, as the toolkit needs);
# q3 has a single relevant target, C = 3, 3, 1, 2; max C = 3
BOLI_QUERIES = """PSB 1
3 4

chair 0 2
q1
q2

table 0 1
q3

lamp 0 1
q4
"""
FILLER = [f"f{i}" for i in range(1, 31)]
BOLI_LISTS = {
    "q1": ["c1", "c2", "t1", "c3", "l1", "l2", "s1", "s2"],
    "q2": ["t1", "c1", "l1", "c2", "s1", "c3", "l2", "s2"],
    "q3": ["c1", "t1", "c2", "c3", "l1", "l2", "s1", "s2"],
    "q4": ["l1", "c1", "c2", "c3", "t1", "s1", "s2", "l2"],
}


def boli_contest(folder: Path) -> tuple[Path, Path, Path]:
    """Query .cla, target .cla and a rank-list folder ('id distance' lines,
    a NaN distance in q2, the toolkit's own output files lying there)."""
    classes = [("chair", ["c1", "c2", "c3"]), ("table", ["t1"]), ("lamp", ["l1", "l2"])]
    classes += [("sofa", ["s1", "s2"]), ("filler", FILLER)]
    text = f"PSB 1\n{len(classes)} {sum(len(m) for _, m in classes)}\n"
    for name, models in classes:
        text += f"\n{name} 0 {len(models)}\n" + "".join(f"{m}\n" for m in models)
    target = folder / "target.cla"
    target.write_text(text)
    queries = folder / "queries.cla"
    queries.write_text(BOLI_QUERIES)
    runs = folder / "method"
    runs.mkdir()
    for q, ids in BOLI_LISTS.items():
        lines = [f"{t} {'NaN' if (q, r) == ('q2', 1) else r / 10}" for r, t in enumerate(ids)]
        lines += [f"{t} {(8 + r) / 10}" for r, t in enumerate(FILLER)]
        (runs / q).write_text("\n".join(lines) + "\n")
    (runs / "Stats_test.txt").write_text("        NN     FT     ST      E       DCG\nNo.1: x\n")
    (runs / "PR_test.txt").write_text("0.050000\t0.000000\n")
    return queries, target, runs
