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


# shapenet17: synset A (02000001) of 4 test models with sub-synsets, synset B
# (03000002) of 1003 test models (1000 of sub-synset 03000022 first in CSV
# order, then 2 of the synset itself, then 000777 of 03000022), a few val and
# train models
A, B = "02000001", "03000002"


def shapenet_csv(folder: Path) -> Path:
    rows = [
        ("100001", A, A, "test"),
        ("100002", A, "02000011", "test"),
        ("100003", A, "02000011", "test"),
        ("100004", A, "02000012", "test"),
    ]
    rows += [(str(200000 + i), B, "03000022", "test") for i in range(1000)]
    rows += [("201000", B, B, "test"), ("201001", B, B, "test"), ("000777", B, "03000022", "test")]
    rows += [("100005", A, A, "val"), ("300001", A, "02000011", "val"), ("400001", A, A, "train")]
    path = folder / "all.csv"
    path.write_text(
        "id,synsetId,subSynsetId,modelId,split\n"
        + "".join(f"{i},{s},{sub},m{i},{split}\n" for i, s, sub, split in rows)
    )
    return path


def shapenet_method(folder: Path) -> Path:
    method = folder / "mymethod"
    test = method / "test_normal"
    test.mkdir(parents=True)
    lists = {
        # self, same sub (3), sub = query synset (2), unknown, val id, repeat, synset B, other sub
        "100002": ["100002", "100003", "100001", "999999", "100005", "100003", "200000", "100004"],
        "0100001": ["999999"],  # cut to its last 6 characters: 100001, replaced below
        "100001": ["100004", "100001"],
        # 1000 entries with a repeat, then 3 more that the cut at 1000 drops
        "201001": ["201001", "201000", "201000"] + [str(200000 + i) for i in range(1000)],
        "000777": ["000777", "201001"],
        "99": ["100001"],  # 000099: unknown query
        "100005": ["100005"],  # a val query in a test folder
    }
    for name, ids in lists.items():
        (test / name).write_text("\n".join(f"{i} 0.5" for i in ids) + "\n")
    val = method / "val_normal"
    val.mkdir()
    (val / "100005").write_text("100005 0.1\n300001 0.2\n")
    (val / "300001").write_text("999998 0.1\n")  # left empty by the filtering
    return method
