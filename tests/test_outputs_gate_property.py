"""Issue 24: whatever a hostile user gives as inputs and outputs (links to
inputs, FIFOs, names that are not UTF-8, other encodings, truncated files,
outputs sharing a path), every input of the command stays byte for byte
as it was (the same file, not a replacement; a rank-list folder gains or
loses nothing), and the command either succeeds or says why in one line
(never an "unexpected" error)."""

from __future__ import annotations

import contextlib
import io
import os
import tempfile

import numpy as np
from contest_files import distances
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shrec_eval.cli.parser import main
from tiers import examples

CLA = b"PSB 1\n2 6\n\na 0 3\n0\n1\n2\n\nb 0 3\n3\n4\n5\n"
RUN_NAMES = [b"m", b"m\xff", b"r\xe9sultat", b"run one"]


def _inputs(root: bytes, run_name: bytes, encoding: str, truncate: float | None) -> dict:
    """The contest's files under ``root``/in: the assessment in an encoding,
    an ASCII and a binary matrix (maybe truncated), a rank-list folder."""
    inp = os.path.join(root, b"in")
    os.mkdir(inp)
    cla = CLA.decode().replace("a 0 3", "caf\u00e9 0 3")
    data = {
        "utf-8": cla.encode("utf-8"),
        "latin-1": cla.encode("latin-1"),
        "utf-8-bom": b"\xef\xbb\xbf" + cla.encode("utf-8"),
        "utf-16": cla.encode("utf-16"),
        "crlf": cla.replace("\n", "\r\n").encode(),
    }[encoding]
    d = distances(6, 6)
    text = "".join(" ".join(f"{v:.4f}" for v in row) + "\n" for row in d).encode()
    binary = d.astype("<f4").tobytes()
    if truncate is not None:
        text = text[: int(len(text) * truncate)]
        binary = binary[: int(len(binary) * truncate)]
    paths = {
        "cla": os.path.join(inp, b"a.cla"),
        "ascii": os.path.join(inp, run_name + b".txt"),
        "binary": os.path.join(inp, run_name + b".matrix"),
        "lists": os.path.join(inp, b"lists"),
    }
    for key, content in (("cla", data), ("ascii", text), ("binary", binary)):
        with open(paths[key], "wb") as fh:
            fh.write(content)
    os.mkdir(paths["lists"])
    for q in range(6):
        order = np.argsort(d[q])
        with open(os.path.join(paths["lists"], b"%d.txt" % q), "w") as fh:
            fh.write("".join(f"{t} {d[q, t]:.4f}\n" for t in order))
    # an input given through a link
    os.symlink(paths["ascii"], os.path.join(root, b"linked.txt"))
    paths["linked"] = os.path.join(root, b"linked.txt")
    return paths


#: where an output may be asked to go
TARGETS = [
    "fresh",
    "input",
    "link_to_input",
    "inside_input_folder",
    "fifo",
    "folder_with_link",
    "shared",
    "non_utf8",
    "long",
]


def _target(root: bytes, kind: str, k: int, paths: dict, taken: list) -> bytes:
    out = os.path.join(root, b"out")
    os.makedirs(out, exist_ok=True)
    if kind == "fresh":
        return os.path.join(out, b"o%d" % k)
    if kind == "input":
        return paths["cla"] if k % 2 else paths["ascii"]
    if kind == "link_to_input":
        p = os.path.join(out, b"l%d" % k)
        os.symlink(paths["cla"], p)
        return p
    if kind == "inside_input_folder":
        return os.path.join(paths["lists"], b"x%d" % k)
    if kind == "fifo":
        p = os.path.join(out, b"f%d" % k)
        os.mkfifo(p)
        return p
    if kind == "folder_with_link":
        p = os.path.join(out, b"n%d" % k)
        os.mkdir(p)
        for name in (b"micro.txt", b"Stats_test.txt", b"summary.csv"):
            os.symlink(paths["cla"], os.path.join(p, name))
        return p
    if kind == "shared":
        return taken[-1] if taken else os.path.join(out, b"s")
    if kind == "non_utf8":
        return os.path.join(out, b"r\xe9sultats%d" % k)
    return os.path.join(out, b"y" * 300)


