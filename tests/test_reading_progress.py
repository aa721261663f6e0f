"""Readers report their progress and stop when asked (issue "Review day,
round 3", M6): ``load_run(..., progress=, should_stop=)`` and the scoring
service's ``reading=`` follow the bytes of a text file (ASCII matrix, TREC
run, a pipe's bytes), the files of a rank-list folder and the rows of a
binary matrix checked; ``should_stop`` is asked at the same points and
ends the reading with ``Cancelled``.  The run read is the same, with or
without anyone following."""

from __future__ import annotations

import os

import numpy as np
import pytest
from contest_files import (
    distances,
    make_classes,
    write_ascii_matrix,
    write_binary_matrix,
    write_cla,
    write_ranklists,
    write_trec_run,
)
from shrec_eval.contest import RunSource
from shrec_eval.errors import Cancelled
from shrec_eval.options import EvalOptions
from shrec_eval.reading.formats.source import ReadWatch, Source
from shrec_eval.reading.readers import load_assessment, load_run
from shrec_eval.scoring.engine import evaluate
from shrec_eval.service import RunCache, score_runs

#: 60 models, ids 0..59, five classes
CLASSES = make_classes((0, 12, 12, 0, 12, 12, 12))


@pytest.fixture(scope="module")
def contest(tmp_path_factory):
    folder = tmp_path_factory.mktemp("progress")
    cla = write_cla(folder / "models.cla", CLASSES)
    a = load_assessment(cla)
    ids = list(a.item_ids)
    d = distances(60, 60, seed=4)
    return {
        "assessment": a,
        "ascii": write_ascii_matrix(folder / "run.txt", d),
        "trec": write_trec_run(folder / "run.trec", d, ids, ids),
        "folder": write_ranklists(folder / "lists", d, ids, ids, "id-distance"),
        "binary": write_binary_matrix(folder / "run.matrix", d),
    }


def _steps(path, a, **kw):
    calls = []
    run = load_run(path, a, progress=lambda done, total: calls.append((done, total)), **kw)
    return run, calls


def _follows(calls, total):
    """From 0 to ``total``, never back, several steps."""
    done = [d for d, _ in calls]
    assert {t for _, t in calls} == {total}
    assert done[0] == 0 and done[-1] == total and done == sorted(done)
    assert len(set(done)) >= 3, calls


@pytest.mark.parametrize("kind", ["ascii", "trec"])
def test_text_runs_report_the_bytes_read(contest, kind):
    a, path = contest["assessment"], contest[kind]
    size = os.path.getsize(path)
    run, calls = _steps(path, a, chunk_size=size // 7)
    _follows(calls, size)
    assert len(calls) >= 7
    # the same run as read by no one following, and the same numbers
    alone = load_run(path, a, chunk_size=size // 7)
    assert evaluate(a, run).means == evaluate(a, alone).means


def test_a_pipe_read_once_reports_its_bytes(contest):
    a, path = contest["assessment"], contest["ascii"]
    data = open(path, "rb").read()
    src = Source("/dev/fd/63", "pipe", data)  # what open_source keeps of a pipe
    run, calls = _steps(src, a, chunk_size=len(data) // 5, format="ascii-matrix")
    _follows(calls, len(data))
    assert src.watch is None  # the caller's Source is left as it was
    assert np.array_equal(run.matrix, load_run(path, a).matrix)


def test_a_rank_list_folder_reports_the_files_read(contest):
    a = contest["assessment"]
    run, calls = _steps(contest["folder"], a)
    assert calls == [(i, 60) for i in range(61)]
    assert evaluate(a, run).means == evaluate(a, load_run(contest["folder"], a)).means


def test_a_binary_matrix_reports_the_rows_checked(tmp_path):
    n = 600  # three blocks of rows (SCAN_ROWS)
    a = load_assessment(
        write_cla(tmp_path / "m.cla", make_classes((0, 120, 120, 0, 120, 120, 120)))
    )
    path = write_binary_matrix(tmp_path / "m.matrix", distances(n, n, seed=2))
    run, calls = _steps(path, a)
    assert calls == [(0, n), (256, n), (512, n), (n, n)]


@pytest.mark.parametrize("kind", ["ascii", "trec", "folder", "binary"])
def test_should_stop_is_asked_where_progress_is_told(contest, kind):
    a, path = contest["assessment"], contest[kind]
    size = os.path.getsize(path) if kind != "folder" else 0
    kw = {"chunk_size": size // 7} if kind in ("ascii", "trec") else {}
    _, calls = _steps(path, a, **kw)
    asked = []

    def stop() -> bool:
        asked.append(len(asked))
        return len(asked) > 1  # the second step stops

    told = []
    with pytest.raises(Cancelled):
        load_run(path, a, progress=lambda d, t: told.append(d), should_stop=stop, **kw)
    assert len(calls) >= 2 and len(asked) == 2 and told == [calls[0][0]]


def test_a_watch_steps_in_order():
    seen, stops = [], iter([False, True])
    w = ReadWatch(lambda d, t: seen.append((d, t)), lambda: next(stops))
    w.step(1, 4)
    with pytest.raises(Cancelled):
        w.step(2, 4)
    assert seen == [(1, 4)]  # asked first: a stop tells nothing more


def test_the_scoring_service_reports_reading_per_run_and_none_from_its_cache(contest):
    a = contest["assessment"]
    sources = [RunSource(contest["ascii"]), RunSource(contest["folder"])]
    cache, reading, scoring = RunCache(), [], []
    outcomes = list(
        score_runs(
            a,
            sources,
            EvalOptions(),
            cache=cache,
            reading=lambda i, d, t: reading.append((i, d, t)),
            progress=lambda i, d, t: scoring.append((i, d, t)),
        )
    )
    assert {i for i, _, _ in reading} == {0, 1} and {i for i, _, _ in scoring} == {0, 1}
    assert [(d, t) for i, d, t in reading if i == 1] == [(k, 60) for k in range(61)]
    assert (0, os.path.getsize(contest["ascii"]), os.path.getsize(contest["ascii"])) in reading
    again = []
    second = list(
        score_runs(a, sources, EvalOptions(), cache=cache, reading=lambda *x: again.append(x))
    )
    assert again == []  # read from memory: nothing to follow
    assert [o.result.means for o in second] == [o.result.means for o in outcomes]
    # a stop while a run is read (the fifth question: the folder's fourth
    # file) ends the loop, and nothing half read is kept
    fresh, asked = RunCache(), []
    with pytest.raises(Cancelled):
        list(
            score_runs(
                a,
                sources[1:],
                EvalOptions(),
                cache=fresh,
                reading=lambda i, d, t: None,
                should_stop=lambda: asked.append(1) or len(asked) >= 5,
            )
        )
    assert len(asked) == 5 and fresh.get(sources[1], {}) is None
