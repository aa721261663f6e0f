"""Benchmark of the report's print figures (not a test; figures go into
the issue note).

    python tests/benchmarks/bench_figures.py [--preset column]

Scores the bundled demo (7 runs, 30 query classes) and a generated
55-class contest (tests/print_contest.py), then times each figure's drawing
(layout included) and each format's saving, and the whole of
``report_figure_files`` (12 files: 4 figures x PDF, SVG, PNG): the
processor time of this process (the drawing is all of it), each figure
drawn a first time before it is timed (as a report's drawing process has
drawn the figures before it).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from print_contest import classes55, demo_scored  # noqa: E402
from shrec_eval.outputs import figures as F  # noqa: E402
from shrec_eval.outputs.report import report_figure_files  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--preset", default="column", choices=list(F.PRESETS))
    p = F.PRESETS[ap.parse_args().preset]
    for name, make in (("demo", demo_scored), ("55 classes", classes55)):
        _, results, _, rank_key = make()
        print(f"{name}: {len(results)} runs, {len(results[0].per_class)} classes")
        figures = (
            ("precision_recall", F.curve_figure, (results, "pr", p)),
            ("ndcg", F.curve_figure, (results, "ndcg", p)),
            ("measure_bars", F.bars_figure, (results, p)),
            ("class_heatmap", F.heatmap_figure, (results, rank_key, p)),
        )
        for _, draw, args in figures:  # warm: what a first figure imports and caches
            fig = draw(*args)
            for fmt in F.FORMATS:
                F.figure_bytes(fig, fmt)
        total = 0.0
        for fig_name, draw, args in figures:
            t = time.process_time()
            fig = draw(*args)
            took = time.process_time() - t
            total += took
            line = [f"  {fig_name:17s} laid out {took:5.2f} s"]
            for fmt in F.FORMATS:
                t = time.process_time()
                size = len(F.figure_bytes(fig, fmt))
                took = time.process_time() - t
                total += took
                line.append(f"{fmt} {took:5.2f} s ({size // 1024} KiB)")
            print(", ".join(line))
        print(f"  the four figures: {total:.2f} s of processor time")
        t = time.process_time()
        files = report_figure_files(results, rank_key=rank_key, preset=p)
        print(f"  report_figure_files: {len(files)} files in {time.process_time() - t:.2f} s")


if __name__ == "__main__":
    main()
