"""``boli``: the SHREC sketch / image-based retrieval toolkits (SHREC 2012 -
2019, MATLAB; docs/profiles.md).

Outside three rules the default measures already agree with the toolkit
(NN, FT, ST, E = F1@32, DCG over the whole list):

* AP as written: the sum of k / r_k over the query's hits divided by the
  largest class of the contest (``ap_boli``; ``ap_r`` / ``ap_trec_r`` stay
  the corrected figures);
* the precision-recall curve (20 levels j/20, linear between hits) leaves
  out the queries with a single relevant target, and a level no query
  reaches prints 0;
* distances are never used (file order ranks), so NaN / infinite distances
  are accepted with a note; the toolkit's own Stats_test.txt and
  PR_test.txt in a rank-list folder are skipped with a note.

Not reproduced, documented: a list shorter than the collection makes the
toolkit read past its end and give missing ranks the class of the last item
read (phantom hits); the complete-benchmark script starts its loop at the
4th query but averages over all.
"""

from __future__ import annotations

import numpy as np

from ..model.assessment import Assessment
from ..scoring.base_measures import Bound, Measure
from .base import Profile

#: the files the toolkit writes into the rank-list folder
OWN_FILES = ("Stats_test.txt", "PR_test.txt")
COLUMNS = ("nn", "ft_psb", "st_psb", "e_measure", "dcg_psb")
STATS_HEAD = "        NN     FT     ST      E       DCG\n"
MEANS_HEAD = "NN       FT       ST       E       DCG \n"


AP_BOLI = Measure(
    "ap_boli",
    "Average Precision (SHREC toolkit, / max C)",
    "shrec2006_r",
    "sum of precision at the ranks of the retrieved hits / the largest Cr of the "
    "contest, as the SHREC MATLAB toolkits compute it (their bug; ap_trec_r is "
    "the corrected figure)",
    # the SHREC MATLAB toolkits' row of precisions is as wide as the largest
    # class of the contest, zero-padded, and its mean is taken
    Bound("ap(divide=contest_max)"),
    short="AP-max",
)


def pr_rows(ctx, rows: np.ndarray) -> np.ndarray:
    """A query with fewer than 2 relevant targets takes no part in the PR curve."""
    rows = rows.copy()
    rows[ctx.cr < 2] = np.nan
    return rows


def _m(fmt: str, values) -> str:
    """MATLAB's fprintf with %f conversions: NaN prints as NaN."""
    parts = fmt.split("%2.3f")
    out = parts[0]
    for v, tail in zip(values, parts[1:]):
        out += ("NaN" if v is None or v != v else "%2.3f" % v) + tail
    return out


def native(results: list, assessment: Assessment) -> dict[str, str]:
    """Stats_test.txt (per query in query order, then the plain means) and
    PR_test.txt (20 lines recall, precision; the toolkit's header line is
    lost because it reopens the file for writing)."""
    result = results[0]
    cols = np.stack([result.column(k) for k in COLUMNS], axis=1)
    lines = [STATS_HEAD]
    row = "%2.3f\t %2.3f\t %2.3f\t %2.3f\t %2.3f\n"
    for i, vals in enumerate(cols, start=1):
        lines.append(f"No.{i}: " + _m(row, vals))
    micro = result.averages["micro"]
    lines += [MEANS_HEAD, _m(row, [micro[k] for k in COLUMNS])]
    pr = result.curves["pr"]
    prec = pr.averages["micro"]
    pr_text = "".join("%f\t%f\n" % (x, p) for x, p in zip(pr.x, prec))
    return {"Stats_test.txt": "".join(lines), "PR_test.txt": pr_text}


PROFILE = Profile(
    name="boli",
    label="SHREC sketch/image toolkits (MATLAB)",
    source="Hammania689/shrec_2019, SceneIBR2019_Evaluation_Toolkit",
    help="the SHREC sketch- and image-based track toolkits (MATLAB): their files and curves",
    why="the toolkits interpolate precision-recall as psbPlot does",
    options={"pr_interpolation": "psb"},
    reading={"skip_names": OWN_FILES, "nonfinite_distances": True},
    curve_rows={"pr": pr_rows},
    empty_levels_zero=("pr",),
    native=native,
    native_files=OWN_FILES,
    headline=COLUMNS + ("ap_boli", "ap_trec_r"),
    measures=(AP_BOLI,),
    legend_tool="SHREC",
)
