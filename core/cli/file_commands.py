"""The commands that make files from files, without scoring:
``distances`` (feature vectors' distances as a matrix), ``examples`` (the
example contests) and ``thumbnails`` (a shapes folder's thumbnails).  Their
own module: what they import (the thumbnails' drawing, the examples'
resources) is not imported by the scoring commands."""

from __future__ import annotations

import sys
from pathlib import Path

from ..contest import AssessmentSource
from ..errors import OutputError, UsageError
from ..outputs.atomic import Output, gate_outputs, stream_fd, write_bytes, write_pieces
from ..outputs.examples import write_examples
from ..outputs.gallery import thumb_names
from ..reading.formats.embeddings import distances_matrix, matrix_pieces
from ..shapes.index import ShapesSource
from ..shapes.thumbnails import ThumbnailCache, shape_warning, thumbnail_png
from .steps import Progress

__all__ = ["cmd_distances", "cmd_examples", "cmd_thumbnails"]


def cmd_distances(args, out) -> int:
    """The distances of feature vectors as a PSB binary matrix (float32,
    written atomically a tile of rows at a time): exactly what scoring the
    features ranks, so scoring the matrix gives the same bits."""
    inputs = [args.features, args.ids, args.assessment, args.queries, args.collection]
    gate_outputs([Output("--output", args.output)], [p for p in inputs if p is not None])
    assessment = None
    if args.assessment is not None:
        assessment = AssessmentSource(
            args.assessment,
            queries=args.queries,
            collection=args.collection,
            normalize_ids=not args.no_normalize_ids,
        ).load()
    elif args.queries is not None or args.collection is not None:
        raise UsageError("--queries and --collection go with --assessment")
    dist = distances_matrix(
        args.features,
        metric=args.metric or "cosine",
        ids=args.ids,
        assessment=assessment,
        normalize_ids=not args.no_normalize_ids,
    )
    write_pieces(args.output, matrix_pieces(dist))
    q, n = dist.shape
    # the matrix alone on standard output when it is written there
    say = sys.stderr if stream_fd(args.output) == 1 else out
    say.write(f"{args.output}: {q} x {n} {dist.metric} distances (float32)\n")
    if dist.file_order:
        say.write(
            f"note: the rows and columns are those of {Path(args.features).name} in its own "
            "order (its ids are not written in a matrix), which an assessment's items may "
            "not follow; give --assessment to write its queries x its items, the order "
            "'evaluate' reads a matrix in\n"
        )
    return 0


def cmd_examples(args, out) -> int:
    files = write_examples(args.out)
    out.write(f"{len(files)} example files written to {args.out} (README.md says what each is)\n")
    return 0


def cmd_thumbnails(args, out) -> int:
    """Every shape of a folder as a PNG thumbnail in OUT (created when
    missing; thumbnails of the same names replaced, nothing else touched)."""
    source = ShapesSource(args.shapes, args.layout, normalize_ids=not args.no_normalize_ids)
    gate_outputs([Output("OUT", args.out, "tree")], [source.path])
    index = source.index()
    target = Path(args.out)
    if target.exists() and not target.is_dir():
        raise OutputError(target, "this is a file; a folder was expected for the thumbnails")
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(target, f"cannot make the folder: {exc.strerror or exc}") from exc

    cache = None if args.no_cache else ThumbnailCache()
    ids = index.ids()
    progress = Progress(label="thumbnails")
    problems = {}
    names = thumb_names(ids)
    for done, item in enumerate(ids, start=1):
        png, problem = thumbnail_png(index.files(item), args.size, cache)
        if problem is not None:
            problems[item] = problem
        # no flush to disk per file (thumbnails can be made again): a warm
        # cache writes at the speed of copying files
        write_bytes(target / names[item], png, sync=False)
        progress(done, len(ids))
    out.write(
        f"{len(ids)} thumbnails of {index.describe()} written to {target} "
        f"({args.size} x {args.size} px)\n"
    )
    w = shape_warning(problems)
    if w is not None:
        out.write(f"note: {w}\n")
    return 0
