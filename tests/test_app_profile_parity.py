"""The app and the command line give the same numbers under every profile
(issue 20): one contest file scored by ``shrec-eval evaluate --report
--native`` and by the app's own controller and worker (``shrec-gui
CONTEST.json --export-report DIR --native DIR``, run headless in this
process) must write byte-identical summary.csv, per_query.csv and
per_class.csv, and the same native files, for every profile the app scores,
every run format, micro and macro averages, on contests with ties, missing
queries, truncated lists, unjudged items, classes of 1 and 2 and a -1 class.

shapenet17 scores method folders of datasets, each against its own
assessment; the app holds one assessment, so that profile is scored by the
command line only (through the same service, tests/test_profile_shapenet17.py).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

from contest_files import (  # noqa: E402
    write_ascii_matrix,
    write_binary_matrix,
    write_qrels,
    write_ranklists,
    write_trec_run,
)
from contest_profiles import boli_contest  # noqa: E402
from shrec_eval.cli.parser import main as cli_main  # noqa: E402
from shrec_eval.contest import AssessmentSource, Contest, RunSource  # noqa: E402
from shrec_eval.options import EvalOptions  # noqa: E402
from shrec_eval.profiles import REGISTRY  # noqa: E402

from shrec_gui.headless import export  # noqa: E402

#: windows of the headless runs, kept alive to the end (see guitools.retire)
_WINDOWS: list = []

# 21 models: classes of 6, 5, 4, 2 and 1 models and the -1 class (psbTable's
# models that are no queries) of 3, between the others
CLASSES = [("a", 6), ("-1", 3), ("b", 5), ("c", 2), ("d", 1), ("e", 4)]


def _cla(path: Path) -> list[str]:
    ids = []
    text = f"PSB 1\n{len(CLASSES)} {sum(n for _, n in CLASSES)}\n"
    for name, n in CLASSES:
        members = [f"{name.strip('-')}{i}" if name != "-1" else f"z{i}" for i in range(n)]
        ids += members
        text += f"\n{name} 0 {n}\n" + "".join(f"{m}\n" for m in members)
    path.write_text(text)
    return ids


def cla_contest(folder: Path) -> Contest:
    """Leave-one-out .cla contest with a run of every format: an ASCII
    matrix full of ties, a binary matrix, a TREC run with missing queries,
    tied scores and lists cut at 10, a rank-list folder with missing query
    files and lists cut at 12."""
    ids = _cla(folder / "models.cla")
    n = len(ids)
    rng = np.random.default_rng(20)
    tied = rng.integers(0, 6, size=(n, n)).astype(np.float32)
    np.fill_diagonal(tied, 0)
    write_ascii_matrix(folder / "tied.txt", tied, fmt="{:.1f}")
    d = rng.random((n, n)).astype(np.float32)
    np.fill_diagonal(d, 0)
    write_binary_matrix(folder / "method.matrix", d)
    keep = [q for q in range(n) if q % 7 != 3]  # queries 3, 10, 17 missing
    t = np.round(rng.random((n, n)), 1).astype(np.float32)
    write_trec_run(
        folder / "run.trec", t[keep], [ids[q] for q in keep], ids, run_id="tagged", cut=10
    )
    keep2 = [q for q in range(n) if q % 5 != 1]
    write_ranklists(
        folder / "lists", d[keep2] + 0.5, [ids[q] for q in keep2], ids, "id-distance", cut=12
    )
    runs = (
        RunSource(folder / "tied.txt"),
        RunSource(folder / "method.matrix"),
        RunSource(folder / "run.trec"),
        RunSource(folder / "lists"),
    )
    return Contest(AssessmentSource(folder / "models.cla"), runs, EvalOptions(), "cla contest")


def boli_style_contest(folder: Path) -> Contest:
    """External sketch queries against a target collection: the toolkit's
    rank-list folder (its own output files lying there, a NaN distance), an
    ASCII matrix and a TREC run of the same queries."""
    queries, target, lists = boli_contest(folder)
    q_ids = ["q1", "q2", "q3", "q4"]
    t_ids = [
        line.strip()
        for line in target.read_text().splitlines()[2:]
        if line.strip() and " " not in line.strip()
    ]
    rng = np.random.default_rng(5)
    d = np.round(rng.random((4, len(t_ids))), 2).astype(np.float32)
    write_ascii_matrix(folder / "sketch.txt", d, fmt="{:.2f}")
    write_trec_run(folder / "sketch.trec", d, q_ids, t_ids, run_id="sk", cut=20)
    runs = (RunSource(lists), RunSource(folder / "sketch.txt"), RunSource(folder / "sketch.trec"))
    source = AssessmentSource(target, queries=queries)
    return Contest(source, runs, EvalOptions(), "sketch contest")


def qrels_contest(folder: Path) -> Contest:
    """TREC qrels with grades 0-2 and documents nobody judged, a collection
    size given, two TREC runs of one run tag retrieving unjudged documents
    (named apart as the command line names them), ties in their scores."""
    docs = [f"d{i}" for i in range(30)]
    rng = np.random.default_rng(7)
    judgments = {
        f"t{q}": {docs[j]: int(rng.integers(0, 3)) for j in rng.choice(30, 8, replace=False)}
        for q in range(1, 6)
    }
    judgments["t5"] = {d: 0 for d in judgments["t5"]}  # a query without relevant documents
    write_qrels(folder / "topics.qrels", judgments)
    qids = list(judgments)
    for name, seed in (("one.trec", 1), ("two.trec", 2)):
        s = np.round(np.random.default_rng(seed).random((5, 30)), 1).astype(np.float32)
        write_trec_run(folder / name, s[:4], qids[:4], docs, run_id="same", cut=15)
    runs = (RunSource(folder / "one.trec"), RunSource(folder / "two.trec"))
    source = AssessmentSource(folder / "topics.qrels", collection_size=40)
    return Contest(source, runs, EvalOptions(collection_size=40), "qrels contest")


def id_contest(folder: Path) -> Contest:
    """SHREC 2021's layout: matrices indexed by model id, the ids 0..N-1 listed
    out of order, ties, classes of 1 and 2 targets (tests/data/sipiran21)."""
    src = Path(__file__).parent / "data" / "sipiran21" / "generated" / "ties_small_classes"
    runs = tuple(RunSource(p) for p in sorted((src / "runs").iterdir()))
    source = AssessmentSource(src / "target.cla", queries=src / "query.cla")
    return Contest(source, runs, EvalOptions(), "id contest")


#: the profiles the app scores (shapenet17 reads its own method folders), from the registry
APP_PROFILES = [n for n, p in REGISTRY.items() if p.contest_reader is None]
CASES = [
    (cla_contest, profile, average)
    for profile in APP_PROFILES
    if profile != "sipiran21"  # matrices by id need ids 0..N-1: id_contest
    for average in ("micro", "macro")
]
CASES += [(id_contest, p, a) for p in ("sipiran21", "shrec") for a in ("micro", "macro")]
CASES += [(boli_style_contest, p, a) for p in ("boli", "shrec") for a in ("micro", "macro")]
CASES += [(qrels_contest, p, "micro") for p in ("trec_eval", "shrec")]


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize(
    "make, profile, average",
    CASES,
    ids=[f"{m.__name__}-{p}-{a}" for m, p, a in CASES],
)
def test_app_and_command_line_write_the_same_files(qapp, tmp_path, capsys, make, profile, average):
    from dataclasses import replace

    data = tmp_path / "data"
    data.mkdir()
    contest = make(data)
    contest = replace(contest, options=replace(contest.options, profile=profile, average=average))
    path = tmp_path / "contest.json"
    contest.write(path)

    cli_report, cli_native = tmp_path / "cli", tmp_path / "cli-native"
    args = ["evaluate", str(path), "--report", str(cli_report)]
    native = REGISTRY[profile].native is not None
    if native:
        args += ["--native", str(cli_native)]
    code = cli_main(args, out=io.StringIO())
    cli_error = capsys.readouterr().err

    app_report, app_native = tmp_path / "app", tmp_path / "app-native"
    said: list[str] = []
    status = export(
        [str(path)],
        report=str(app_report),
        native=str(app_native) if native else None,
        say=said.append,
        windows=_WINDOWS,
    )
    if code != 0:  # a run neither can read: both refuse it, in the reader's words
        assert status == 1 and not app_report.exists()
        reader = cli_error.removeprefix("shrec-eval: error: ").strip()
        assert any(reader in line for line in said), (cli_error, said)
        assert profile != "boli"  # the toolkit's own files are skipped under boli only
        return
    assert status == 0, said

    cli_files, app_files = _tree(cli_report), _tree(app_report)
    compared = ["summary.csv", "per_query.csv"] + (["per_class.csv"] if average == "macro" else [])
    for name in compared:
        assert name in cli_files, name
        assert app_files[name] == cli_files[name], f"{name} differs between the app and the CLI"
    # every file the command line's report has, the app's has too, the same
    # (the app adds its figures)
    for name, data_ in cli_files.items():
        assert app_files.get(name) == data_, name
    if native:
        assert _tree(app_native) == _tree(cli_native)
        assert _tree(cli_native)  # something was written
