"""Every kind of output of the command line on the bundled demo contest,
written by the installed ``shrec_eval``: the reference that moving code
around (issue 32) must leave byte for byte as it is.

    python tests/restructure_outputs.py            # rewrite tests/golden/before_restructure/
    python tests/restructure_outputs.py --check    # compare (what test_outputs_unchanged runs)

Each case is one command run as a user runs it (``python -m shrec_eval``)
in a scratch copy of the demo folder, with relative paths: its standard
output and every file it writes are the case's outputs.  The golden folder
keeps ``hashes.txt`` (size and SHA-256 of every output, binary files
included: figures, thumbnails, matrices) and the text outputs whole, so a
difference shows as a diff.  Two things are normalised: the scratch folder's
absolute path in standard error reads ``<demo>``, and the version of
shrec-eval the outputs name (setuptools-scm's, from git: between tags a dev
version naming its commit) reads as the one they were written with,
:data:`GOLDEN_VERSION`.  The files hold no time and
no absolute path (the scratch folder is the working directory and every path
is given relative to it; figures are written without dates).
"""

from __future__ import annotations

import argparse
import difflib
import hashlib
import lzma
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden" / "before_restructure"
REPO = HERE.parent
DEMO = REPO / "resources" / "demo"
TEXT = {".txt", ".json", ".csv", ".md", ".tex", ".html", ".trec", ".cla", ".sh"}
#: text outputs kept whole in the golden folder up to this size (others: hash only)
TEXT_LIMIT = 64_000

RUNS = [
    "spectralnet.txt",
    "viewharmonics.trec",
    "lightfield-200",
    "shapehistogram",
    "sketchdistance",
    "voxelmoments.matrix",
    "randombaseline.trec",
]
CLA = ["target.cla", "--queries", "queries.cla"]
SIPIRAN_RUNS = ["sip/MeshNN.run2.txt", "sip/PCI.run1.txt"]

#: case name -> arguments of ``shrec-eval`` (run in the scratch demo copy)
CASES = {
    # JSON and CSV of the demo, and its table
    "demo": ["demo", "--json", "out/demo.json", "--csv", "out/csv"],
    # the report folder (CSV, Markdown, LaTeX, HTML, figures) with the gallery of
    # the shapes and its thumbnails (the 2 best queries of each run, 3 results each)
    "report": [
        "evaluate",
        "contest.json",
        "--report",
        "out/report",
        "--gallery",
        "best",
        "--gallery-queries",
        "2",
        "--gallery-k",
        "3",
        "--thumbnail-size",
        "32",
    ],
    # native files of every profile that has them (the demo's .cla and runs)
    "native_boli": [
        "evaluate",
        *CLA,
        *RUNS[:3],
        "--profile",
        "boli",
        "--native",
        "out/native",
        "--json",
        "out/boli.json",
    ],
    "native_psbtable": [
        "evaluate",
        "target.cla",
        "features.npy",
        "--ids",
        "features.ids",
        "--profile",
        "psbtable",
        "--native",
        "out/native",
        "--json",
        "out/psbtable.json",
    ],
    "native_sipiran21": [
        "evaluate",
        "sip/target.cla",
        "--queries",
        "sip/query.cla",
        *SIPIRAN_RUNS,
        "--profile",
        "sipiran21",
        "--native",
        "out/native",
        "--json",
        "out/sipiran21.json",
    ],
    # trec_eval's own text (qrels and run of the trec_eval test data)
    "trec_eval_text": [
        "evaluate",
        "te/qrels.test",
        "te/results.test",
        "--profile",
        "trec_eval",
        "--format",
        "trec_eval",
        "-q",
    ],
    "trec_eval_json": [
        "evaluate",
        "te/qrels.test",
        "te/results.test",
        "--profile",
        "trec_eval",
        "--json",
        "out/te.json",
        "--csv",
        "out/csv",
    ],
    # significance: the text, JSON and a report with its markers
    "compare": [
        "compare",
        *CLA,
        *RUNS[:4],
        "--measure",
        "nn",
        "--resamples",
        "200",
        "--json",
        "out/compare.json",
        "--report",
        "out/report",
    ],
    "check": ["check", *CLA, *RUNS, "--json", "out/check.json"],
    "measures": ["measures"],
    "measures_trec_eval": ["measures", "--profile", "trec_eval"],
    # feature vectors: their distance matrix, and scored directly
    "distances": [
        "distances",
        "features.npy",
        "--ids",
        "features.ids",
        "--assessment",
        "target.cla",
        "-o",
        "out/features.matrix",
    ],
    "features": [
        "evaluate",
        "target.cla",
        "features.npy",
        "--ids",
        "features.ids",
        "--json",
        "out/f.json",
    ],
    "table": ["evaluate", *CLA, *RUNS, "--sister-classes", "--columns", "NN,FT,ST,E,DCG"],
}


