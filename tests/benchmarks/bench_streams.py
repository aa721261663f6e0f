"""Benchmark of what the hostile-stream tests only check for hangs (not a
test: no timing is asserted in the suite).

    python tests/benchmarks/bench_streams.py [--rounds 20]

Times, in this process: telling a FIFO, a device, a folder and a missing
path apart without opening them (``classify_path``, ``sniff``: issue 11's
d19, meant to be instant), and the error for a FIFO no program writes to
(``open_source`` with its 0.3 s wait: d09, meant to take the wait and no
more).  Prints the best and the median of each.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from pathlib import Path


def timed(fn, rounds: int) -> tuple[float, float]:
    times = []
    for _ in range(rounds):
        t = time.perf_counter()
        try:
            fn()
        except Exception:  # noqa: BLE001 - the error is what is timed (d09)
            pass
        times.append(time.perf_counter() - t)
    return min(times), statistics.median(times)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rounds", type=int, default=20)
    args = p.parse_args(argv)
    from shrec_eval.reading.formats.source import open_source
    from shrec_eval.reading.readers import classify_path, sniff

    with tempfile.TemporaryDirectory() as d:
        fifo = Path(d) / "f"
        os.mkfifo(fifo)

        def tell_apart() -> None:
            classify_path(fifo)
            sniff(fifo)
            classify_path("/dev/null")
            classify_path(d)
            classify_path(Path(d) / "nope")

        rows = [
            ("d19: a FIFO, a device, a folder, a missing path told apart", tell_apart),
            (
                "d09: a FIFO without a writer refused (wait 0.3 s)",
                lambda: open_source(fifo, "run", wait=0.3),
            ),
        ]
        for what, fn in rows:
            rounds = args.rounds if "d19" in what else max(3, args.rounds // 5)
            best, median = timed(fn, rounds)
            print(f"{what}: best {best * 1000:.2f} ms, median {median * 1000:.2f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
