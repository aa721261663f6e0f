"""Reading for the ``shapenet17`` profile: the taxonomy CSV and a method's
dataset folders, as the SHREC 2016/2017 ShapeNet evaluator reads them (see
:mod:`shrec_eval.profiles.shapenet17`)."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import FileAccessError, FormatError
from ..model.assessment import Assessment, make_warning
from ..model.runs import RankedRun
from ..reading.formats.source import open_source
from ..reading.formats.tokens import strip_bom

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
#: the most a taxonomy CSV sent through a pipe may hold (ShapeNet Core55's
#: all.csv is 3 MB)
TAXONOMY_LIMIT = 1 << 28


@dataclass
class Taxonomy:
    """The taxonomy CSV: each id's synset, sub-synset and split, and the ids
    of each split (and synset within it) in file order."""

    path: str
    rows: dict[str, tuple[str, str, str]] = field(default_factory=dict)
    split_ids: dict[str, list[str]] = field(default_factory=dict)


def read_taxonomy(path) -> Taxonomy:
    """The taxonomy CSV, read through the readers' source (a pipe read once
    with its timeouts, a device or socket refused; a UTF-8 BOM skipped)."""
    src = open_source(path, "ShapeNet taxonomy CSV", limit=TAXONOMY_LIMIT)
    if src.kind == "folder":
        raise FileAccessError(src.path, "this is a folder; a ShapeNet taxonomy CSV was expected")
    path = src.path
    text = strip_bom(src.read()).decode("utf-8", errors="replace")
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
    if not kept:
        run.warnings.append(
            make_warning(
                "no_queries",
                f"dataset folders without a query file of the {split} split (nothing "
                "scored; a query file is named by a 6-digit model id of the taxonomy)",
                [str(folder)],
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
        reading={"reader": "shapenet17"},  # scored under the shapenet17 profile only
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
