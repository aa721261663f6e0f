"""The hooks that are code: what an evaluator does that no data of an
evaluator file says (psbTable's float32 arithmetic, the ShapeNet evaluator's
own reading of its method folders, trec_eval's text output...).  An
evaluator file names them (``[hooks] overrides = "psbtable.float32"``); this
table is the only way from such a name to code, so that a file never imports
Python of its own (docs/evaluators.md).

Each hook is of one kind, the :class:`~shrec_eval.profiles.base.Profile`
field it fills, and is loaded from this package when a file names it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["HOOKS", "KINDS", "ContestReader", "NativeHook", "TextOutput", "hook"]


@dataclass(frozen=True)
class TextOutput:
    """A program's own text output (``evaluate --format NAME``): written by
    ``writer(assessment, run, result, per_query=False)``, which needs the
    ranks ``ranks``."""

    format: str
    writer: Callable
    ranks: tuple[int, ...] = ()


@dataclass(frozen=True)
class ContestReader:
    """A profile that reads its contests itself: ``read(assessment path,
    run sources)`` gives (index of the source, its assessment, a run), one
    per result; ``usage`` is what ``evaluate`` takes then; ``groups(runs)``
    and ``group(result)`` say which results' native files go together."""

    read: Callable
    usage: str
    groups: Callable
    group: Callable


@dataclass(frozen=True)
class NativeHook:
    """Native files that are code: ``write(results, assessment) -> {file:
    text}``, every file one of ``files``."""

    files: tuple[str, ...]
    write: Callable

    def __call__(self, results, assessment) -> dict:
        return self.write(results, assessment)


#: kind of hook -> what it is (the Profile field it fills)
KINDS = {
    "overrides": "measure key -> a function of a chunk context computing it otherwise",
    "scored": "which queries are queries at all (the others get no value), with a note",
    "measures": "measures of its own that are code (Measure objects)",
    "curves": "curves of its own (Curve objects)",
    "query_data": "per-query arrays its own measures read",
    "text_output": "its own text output (evaluate --format NAME)",
    "contest_reader": "its own reading of a contest (folders of runs)",
    "native": "native files that are code",
}

#: hook name -> (kind, "module:attribute" in this package, what and why)
HOOKS: dict[str, tuple[str, str, str]] = {
    "psbtable.float32": (
        "overrides",
        "psbtable:OVERRIDES",
        "NN, FT, ST, E and DCG in float32 as psbTable computes them (its own log2)",
    ),
    "psbtable.misc_class": (
        "scored",
        "psbtable:scored",
        "the models of the class -1 are not queries (psbTable's MISC_CLASS), with notes",
    ),
    "psbtable.psbplot": (
        "native",
        "psbtable:PSBPLOT",
        "psbPlot's own files (float32 means per recall level), with --pr-interpolation psbplot",
    ),
    "trec_eval.measures": (
        "measures",
        "trec_eval:MEASURES",
        "trec_eval's recip_rank and iprec_at_recall (lround of level x R)",
    ),
    "trec_eval.text": (
        "text_output",
        "trec_eval:TEXT",
        "trec_eval's own output, byte for byte (evaluate --format trec_eval)",
    ),
    "shapenet17.reader": (
        "contest_reader",
        "shapenet17:READER",
        "the taxonomy CSV and method folders of datasets, read as the Node.js evaluator does",
    ),
    "shapenet17.measures": (
        "measures",
        "shapenet17:MEASURES",
        "P@N, R@N, F1@N, mAP and NDCG of the filtered lists (R = min(|synset|, 1000))",
    ),
    "shapenet17.curves": ("curves", "shapenet17:CURVES", "P and R padded to 1000 points"),
    "shapenet17.query_data": (
        "query_data",
        "shapenet17:query_data",
        "R and the ideal DCG of each query, from the taxonomy's order",
    ),
    "shapenet17.native": (
        "native",
        "shapenet17:NATIVE",
        "<method>.summary.csv and .pr.csv with the evaluator's sums, numbers as JavaScript "
        "writes them",
    ),
}


def hook(name: str, kind: str):
    """The code of the hook ``name``, which must be of ``kind``; a
    KeyError naming the known hooks of that kind otherwise."""
    known = [n for n, (k, _, _) in HOOKS.items() if k == kind]
    if name not in HOOKS or HOOKS[name][0] != kind:
        raise KeyError(
            f"no {kind} hook named {name!r}; the {kind} hooks are: "
            + (", ".join(known) if known else "none")
        )
    module, _, attr = HOOKS[name][1].partition(":")
    return getattr(importlib.import_module(f"{__package__}.{module}"), attr)