def _state(folder: bytes) -> dict:
    """Every entry under ``folder``: a file's bytes, a link's target, a folder."""
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            p = os.path.join(root, name)
            if os.path.islink(p):
                out[p] = ("link", os.readlink(p))
            elif os.path.isdir(p):
                out[p] = ("folder",)
            else:
                with open(p, "rb") as fh:
                    out[p] = ("file", fh.read())
    return out


def _state_of_file(path: bytes):
    with open(path, "rb") as fh:
        return os.lstat(path).st_ino, fh.read()


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    run_name=st.sampled_from(RUN_NAMES),
    encoding=st.sampled_from(["utf-8", "latin-1", "utf-8-bom", "utf-16", "crlf"]),
    truncate=st.one_of(st.none(), st.none(), st.none(), st.floats(0.0, 0.99)),
    run=st.sampled_from(["ascii", "binary", "lists", "linked"]),
    profile=st.sampled_from(["shrec", "psbtable", "boli"]),
    outputs=st.lists(
        st.tuples(
            st.sampled_from(["--json", "--csv", "--report", "--native"]), st.sampled_from(TARGETS)
        ),
        min_size=1,
        max_size=3,
        unique_by=lambda t: t[0],
    ),
)
def test_hostile_inputs_and_outputs_leave_every_input_as_it_was(
    run_name, encoding, truncate, run, profile, outputs
):
    with tempfile.TemporaryDirectory() as tmp:
        root = os.fsencode(tmp)
        paths = _inputs(root, run_name, encoding, truncate)
        # the inputs of the command: the assessment and the run (a link's target)
        used = [paths["cla"], paths["ascii"] if run == "linked" else paths[run]]
        before = [_state(p) if os.path.isdir(p) else _state_of_file(p) for p in used]
        linked_before = os.readlink(paths["linked"])
        argv = ["evaluate", os.fsdecode(paths["cla"]), os.fsdecode(paths[run])]
        if profile != "shrec":
            argv += ["--profile", profile]
        taken: list[bytes] = []
        for k, (option, kind) in enumerate(outputs):
            target = _target(root, kind, k, paths, taken)
            taken.append(target)
            argv += [option, os.fsdecode(target)]
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            code = main(argv, out=io.StringIO())
        assert [_state(p) if os.path.isdir(p) else _state_of_file(p) for p in used] == before
        assert os.readlink(paths["linked"]) == linked_before
        assert code in (0, 2), err.getvalue()
        assert "unexpected" not in err.getvalue(), err.getvalue()
        if code == 2:
            assert len(err.getvalue().strip().splitlines()) == 1, err.getvalue()


def test_the_generator_reaches_both_outcomes(tmp_path):
    """The property above is not vacuous: a fresh output is written, an
    output onto an input is refused (and the input kept)."""
    root = os.fsencode(tmp_path)
    paths = _inputs(root, b"m", "utf-8", None)
    code = main(
        ["evaluate", os.fsdecode(paths["cla"]), os.fsdecode(paths["ascii"]), "--json",
         str(tmp_path / "r.json")],
        out=io.StringIO(),
    )  # fmt: skip
    assert code == 0 and (tmp_path / "r.json").stat().st_size > 0
    with open(paths["cla"], "rb") as fh:
        cla = fh.read()
    with contextlib.redirect_stderr(io.StringIO()):
        code = main(
            ["evaluate", os.fsdecode(paths["cla"]), os.fsdecode(paths["ascii"]), "--json",
             os.fsdecode(paths["cla"])],
            out=io.StringIO(),
        )  # fmt: skip
    with open(paths["cla"], "rb") as fh:
        assert code == 2 and fh.read() == cla
