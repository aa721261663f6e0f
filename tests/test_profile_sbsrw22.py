"""The worked example of docs/evaluators.md: SHREC 2022's sketch-based
retrieval in the wild, whose evaluation notebook is no profile of the
project.  Its evaluator file (tests/data/sbsrw22/sbsrw22.toml, the very text
the docs show) reproduces the numbers the track's own notebook printed on
two generated contests (tests/data/sbsrw22/README.md: how they were made;
the suite never runs the notebook), on the command line and in the library;
the same files under the default profile give other numbers (its rules
matter: matrices indexed by id, no self-match)."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from shrec_eval import EvalOptions, evaluate, load_assessment, load_run
from shrec_eval.cli.parser import main

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).parent / "data" / "sbsrw22"
TRACK = HERE / "sbsrw22.toml"
EXPECTED = json.loads((HERE / "expected.json").read_text())
#: the notebook's printed means -> the profile's columns
NAMES = {
    "nn_av": "nn",
    "ft_av": "ft_psb",
    "st_av": "st_psb",
    "dcg_av": "dcg_psb",
    "e_av": "e_measure",
    "map_": "ap_trec_r",
}


def _close(ours: float, theirs: float) -> bool:
    """The same to the last bits: np.mean adds pairwise, the engine in order."""
    return abs(ours - theirs) <= 2.5e-16 * max(1.0, abs(theirs))


@pytest.mark.parametrize("contest", ["small", "large"])
def test_the_evaluator_file_gives_the_tracks_numbers(contest, tmp_path):
    folder = HERE / contest
    runs = sorted((folder / "runs").iterdir())
    args = [folder / "models.cla", *runs, "--queries", folder / "sketches.cla"]
    out = io.StringIO()
    code = main(
        ["evaluate", *map(str, args), "--profile", str(TRACK), "--json", str(tmp_path / "r.json")],
        out=out,
    )
    assert code == 0
    assert out.getvalue().split("\n", 1)[0].split()[2:] == list(NAMES.values())
    doc = json.loads((tmp_path / "r.json").read_text())
    assert doc["profile"] == "sbsrw22" and len(doc["runs"]) == 2
    a = load_assessment(folder / "models.cla", queries=folder / "sketches.cla", profile=TRACK)
    for run, path in zip(doc["runs"], runs):
        theirs = EXPECTED[f"{contest}/{run['name']}"]
        lib = evaluate(a, load_run(path, a), EvalOptions(profile=TRACK))
        for printed, key in NAMES.items():
            assert run["mean"][key] == lib.mean(key)
            assert _close(run["mean"][key], theirs[printed]), (run["name"], printed)


def test_the_default_profile_gives_other_numbers():
    """Read in listing order with the self-match rule (the default), the
    same files give other numbers: the evaluator file's rules matter."""
    folder = HERE / "small"
    a = load_assessment(folder / "models.cla", queries=folder / "sketches.cla")
    r = evaluate(a, load_run(folder / "runs" / "teamB.txt", a))
    theirs = EXPECTED["small/teamB"]
    assert not all(_close(r.mean(key), theirs[p]) for p, key in NAMES.items())


def test_the_docs_show_the_file_itself():
    """docs/evaluators.md's worked example is this file, whole."""
    doc = (ROOT / "docs" / "evaluators.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```toml\n(.*?)```", doc, flags=re.S)
    assert TRACK.read_text(encoding="utf-8") in blocks
