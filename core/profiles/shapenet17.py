"""``shapenet17``: the SHREC 2016/2017 ShapeNet Core55 evaluator (Node.js,
2017-02-23 revision; ../../shared/spec/profiles.md).

The assessment is the taxonomy CSV ``id,synsetId,subSynsetId,modelId,split``;
a run is a method folder of dataset folders ``{test,val,train}_{normal,
perturbed}``, each scored on its own (one result per dataset, named
``method/dataset``).  Per dataset (split = the folder name before ``_``):

* queries: the files, met in the order Node enumerates the keys of an
  object (ids that are array indices, i.e. digits without a leading zero,
  ascending; then the others in byte order of their file names); file names
  and ids are zero-padded to 6 and cut to their last 6 characters, a later
  file with the same id replaces the earlier one; unknown queries and those
  of another split are ignored (noted);
* each list: its first 1000 entries, then repeats removed (first kept), then
  unknown ids and ids of another split dropped (noted);
* grades 3 (same sub-synset), 2 (the result's sub-synset is the query's
  synset), 1 (same synset otherwise), 0; the query itself is kept;
* R = min(|synset in split|, 1000); the measures ``p_at_n``, ``r_at_n``,
  ``f1_at_n``, ``map_sn``, ``ndcg_sn`` of the registry and the padded P and R
  vectors (curves ``sn_p``, ``sn_r``, 1000 points).  The ideal DCG is built
  from the first R oracle grades in CSV order, so NDCG can exceed 1 for a
  synset of more than 1000 models (reproduced: published numbers carry it).

Native files: ``<method>.summary.csv`` and ``<method>.pr.csv``, with the
evaluator's sums (in its query order, times 1 / n) and numbers written as
JavaScript writes them.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..curves import Curve
from ..errors import FileAccessError, FormatError
from ..model import Assessment, RankedRun, make_warning
from .base import Profile

DATASETS = (
    "test_normal",
    "test_perturbed",
    "val_normal",
    "val_perturbed",
    "train_normal",
    "train_perturbed",
)
SPLITS = ("train", "val", "test")
CUTOFF = 1000
SUMMARY_KEYS = ("p_at_n", "r_at_n", "f1_at_n", "map_sn", "ndcg_sn")


@dataclass
class Taxonomy:
    """The taxonomy CSV: each id's synset, sub-synset and split, and the ids
    of each split (and synset within it) in file order."""

    path: str
    rows: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    split_ids: dict[str, list[str]] = field(default_factory=dict)


def read_taxonomy(path) -> Taxonomy:
    path = Path(path)
    try:
        text = path.read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        raise FileAccessError.wrap(path, exc) from exc
    tax = Taxonomy(str(path), split_ids={s: [] for s in SPLITS})
    for n, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line:
            continue
        toks = line.split(",")
        if toks[0] == "id":
            continue  # the header line
        if len(toks) < 5:
            raise FormatError(
                path,
                "a line 'id,synsetId,subSynsetId,modelId,split' was expected",
                line=n,
                token=line,
            )
        mid, synset, sub, split = toks[0], toks[1], toks[2], toks[4]
        if split not in SPLITS:
            raise FormatError(path, "the split must be train, val or test", line=n, token=split)
        if mid in tax.rows:
            raise FormatError(path, f"model id {mid} is listed twice", line=n, token=mid)
        tax.rows[mid] = (synset, sub, split)
        tax.split_ids[split].append(mid)
    if not tax.rows:
        raise FormatError(path, "the taxonomy lists no model")
    return tax


def pad6(name: str) -> str:
    """The evaluator's zeroPad(n, 6): padded with zeros, then the last 6 characters."""
    return name if len(name) == 6 else ("000000" + name)[-6:]


def _array_index(key: str) -> bool:
    return (
        key.isascii() and key.isdigit() and (key == "0" or key[0] != "0") and int(key) < 2**32 - 1
    )


def js_key_order(keys) -> list[str]:
    """The order in which JavaScript enumerates an object's keys: array
    indices ascending, then the other keys in insertion order."""
    keys = list(keys)
    return sorted((k for k in keys if _array_index(k)), key=int) + [
        k for k in keys if not _array_index(k)
    ]


def grade(query: tuple[str, str, str], result: tuple[str, str, str]) -> int:
    if query[0] != result[0]:
        return 0
    if query[1] == result[1]:
        return 3
    return 2 if result[1] == query[0] else 1