def _scratch(folder: Path) -> None:
    """The demo folder, trec_eval's test data and small feature vectors."""
    shutil.copytree(DEMO, folder, dirs_exist_ok=True)
    te = folder / "te"
    te.mkdir()
    for name in ("qrels.test", "results.test"):
        shutil.copy(HERE / "data" / "trec_eval" / name, te / name)
    sip = HERE / "data" / "sipiran21" / "real" / "shape"
    (folder / "sip").mkdir()
    for name in ("target.cla", "query.cla"):
        shutil.copy(sip / name, folder / "sip" / name)
    for run in SIPIRAN_RUNS:
        xz = sip / "runs" / (Path(run).name + ".xz")
        (folder / run).write_bytes(lzma.decompress(xz.read_bytes()))
    import numpy as np

    ids = [
        line.split()[0]
        for line in (folder / "target.cla").read_text().splitlines()[2:]
        if line.strip() and line.split()[0].isdigit() and len(line.split()) == 1
    ]
    rng = np.random.default_rng(32)
    np.save(folder / "features.npy", rng.standard_normal((len(ids), 8)).astype(np.float32))
    (folder / "features.ids").write_text("".join(f"{i}\n" for i in ids))


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


#: the version the golden files name (shrec_eval.__version__ when they were written)
GOLDEN_VERSION = "0.2.0"


def _installed_version() -> bytes:
    code = "import shrec_eval; print(shrec_eval.__version__)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, check=True)
    return out.stdout.strip()


def generate() -> dict[str, bytes]:
    """Every case's outputs: '<case>/stdout.txt', '<case>/exit.txt' and '<case>/<file>'."""
    outputs: dict[str, bytes] = {}
    env = dict(os.environ, SOURCE_DATE_EPOCH="0", COLUMNS="100", LC_ALL="C.UTF-8")
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp) / "demo"
        _scratch(base)
        cache = Path(tmp) / "cache"
        env["XDG_CACHE_HOME"] = str(cache)
        for case, args in CASES.items():
            shutil.rmtree(base / "out", ignore_errors=True)
            (base / "out").mkdir()
            done = subprocess.run(
                [sys.executable, "-m", "shrec_eval", *args],
                cwd=base,
                env=env,
                capture_output=True,
                timeout=600,
            )
            outputs[f"{case}/stdout.txt"] = done.stdout
            # stderr names the scratch folder when it names a file: <demo>
            stderr = done.stderr.replace(str(base).encode(), b"<demo>")
            outputs[f"{case}/exit.txt"] = b"%d\n%s" % (done.returncode, stderr)
            if (base / "out").is_dir():
                for name, data in _files(base / "out").items():
                    outputs[f"{case}/{name}"] = data
    version = _installed_version()
    return {name: data.replace(version, GOLDEN_VERSION.encode()) for name, data in outputs.items()}


def _hashes(outputs: dict[str, bytes]) -> str:
    return "".join(
        f"{hashlib.sha256(data).hexdigest()} {len(data):9d} {name}\n"
        for name, data in sorted(outputs.items())
    )


def _kept(name: str, data: bytes) -> bool:
    return Path(name).suffix in TEXT and len(data) <= TEXT_LIMIT


def write(outputs: dict[str, bytes], folder: Path = GOLDEN) -> None:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    (folder / "hashes.txt").write_text(_hashes(outputs))
    for name, data in outputs.items():
        if _kept(name, data):
            path = folder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def differences(outputs: dict[str, bytes], folder: Path = GOLDEN) -> list[str]:
    """What differs from the golden folder: a unified diff of each text
    file kept whole, the hash lines of every other file."""
    want = (folder / "hashes.txt").read_text().splitlines(keepends=True)
    got = _hashes(outputs).splitlines(keepends=True)
    if want == got:
        return []
    out = list(difflib.unified_diff(want, got, "golden/hashes.txt", "now/hashes.txt"))
    for name, data in sorted(outputs.items()):
        path = folder / name
        if _kept(name, data) and path.is_file() and path.read_bytes() != data:
            old = path.read_text(errors="replace").splitlines(keepends=True)
            new = data.decode(errors="replace").splitlines(keepends=True)
            out += difflib.unified_diff(old, new, f"golden/{name}", f"now/{name}")
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare instead of writing")
    args = ap.parse_args()
    outputs = generate()
    if args.check:
        diff = differences(outputs)
        sys.stdout.writelines(diff[:400])
        return 1 if diff else 0
    write(outputs)
    print(f"{len(outputs)} outputs written to {GOLDEN}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
