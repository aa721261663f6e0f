"""Regenerate tests/golden/demo.json from the bundled demo contest:

    .venv/bin/python tests/golden/make_demo_json.py

It runs ``shrec-eval demo --json`` and keeps what the golden test compares:
the assessment's description, the options, and per run its format, reader
settings, every mean and average, the per-class values and five per-query
measures of the headline, and the data checks (code and count).  The values
kept are derived independently of the engine by tests/test_golden_demo.py
(the demo's files read by hand, the measures of tests/reference.py), so a
regenerated file that changed a number fails there, not only here.
"""

from __future__ import annotations

import io
import json
import sys
import tempfile
from pathlib import Path

GOLDEN = Path(__file__).with_name("demo.json")
PER_QUERY = ("adr", "ap_trec_r", "e_measure", "ndcg@10", "nn")
PER_CLASS = (
    "adr",
    "ap_trec_r",
    "dcg_psb",
    "e_measure",
    "ft_psb",
    "ndcg@100",
    "nn",
    "queries",
    "st_psb",
)


def golden_of(doc: dict) -> dict:
    """The parts of a full ``demo --json`` document the golden keeps."""
    a = doc["assessment"]
    return {
        "assessment": {
            k: a[k] for k in ("collection_size", "kind", "path", "queries", "reader", "top_grade")
        },
        "options": doc["options"],
        "profile": doc["profile"],
        "runs": [
            {
                "averages": r["averages"],
                "format": r["format"],
                "mean": r["mean"],
                "name": r["name"],
                "per_class": {c: {k: v[k] for k in PER_CLASS} for c, v in r["per_class"].items()},
                "per_query": {q: {k: v[k] for k in PER_QUERY} for q, v in r["per_query"].items()},
                "reader": r["reader"],
                "warnings": [{"code": w["code"], "count": w["count"]} for w in r["warnings"]],
            }
            for r in doc["runs"]
        ],
    }


def golden_text() -> str:
    from shrec_eval.cli.parser import main

    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "demo.json"
        code = main(["demo", "--json", str(out)], out=io.StringIO())
        if code != 0:
            raise SystemExit(f"shrec-eval demo failed ({code})")
        doc = json.loads(out.read_bytes())
    return json.dumps(golden_of(doc), indent=1, sort_keys=True) + "\n"


if __name__ == "__main__":
    text = golden_text()
    if "--check" in sys.argv[1:]:
        sys.exit(0 if GOLDEN.read_text() == text else 1)
    GOLDEN.write_text(text)
    print(f"wrote {GOLDEN}")