def _read_lists(folder: Path) -> tuple[dict[str, list[str]], list[str]]:
    try:
        names = sorted(os.listdir(folder), key=os.fsencode)
    except OSError as exc:
        raise FileAccessError.wrap(folder, exc) from exc
    lists: dict[str, list[str]] = {}
    replaced = []
    for name in names:
        f = folder / name
        if not f.is_file():
            continue
        try:
            text = f.read_bytes().decode("utf-8", errors="replace")
        except OSError as exc:
            raise FileAccessError.wrap(f, exc) from exc
        qid = pad6(name)
        if qid in lists:
            replaced.append(f"{name} ({qid})")
        lists[qid] = [pad6(line.split(" ")[0]) for line in text.split("\n") if line]
    return lists, replaced


def read_dataset(tax: Taxonomy, folder, method: str) -> tuple[Assessment, RankedRun]:
    """One dataset folder of a method: its assessment (the split's models,
    the queries the evaluator keeps) and its filtered lists as a run."""
    folder = Path(folder)
    dataset = folder.name
    split = dataset.split("_")[0]
    raw, replaced = _read_lists(folder)
    notes: dict[str, list[str]] = {k: [] for k in ("unknown", "split", "cut", "dup", "drop")}
    kept: dict[str, list[str]] = {}
    for qid in js_key_order(raw):
        t = tax.rows.get(qid)
        if t is None or t[2] != split:
            notes["unknown" if t is None else "split"].append(qid)
            continue
        ids = raw[qid]
        if len(ids) > CUTOFF:
            notes["cut"].append(f"{qid} ({len(ids)} entries)")
            ids = ids[:CUTOFF]
        unique = list(dict.fromkeys(ids))
        if len(unique) < len(ids):
            notes["dup"].append(f"{qid} ({len(ids) - len(unique)})")
        good = [i for i in unique if i in tax.rows and tax.rows[i][2] == split]
        if len(good) < len(unique):
            notes["drop"].append(f"{qid} ({len(unique) - len(good)})")
        kept[qid] = good
    a = _assessment(tax, split, list(kept), f"{tax.path} ({split} split)")
    name = f"{method}/{dataset}"
    run = RankedRun.from_lists(name, kept, a, source=str(folder), format="ShapeNet rank lists")
    texts = {
        "unknown": ("unknown_queries", "query files the taxonomy does not know (ignored)"),
        "split": ("other_split_queries", f"query files of another split than {split} (ignored)"),
        "cut": ("cut_lists", "lists longer than 1000 (only the first 1000 entries count)"),
        "dup": ("duplicate_ids", "lists with repeated ids (first kept)"),
        "drop": ("dropped_ids", f"lists with unknown ids or ids outside {split} (dropped)"),
    }
    for key, (code, text) in texts.items():
        if notes[key]:
            run.warnings.append(make_warning(code, text, notes[key]))
    if replaced:
        run.warnings.append(
            make_warning(
                "replaced_files",
                "files whose 6-character id repeats an earlier file's (the later one counts)",
                replaced,
            )
        )
    empty = [q for q, ids in kept.items() if not ids]
    if empty:
        run.warnings.append(
            make_warning(
                "empty_lists",
                "lists left empty by the filtering (the evaluator gives NaN there)",
                empty,
            )
        )
    return a, run


def _assessment(tax: Taxonomy, split: str, queries: list[str], source: str) -> Assessment:
    items = tax.split_ids[split]
    index = {m: i for i, m in enumerate(items)}
    by_synset: dict[str, list[int]] = {}
    for i, m in enumerate(items):
        by_synset.setdefault(tax.rows[m][0], []).append(i)
    subs = np.array([tax.rows[m][1] for m in items], dtype=object)
    rows_items, rows_grades = [], []
    for q in queries:
        synset, sub, _ = tax.rows[q]
        oracle = np.asarray(by_synset[synset], dtype=np.int64)
        s = subs[oracle]
        rows_items.append(oracle)
        rows_grades.append(np.where(s == sub, 3, np.where(s == synset, 2, 1)).astype(np.int32))
    lengths = [r.size for r in rows_items]
    return Assessment(
        query_ids=tuple(queries),
        item_ids=tuple(items),
        indptr=np.concatenate(([0], np.cumsum(lengths))).astype(np.int64),
        judged_items=np.concatenate(rows_items) if queries else np.zeros(0, np.int64),
        judged_grades=np.concatenate(rows_grades) if queries else np.zeros(0, np.int32),
        query_items=np.array([index[q] for q in queries], dtype=np.int64),
        collection_size=len(items),
        top_grade=3,
        query_classes=tuple(tax.rows[q][0] for q in queries),
        kind=f"ShapeNet taxonomy, {split} split",
        source=source,
    )


