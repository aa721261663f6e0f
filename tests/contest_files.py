"""Writers of small contests in every real file format, for the reader tests."""

from __future__ import annotations

from pathlib import Path

import numpy as np

CLASSES = [
    ("aircraft", "0"),
    ("jet", "aircraft"),
    ("prop", "aircraft"),
    ("animal", "0"),
    ("dog", "animal"),
    ("cat", "animal"),
    ("chair", "0"),
]


def make_classes(n_per_class=(0, 4, 3, 0, 5, 3, 4)):
    """(class name, parent, model ids) with ids 0.. in file order."""
    out, k = [], 0
    for (name, parent), n in zip(CLASSES, n_per_class):
        out.append((name, parent, [str(k + i) for i in range(n)]))
        k += n
    return out


def write_cla(path, classes, *, prefix="", crlf=False, bom=False, final_newline=True):
    models = sum(len(m) for _, _, m in classes)
    lines = ["PSB 1", f"{len(classes)} {models}", ""]
    for name, parent, ms in classes:
        lines.append(f"{name} {parent} {len(ms)}")
        lines.extend(prefix + m for m in ms)
        lines.append("")
    text = ("\r\n" if crlf else "\n").join(lines)
    if not final_newline:
        text = text.rstrip("\r\n")
    data = text.encode()
    Path(path).write_bytes((b"\xef\xbb\xbf" if bom else b"") + data)
    return path


def distances(n_rows, n_cols, seed=0):
    """float32-exact dissimilarities without ties, self-distance 0 on the
    diagonal of a square matrix."""
    rng = np.random.default_rng(seed)
    d = rng.permutation(n_rows * n_cols).reshape(n_rows, n_cols).astype(np.float32) / 8 + 1
    if n_rows == n_cols:
        np.fill_diagonal(d, 0)
    return d


def write_ascii_matrix(path, d, *, fmt="{:.6f}", sep=" ", crlf=False):
    nl = "\r\n" if crlf else "\n"
    Path(path).write_text(nl.join(sep.join(fmt.format(v) for v in row) for row in d) + nl)
    return path


def write_binary_matrix(path, d):
    np.asarray(d, dtype="<f4").tofile(path)
    return path


def ranking(d, row):
    return np.argsort(d[row], kind="stable")


def write_ranklists(folder, d, query_ids, item_ids, variant, *, prefix="", ext="", cut=None):
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    for r, q in enumerate(query_ids):
        order = ranking(d, r)[:cut]
        lines = [q] if variant == "query-line" else []
        for j in order:
            tid = prefix + item_ids[j]
            if variant == "distance-id":
                lines.append(f"{d[r, j]:.6f} {tid}")
            else:
                lines.append(f"{tid} {d[r, j]:.6f}")
        (folder / (q + ext)).write_text("\n".join(lines) + "\n")
    return folder


def write_trec_run(path, d, query_ids, item_ids, *, run_id="myrun", cut=None):
    lines = []
    for r, q in enumerate(query_ids):
        for rank, j in enumerate(ranking(d, r)[:cut], start=1):
            lines.append(f"{q} Q0 {item_ids[j]} {rank} {-float(d[r, j]):.6f} {run_id}")
    Path(path).write_text("\n".join(lines) + "\n")
    return path


def write_qrels(path, judgments):
    lines = [f"{q} 0 {d} {g}" for q, docs in judgments.items() for d, g in docs.items()]
    Path(path).write_text("\n".join(lines) + "\n")
    return path


def write_many_runs(folder, n_runs, *, colours=None, names=None):
    """A contest file ``contest.json`` in ``folder``: the 19 models of
    make_classes() (5 classes, leave-one-out queries) and ``n_runs`` ASCII
    matrices of their own seed, named ``names`` (default "Run 0", ...) and
    coloured ``colours`` (run index -> "#rrggbb") where given."""
    import json

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    classes = make_classes()
    write_cla(folder / "a.cla", classes)
    models = sum(len(m) for _, _, m in classes)
    runs = []
    for i in range(n_runs):
        write_ascii_matrix(folder / f"r{i}.txt", distances(models, models, seed=i))
        run = {"path": f"r{i}.txt", "name": names[i] if names else f"Run {i}"}
        if colours and i in colours:
            run["colour"] = colours[i]
        runs.append(run)
    path = folder / "contest.json"
    path.write_text(json.dumps({"version": 3, "assessment": {"path": "a.cla"}, "runs": runs}))
    return path
