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