def read_method(tax: Taxonomy, folder) -> list[tuple[Assessment, RankedRun]]:
    """Every dataset folder the method folder has, in the evaluator's order."""
    folder = Path(folder)
    if not folder.is_dir():
        raise FormatError(
            folder, "a method folder of {test,val,train}_{normal,perturbed}/ was expected"
        )
    out = [read_dataset(tax, folder / d, folder.name) for d in DATASETS if (folder / d).is_dir()]
    if not out:
        raise FormatError(
            folder,
            "the method folder holds none of the dataset folders " + ", ".join(DATASETS),
        )
    return out


def score_methods(taxonomy, sources, options, *, progress=None) -> tuple:
    """Score every dataset of every method (``RunSource``s whose path is a
    method folder; a source's name replaces the folder name): returns the
    first dataset's assessment and the results, named ``method/dataset``.
    ``progress(run name)`` makes an engine progress callback."""
    from ..engine import evaluate  # the engine imports the profiles

    tax = read_taxonomy(taxonomy)
    first, results = None, []
    for source in sources:
        for assessment, run in read_method(tax, source.path):
            if source.name:
                run.name = f"{source.name}/{run.name.rpartition('/')[2]}"
            first = first or assessment
            cb = progress(run.name) if progress is not None else None
            results.append(evaluate(assessment, run, options, progress=cb))
    return first, results


# -- the engine's side: R, the oracle's ideal DCG, the padded vectors ----------------------


def _dcg(x: np.ndarray) -> float:
    """x_1 + sum_{i>=2} x_i / log2 i, added in order as the evaluator does."""
    if not x.size:
        return 0.0
    terms = x.astype(np.float64)
    terms[1:] = (1.0 / np.log2(np.arange(2, x.size + 1, dtype=np.float64))) * terms[1:]
    return float(np.cumsum(terms)[-1])


def query_data(a: Assessment, options) -> dict[str, np.ndarray]:
    """R = min(|oracle|, 1000) and the ideal DCG of the first R oracle
    grades in CSV order, sorted descending, per query."""
    counts = np.diff(a.indptr)
    R = np.minimum(counts, CUTOFF)
    idcg = np.zeros(a.n_queries)
    memo: dict[bytes, float] = {}
    for q in range(a.n_queries):
        g = a.judged_grades[a.indptr[q] : a.indptr[q] + R[q]]
        key = g.tobytes()
        if key not in memo:
            memo[key] = _dcg(np.sort(g)[::-1])
        idcg[q] = memo[key]
    return {"R": R, "idcg": idcg}


def _padded(ctx) -> tuple[np.ndarray, np.ndarray]:
    n = ctx.va
    W = min(ctx.W, CUTOFF)
    hits = np.cumsum(ctx.G[:, :W] > 0, axis=1) if W else np.zeros((ctx.B, 1), np.int64)
    pos = np.minimum(np.arange(1, CUTOFF + 1)[None, :], np.maximum(n, 1)[:, None])
    S = np.take_along_axis(hits, np.clip(pos - 1, 0, hits.shape[1] - 1), axis=1)
    P = S / pos
    Rv = S / ctx.extra["R"][:, None]
    P[n == 0] = np.nan
    Rv[n == 0] = np.nan
    return P, Rv


def _x(o) -> np.ndarray:
    return np.arange(1, CUTOFF + 1, dtype=np.float64)


CURVES = (
    Curve(
        "sn_p",
        "Precision at rank (ShapeNet, padded)",
        "Rank",
        "Precision",
        "S_i / i over the filtered list, padded to 1000 with its last value",
        _x,
        lambda ctx, o: _padded(ctx)[0],
    ),
    Curve(
        "sn_r",
        "Recall at rank (ShapeNet, padded)",
        "Rank",
        "Recall",
        "S_i / min(|synset in split|, 1000), padded to 1000 with its last value",
        _x,
        lambda ctx, o: _padded(ctx)[1],
    ),
)


