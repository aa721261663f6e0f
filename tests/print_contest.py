"""Contests for the print tests: the demo scored, and a generated contest of
55 classes (as many as ShapeNet's synsets) with long class and run names."""

from __future__ import annotations

from functools import cache

import numpy as np
from shrec_eval import Assessment, EvalOptions, RankedRun, evaluate
from shrec_eval.cli.commands import demo_manifest
from shrec_eval.contest import Contest
from shrec_eval.profiles import get_profile
from shrec_eval.scoring.engine import evaluate_runs

CLASS_WORDS = [
    "airplane",
    "ashcan_trash_can_garbage_can",
    "bag",
    "basket",
    "bathtub",
    "bed",
    "bench",
    "birdhouse",
    "bookshelf",
    "bottle",
    "bowl",
    "bus",
    "cabinet",
    "camera",
    "can",
    "cap",
    "car",
    "cellular_telephone",
    "chair",
    "clock",
    "computer_keyboard",
    "dishwasher",
    "display",
    "earphone",
    "faucet",
    "file_cabinet",
    "guitar",
    "helmet",
    "jar",
    "knife",
    "lamp",
    "laptop",
    "loudspeaker",
    "mailbox",
    "microphone",
    "microwave",
    "motorcycle",
    "mug",
    "piano",
    "pillow",
    "pistol",
    "pot",
    "printer",
    "remote_control",
    "rifle",
    "rocket",
    "skateboard",
    "sofa",
    "stove",
    "table",
    "telephone",
    "tower",
    "train",
    "vessel",
    "washer",
]
RUN_NAMES = [
    "PointNet++-finetuned",
    "MVCNN_12views",
    "DGCNN",
    "Team-Blue-run2",
    "SpectralDescriptor",
    "VoxelNet",
    "Random",
]


@cache
def demo_scored():
    """(assessment, results, keys, rank_key) of the bundled demo."""
    contest = Contest.read(demo_manifest())
    a = contest.load_assessment()
    runs = [src.load(a) for src in contest.runs]
    results = evaluate_runs(a, runs, contest.options) if runs else []
    keys, rank_key = get_profile(contest.options.profile).table(a, contest.options)
    return a, results, keys, rank_key


@cache
def classes55(per_class: int = 4):
    """(assessment, results, keys, rank_key): 55 classes of ``per_class``
    items, every item a query (leave one out), 7 runs from noisy distances."""
    assert len(CLASS_WORDS) == 55
    items = [f"m{c:02d}_{i}" for c in range(55) for i in range(per_class)]
    klass = {m: CLASS_WORDS[int(m[1:3])] for m in items}
    judgments = {q: {m: 1 for m in items if klass[m] == klass[q]} for q in items}
    a = Assessment.from_judgments(
        judgments, items, leave_one_out=True, query_classes={q: klass[q] for q in items}
    )
    rng = np.random.default_rng(55)
    same = np.array([[klass[q] == klass[m] for m in items] for q in items], float)
    results = []
    for r, name in enumerate(RUN_NAMES):
        noise = 0.15 + 0.25 * r
        d = (1 - same) + rng.normal(0, noise, same.shape)
        lists = {
            q: [items[j] for j in np.argsort(d[i], kind="stable")] for i, q in enumerate(items)
        }
        results.append(evaluate(a, RankedRun.from_lists(name, lists, a), EvalOptions()))
    keys, rank_key = get_profile("shrec").table(a, EvalOptions())
    return a, results, keys, rank_key
