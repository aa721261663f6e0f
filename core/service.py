"""The one scoring service of every front end: read, apply the profile, score.

The command line (:mod:`shrec_eval.cli.commands`), the desktop app's scoring
worker and its Export report all score a contest here and nowhere else, so
that they give the same numbers under every profile:

* :func:`effective_options`: the options a result scored under a profile
  carries (the profile's fixed values over the user's); a front end compares
  results with these, never with the options it was given;
* :func:`score_runs`: one run source after the other, each read with the
  profile's reader settings (trec_eval's tie order, the SHREC toolkits' own
  files skipped...) and scored, with progress, a cooperative ``should_stop``
  and, for the app, a cache of runs already read;
* :func:`score_contest`: a whole :class:`~shrec_eval.contest.Contest`,
  assessment included (shapenet17's method folders: one result per dataset);
* :func:`final_names`: the run names tables and files show (distinct);
* :data:`PROBLEMS`: which data checks are problems, for every face.

No Qt here (the import-linter contract in pyproject.toml).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from .contest import Contest, RunSource
from .errors import AmbiguousFormatError, user_message
from .model.assessment import Assessment
from .model.runs import Run
from .options import EvalOptions
from .profiles.evaluator import Evaluator
from .reading.formats.source import default_name
from .reading.readers import distinct_names
from .scoring.distributed import evaluate as cluster_evaluate
from .scoring.engine import Cancelled, evaluate
from .scoring.memory import release_freed_blocks
from .scoring.results import RunResult

__all__ = [
    "PROBLEMS",
    "Outcome",
    "RunCache",
    "effective_options",
    "final_names",
    "load_assessment",
    "run_stamp",
    "score_contest",
    "score_runs",
    "user_message",
]

#: data checks that are problems (``check`` fails on them, the app's Checks tab
#: and its badges call them problems); the others are notices
PROBLEMS = {
    "unknown_ids",
    "duplicate_ids",
    "missing_queries",
    "extra_queries",
    "query_line_mismatch",
    "unreadable",
}


#: started(index of the source, its name) and progress(index, done, total)
StartedFn = Callable[[int, str], None]
IndexedProgressFn = Callable[[int, int, int], None]


def effective_options(options: EvalOptions) -> EvalOptions:
    """The options the engine scores with under ``options.profile``: what
    every result of these options carries (``RunResult.options``)."""
    return options.rules.apply(options)


def _fingerprint(path) -> tuple | None:
    """What tells a file (or a folder's files) changed on disk: size and time."""
    try:
        st = os.stat(path)
        if os.path.isdir(path):
            entries = [e.stat() for e in os.scandir(path) if e.is_file()]
            return (
                len(entries),
                max((e.st_mtime_ns for e in entries), default=0),
                sum(e.st_size for e in entries),
            )
        return (st.st_size, st.st_mtime_ns)
    except OSError:
        return None


class RunCache:
    """Runs already read, by what reading them depended on: the source (not
    its colour), the reader settings and the file's size and time; a file
    changed on disk is read again.  Held by the app across re-scorings
    (scoring with other options reads nothing again)."""

    def __init__(self) -> None:
        self._runs: dict = {}

    @staticmethod
    def key(source: RunSource, reader: dict) -> tuple:
        ids = _fingerprint(source.ids) if source.ids is not None else None
        return (
            replace(source, colour=None),
            tuple(sorted(reader.items())),
            _fingerprint(source.path),
            ids,  # the file naming an embedding run's rows
        )

    def get(self, source: RunSource, reader: dict) -> Run | None:
        return self._runs.get(self.key(source, reader))

    def put(self, source: RunSource, reader: dict, run: Run) -> None:
        self._runs[self.key(source, reader)] = run

    def clear(self) -> None:
        self._runs.clear()


def run_stamp(source: RunSource, options: EvalOptions) -> tuple:
    """What a run's result depends on besides the assessment: the source as
    the cache knows it (reader settings, the file's size and time) and the
    options it is scored with (under its profile).  Two equal stamps against
    one assessment: the same result (the app's F5 leaves such a run as it is)."""
    reader = dict(options.rules.reading)
    return (RunCache.key(source, reader), effective_options(options))


@dataclass
class Outcome:
    """What became of one run source (``index``: its place in the sources
    given): a ``result`` (with the ``run`` read and the ``assessment`` it was
    scored against), or an ``error`` message (``candidates``: the formats an
    ambiguous file fits, for the user to choose)."""

    index: int
    source: RunSource
    result: RunResult | None = None
    run: Run | None = None
    assessment: Assessment | None = None
    error: str | None = None
    candidates: tuple[str, ...] = ()
    #: the exception behind ``error`` (not a ShrecEvalError: a defect to report)
    exception: BaseException | None = None


def load_assessment(contest: Contest) -> Assessment:
    """The contest's assessment, read by its profile's rules (a profile that
    reads its contests itself, shapenet17, has one per dataset split: they
    come with the results instead)."""
    assessment = contest.load_assessment()
    # what reading freed (a 4 M-line qrels: 200 MiB of chunks' tokens and
    # growing tables between the arrays kept), back to the system before the
    # scoring's arrays are made: they would not fit in its holes and grow the
    # heap past it (core/scoring/memory.py)
    release_freed_blocks()
    return assessment


def _evaluate(i, assessment, run, options, progress, should_stop, client=None) -> RunResult:
    """One run scored here, or on the cluster of ``client`` (the same bits)."""
    cb = None if progress is None else (lambda d, t, i=i: progress(i, d, t))
    if client is None:
        return evaluate(assessment, run, options, progress=cb, should_stop=should_stop)

    return cluster_evaluate(client, assessment, run, options, progress=cb, should_stop=should_stop)


def score_runs(
    assessment: Assessment,
    sources: Sequence[RunSource],
    options: EvalOptions,
    *,
    cache: RunCache | None = None,
    errors: str = "raise",
    started: StartedFn | None = None,
    progress: IndexedProgressFn | None = None,
    should_stop: Callable[[], bool] | None = None,
    client=None,
    reading: IndexedProgressFn | None = None,
) -> Iterator[Outcome]:
    """Read and score each source in turn, under ``options.profile``: one
    :class:`Outcome` per source, in order.  Each run is read by the
    profile's rules (:meth:`Profile.load_run
    <shrec_eval.profiles.base.Profile.load_run>`), against an assessment
    read by them.  ``errors="raise"`` lets a reader's error end the loop (the
    command line's way); ``"collect"`` turns it into the outcome's ``error``
    and goes on (the app's way: one run that cannot be read or scored never
    stops the others).  :class:`~shrec_eval.errors.Cancelled` ends the loop
    when ``should_stop`` answers True (between sources and between blocks of
    queries, and while a run is read: between blocks of a file, files of a
    folder).  ``progress(index, done, total)`` counts the queries scored,
    ``reading(index, done, total)`` what the reader has read of a run not
    in the ``cache`` (bytes of a file, files of a folder, rows of a binary
    matrix checked).  ``client``: a ``dask.distributed.Client`` scores on
    its cluster (:mod:`shrec_eval.scoring.distributed`: the same results)."""
    if errors not in ("raise", "collect"):
        raise ValueError(f"errors must be 'raise' or 'collect', not {errors!r}")
    evaluator = Evaluator.of(options)  # the profile resolved once for the whole job
    profile = evaluator.profile
    profile.check_reading(assessment)  # a profile that reads its own contests says so
    reader = dict(profile.reading)
    for i, source in enumerate(sources):
        if should_stop is not None and should_stop():
            raise Cancelled()
        if started is not None:
            started(i, source.name or default_name(source.path))
        try:
            run = cache.get(source, reader) if cache is not None else None
            if run is None:
                watch: dict[str, Any] = {"should_stop": should_stop}
                if reading is not None:
                    watch["progress"] = lambda d, t, i=i: reading(i, d, t)
                run = profile.load_run(source, assessment, **watch)
                if cache is not None:
                    cache.put(source, reader, run)
            result = _evaluate(i, assessment, run, evaluator, progress, should_stop, client)
        except Cancelled:
            raise
        except AmbiguousFormatError as exc:
            if errors == "raise":
                raise
            yield Outcome(i, source, error=user_message(exc), candidates=tuple(exc.candidates))
            continue
        except Exception as exc:  # noqa: BLE001 - the reader's words, for the front end
            if errors == "raise":
                raise
            yield Outcome(i, source, error=user_message(exc), exception=exc)
            continue
        yield Outcome(i, source, result=result, run=run, assessment=assessment)


def _score_own_reading(
    contest: Contest,
    *,
    started: StartedFn | None = None,
    progress: IndexedProgressFn | None = None,
    should_stop: Callable[[], bool] | None = None,
    client=None,
) -> Iterator[Outcome]:
    """A contest of a profile that reads its contests itself (shapenet17:
    one outcome per dataset of each method folder, each against the
    assessment of its split and queries)."""
    evaluator = Evaluator.of(contest.options)
    reader = evaluator.profile.contest_reader
    assert reader is not None  # called for a profile that has one
    for i, assessment, run in reader(contest.assessment.path, contest.runs):
        if should_stop is not None and should_stop():
            raise Cancelled()
        if started is not None:
            started(i, run.name)
        result = _evaluate(i, assessment, run, evaluator, progress, should_stop, client)
        yield Outcome(i, contest.runs[i], result=result, run=run, assessment=assessment)


def final_names(results: Sequence[RunResult]) -> list[RunResult]:
    """The results under the names tables and files show: where two runs
    carry one name (two TREC files of one run tag), the file name is added
    (``tag (alice.trec)``), then a number."""
    names = distinct_names([r.run_name for r in results], [r.run_source for r in results])
    return [r if r.run_name == n else replace(r, run_name=n) for r, n in zip(results, names)]


def score_contest(
    contest: Contest,
    *,
    assessment: Assessment | None = None,
    progress: Callable[[str], Callable[[int, int], None] | None] | None = None,
    should_stop: Callable[[], bool] | None = None,
    runs: list | None = None,
    client=None,
) -> tuple[Assessment | None, list[RunResult]]:
    """Score every run of a contest (the command line's way: the first
    unreadable run is an error): the assessment (None when a profile that
    reads its contests itself found no run) and the results, in the
    contest's order, with distinct names.  ``progress(run name)`` gives the
    engine's progress callback of that run (e.g. a progress bar); the runs
    read are appended to ``runs`` when given (trec_eval's output counts
    what each retrieved)."""
    options = contest.options
    bars: dict[int, Callable | None] = {}

    def started(i: int, name: str) -> None:
        bars[i] = progress(name) if progress is not None else None

    def step(i: int, done: int, total: int) -> None:
        if (bar := bars.get(i)) is not None:
            bar(done, total)

    if contest.profile.contest_reader is not None:
        outcomes = list(
            _score_own_reading(
                contest, started=started, progress=step, should_stop=should_stop, client=client
            )
        )
        assessment = outcomes[0].assessment if outcomes else None
    else:
        assessment = assessment if assessment is not None else load_assessment(contest)
        outcomes = list(
            score_runs(
                assessment,
                contest.runs,
                options,
                started=started,
                progress=step,
                should_stop=should_stop,
                client=client,
            )
        )
    if runs is not None:
        runs.extend(o.run for o in outcomes)
    # (errors raise: every outcome has its result)
    return assessment, final_names([o.result for o in outcomes if o.result is not None])