# -- native files ------------------------------------------------------------------------------


def js_number(x) -> str:
    """A number as JavaScript's String(x) writes it: the shortest digits that
    read back to the same double, in JavaScript's layout."""
    x = float(x)
    if x != x:
        return "NaN"
    if x in (float("inf"), float("-inf")):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    mant, _, exp = repr(abs(x)).partition("e")
    ip, _, fp = mant.partition(".")
    e = int(exp or 0)
    if ip != "0":
        n = len(ip) + e
    else:
        n = e - (len(fp) - len(fp.lstrip("0")))
    digits = (ip + fp).lstrip("0").rstrip("0")
    k = len(digits)
    if k <= n <= 21:
        body = digits + "0" * (n - k)
    elif 0 < n <= 21:
        body = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        body = "0." + "0" * (-n) + digits
    else:
        ex = n - 1
        body = (
            digits[0] + ("." + digits[1:] if k > 1 else "")
        ) + f"e{'+' if ex > 0 else '-'}{abs(ex)}"
    return sign + body


class _Summed:
    """The evaluator's SummedMetrics: sums in the order values arrive, NaN
    propagating in the scalars and counting 0 in the vectors."""

    def __init__(self) -> None:
        self.scalars = [0.0] * 5
        self.p = np.zeros(0)
        self.r = np.zeros(0)
        self.num = 0

    def add(self, scalars, p, r, count: int = 1) -> None:
        self.scalars = [s + float(v) for s, v in zip(self.scalars, scalars)]
        self.p = _add_vec(self.p, p)
        self.r = _add_vec(self.r, r)
        self.num += count

    def averages(self):
        norm = 1 / self.num if self.num else float("inf")
        return [s * norm for s in self.scalars], self.p * norm, self.r * norm


def _add_vec(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    n = max(x.size, y.size)
    a = np.zeros(n)
    b = np.zeros(n)
    a[: x.size] = np.nan_to_num(x, nan=0.0)
    b[: y.size] = np.nan_to_num(y, nan=0.0)
    return a + b


def native(results: list, assessment: Assessment) -> dict[str, str]:
    """<method>.summary.csv and <method>.pr.csv of a method's datasets."""
    method = results[0].run_name.rpartition("/")[0]
    summary = ["class,P@N,R@N,F1@N,mAP,NDCG,dataset,method\n"]
    pr = ["class,P,R,dataset,method\n"]
    for res in results:
        dataset = res.run_name.rpartition("/")[2]
        cols = np.stack([res.column(k) for k in SUMMARY_KEYS], axis=1)
        P, R = res.curves["sn_p"].per_query, res.curves["sn_r"].per_query
        groups = {"microALL": _Summed()}
        for q in range(len(res.query_ids)):
            syn = res.query_classes[q]
            for g in ("microALL", syn):
                groups.setdefault(g, _Summed()).add(cols[q], P[q], R[q])
        macro = _Summed()
        for syn in js_key_order(k for k in groups if k != "microALL"):
            s, p, r = groups[syn].averages()
            macro.add(s, p, r)
        # the evaluator adds macroALL to the object before its loop over the
        # synsets, so the loop also adds macroALL's own averages, once, last
        macro.add(*macro.averages())
        groups["macroALL"] = macro
        order = ["microALL"] + js_key_order(k for k in groups if k not in ("microALL", "macroALL"))
        for g in order + ["macroALL"]:
            s, p, r = groups[g].averages()
            summary.append(",".join([g, *map(js_number, s), dataset, method]) + "\n")
            if g in ("microALL", "macroALL"):
                pr.extend(
                    f"{g},{js_number(a)},{js_number(b)},{dataset},{method}\n" for a, b in zip(p, r)
                )
    return {f"{method}.summary.csv": "".join(summary), f"{method}.pr.csv": "".join(pr)}


PROFILE = Profile(
    name="shapenet17",
    label="ShapeNet Core55 evaluator (SHREC 2016/2017)",
    source="auniquesun/VSFormer, retrieval/evaluator/lib/Evaluator.js, Metrics.js",
    options={"remove_self": False},
    query_data=query_data,
    curves=CURVES,
    native=native,
    group=lambda result: result.run_name.rpartition("/")[0] or result.run_name,
    headline=SUMMARY_KEYS,
    rank_key="map_sn",
)
