"""The report folder of ``evaluate`` and ``demo`` (``--report``): the
processes that draw its figures, started before the contest is scored, and
the folder written with its gallery.  Imported by :mod:`.steps` once a
report is asked for: its figures' processes (multiprocessing, the server
that imports matplotlib), the gallery and its thumbnails are of no use to
a command without one (``evaluate --format trec_eval``, ``--json``)."""

from __future__ import annotations

import contextlib

from ..contest import Contest
from ..outputs.figure_jobs import start_drawers
from ..outputs.gallery import gallery_files, run_lists
from ..outputs.palette import result_looks
from ..outputs.report import write_report
from ..shapes.thumbnails import ThumbnailCache, shape_warning
from .arguments import guard_shapes
from .steps import Progress

__all__ = ["figure_drawers", "write_report_folder"]


@contextlib.contextmanager
def figure_drawers():
    """The processes that draw the report's figures (None where none can
    start), started now; ended when the command ends (at once on an error
    or a signal)."""
    # forked from a server that imports matplotlib once, not twice (the
    # command's process ends it)
    drawers = start_drawers(from_server=True)
    if drawers is None:
        yield None
        return
    with drawers:
        yield drawers


def write_report_folder(
    args, contest: Contest, assessment, results, keys, rank_key, out, runs, shapes, drawers
) -> None:
    """``--report``'s folder: the tables, the figures (drawn by ``drawers``)
    and, when the contest has shapes, the gallery."""
    write_report(
        args.report,
        assessment,
        results,
        keys=keys,
        rank_key=rank_key,
        figure_preset=args.figure_preset,
        looks=result_looks(results, [r.colour for r in contest.runs]),
        # made while the figures are drawn
        extra=lambda: _gallery(
            args, contest, assessment, results, keys, rank_key, out, runs, shapes
        ),
        drawers=drawers,
    )


def _gallery(
    args, contest: Contest, assessment, results, keys, rank_key, out, runs=(), shapes=None
):
    """The gallery's files for --report when the contest has shapes (None
    without), from the runs the scoring service read (their lists); the
    thumbnails come from the per-user cache.  ``shapes``: the folders'
    indexes made before scoring (:func:`guard_shapes`)."""
    if contest.shapes is None and contest.query_shapes is None:
        return None
    if len(results) != len(contest.runs) or len(runs) != len(results):
        out.write("note: no gallery: the runs' datasets have different queries\n")
        return None
    indexes = shapes if shapes is not None else guard_shapes(contest, report=True)
    shapes, query_shapes = indexes.get("shapes"), indexes.get("query_shapes")
    files, problems = gallery_files(
        assessment,
        results,
        run_lists(assessment, list(runs), contest.options),
        shapes,
        query_shapes,
        keys=keys,
        rank_key=rank_key,
        mode=getattr(args, "gallery", None) or "all",
        n=getattr(args, "gallery_queries", None) or 5,
        k=getattr(args, "gallery_k", None) or 10,
        size=getattr(args, "thumbnail_size", None) or 128,
        cache=ThumbnailCache(),
        progress=Progress(label="gallery thumbnails"),
    )
    w = shape_warning(problems)
    if w is not None:
        out.write(f"note: shapes: {w}\n")
    return files
