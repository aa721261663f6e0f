"""Write the expected outputs of this folder with the trec_eval binary, and
the list of cases (cases.txt) that tests/test_outputs_trec_eval.py replays:

    python tests/data/trec_eval/make_expected.py /path/to/trec_eval

The binary is trec_eval 10.0 built from https://github.com/usnistgov/trec_eval
(commit f425365, "Updating CHANGELOG for version 10.0") with `make`; the test
suite never needs it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).parent

#: (qrels, run, trec_eval options)
CASES = [
    ("qrels.test", "results.test", ""),
    ("qrels.test", "results.test", "-q"),
    ("qrels.test", "results.test", "-q -M 100"),
    ("qrels.test", "results.test", "-q -l 2"),
    ("qrels.test", "results.test", "-c"),
    ("qrels.test", "results.test", "-q -c -M 10 -l 2"),
    ("qrels.test", "results.trunc", "-q -c"),
    ("gen1.qrels", "gen1.run", "-c"),
    ("gen1.qrels", "gen1.run", "-q -c"),
    ("gen1.qrels", "gen1.run", "-q -c -M 10 -l 2"),
    ("gen1.qrels", "gen1.run", "-q -c -l 3"),
    ("gen2.qrels", "gen2.run", ""),
    ("gen2.qrels", "gen2.run", "-q"),
    ("gen2.qrels", "gen2.run", "-q -M 100"),
    ("gen2.qrels", "gen2.run", "-q -l 2"),
    ("gen2.qrels", "gen2.run", "-c -M 5"),
]


def expected_name(qrels: str, run: str, options: str) -> str:
    opts = options.replace(" ", "").replace("-", "_") or "_default"
    return f"expected/{run.replace('.', '_')}.{qrels.replace('.', '_')}{opts}.txt"


def main(binary: str) -> None:
    (HERE / "expected").mkdir(exist_ok=True)
    manifest = []
    for qrels, run, options in CASES:
        out = subprocess.run(
            [binary, *options.split(), qrels, run], cwd=HERE, capture_output=True, check=True
        ).stdout
        name = expected_name(qrels, run, options)
        (HERE / name).write_bytes(out)
        manifest.append(f"{qrels}\t{run}\t{options}\t{name}\n")
    (HERE / "cases.txt").write_text("".join(manifest))


if __name__ == "__main__":
    main(sys.argv[1])
