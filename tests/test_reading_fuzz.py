"""Fuzzing the readers: random byte-level and token-level mutations of valid
files either parse or raise the project's ContestFileError, never any other
exception.  The mutation runs are marked ``slow`` (CI runs them; deselect with
``-m "not slow"`` for a quick run)."""

import numpy as np
import pytest
from contest_files import (
    distances,
    make_classes,
    write_ascii_matrix,
    write_binary_matrix,
    write_cla,
    write_qrels,
    write_ranklists,
    write_trec_run,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from shrec_eval import evaluate
from shrec_eval.errors import ContestFileError
from shrec_eval.reading.readers import load_assessment, load_run
from tiers import examples

CLASSES = make_classes((0, 3, 2, 0, 3, 2, 2))
N = sum(len(m) for _, _, m in CLASSES)
TOKENS = [
    "",
    " ",
    "\n",
    "\r\n",
    "\t",
    "0",
    "-1",
    "1e309",
    "nan",
    "inf",
    "-0",
    "PSB",
    "m3",
    "model_0",
    "x",
    "\x00",
    "\xff",
    "\ufeff",
    "999999999999999999999",
    "3.5",
    "#",
    "Q0",
]


@pytest.fixture(scope="module")
def valid(tmp_path_factory):
    base = tmp_path_factory.mktemp("valid")
    cla = write_cla(base / "t.cla", CLASSES)
    a = load_assessment(cla)
    ids = list(a.item_ids)
    d = distances(N, N)
    files = {
        "cla": cla.read_bytes(),
        "qrels": write_qrels(base / "q", {"q1": {"1": 2, "2": 1}, "q2": {"3": 1}}).read_bytes(),
        "ascii-matrix": write_ascii_matrix(base / "m.txt", d).read_bytes(),
        "binary-matrix": write_binary_matrix(base / "m.matrix", d).read_bytes(),
        "trec": write_trec_run(base / "r.trec", d, ids, ids, cut=6).read_bytes(),
        "ranklist": (
            write_ranklists(base / "rl", d, ids[:1], ids, "query-line", cut=6) / ids[0]
        ).read_bytes(),
    }
    return a, files


def mutate_bytes(data: bytes, ops) -> bytes:
    b = bytearray(data)
    for kind, pos, val in ops:
        if not b:
            b.extend(bytes([val]))
            continue
        i = pos % len(b)
        if kind == 0:
            b[i] = val
        elif kind == 1:
            del b[i]
        elif kind == 2:
            b.insert(i, val)
        else:
            del b[i:]
    return bytes(b)


def mutate_tokens(data: bytes, ops) -> bytes:
    toks = data.decode("latin-1").split(" ")
    for kind, pos, tok in ops:
        if not toks:
            toks.append(tok)
            continue
        i = pos % len(toks)
        if kind == 0:
            toks[i] = tok
        elif kind == 1:
            del toks[i]
        elif kind == 2:
            toks.insert(i, tok)
        else:
            toks[i] = toks[i] + "\n" + toks[i]
    return " ".join(toks).encode("latin-1", errors="replace")


def load(kind, path, a, tmp):
    if kind in ("cla", "qrels"):
        return load_assessment(path, format=kind)
    if kind == "ranklist":
        folder = tmp / "rl"
        folder.mkdir(exist_ok=True)
        (folder / a.query_ids[0]).write_bytes(path.read_bytes())
        run = load_run(folder, a)
    else:
        run = load_run(path, a, format=kind)
    return evaluate(a, run)


def check(kind, data, valid, tmp_path_factory):
    a, _ = valid
    tmp = tmp_path_factory.mktemp("fuzz")
    p = tmp / "f"
    p.write_bytes(data)
    try:
        load(kind, p, a, tmp)
    except ContestFileError as e:
        assert str(e).startswith(str(p) if kind != "ranklist" else str(tmp))


KINDS = ["cla", "qrels", "ascii-matrix", "binary-matrix", "trec", "ranklist"]
byte_ops = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=6
)
token_ops = st.lists(
    st.tuples(st.integers(0, 3), st.integers(0, 10**6), st.sampled_from(TOKENS)),
    min_size=1,
    max_size=6,
)
FUZZ = settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
@FUZZ
@given(ops=byte_ops)
def test_byte_mutations(kind, ops, valid, tmp_path_factory):
    check(kind, mutate_bytes(valid[1][kind], ops), valid, tmp_path_factory)


@pytest.mark.slow
@pytest.mark.parametrize("kind", KINDS)
@FUZZ
@given(ops=token_ops)
def test_token_mutations(kind, ops, valid, tmp_path_factory):
    check(kind, mutate_tokens(valid[1][kind], ops), valid, tmp_path_factory)


def _expected_nn(a) -> list[float]:
    """NN by hand from the distances: the nearest other model (ties by
    collection order) is of the query's class."""
    d = distances(N, N)
    cls = [c for c, _, ms in CLASSES for _ in ms]
    out = []
    for q in range(N):
        j = next(int(j) for j in np.argsort(d[q], kind="stable") if j != q)
        out.append(1.0 if cls[j] == cls[q] else 0.0)
    return out


@pytest.mark.parametrize("kind", KINDS)
def test_unmutated_files_load(kind, valid, tmp_path_factory):
    """The valid files the mutations start from read back as written (else
    the fuzzing would mutate files that fail anyway)."""
    a, files = valid
    tmp = tmp_path_factory.mktemp("ok")
    p = tmp / "f"
    p.write_bytes(files[kind])
    got = load(kind, p, a, tmp)
    if kind == "cla":
        assert got.query_ids == tuple(str(i) for i in range(N))
        assert list(got.query_classes) == [c for c, _, ms in CLASSES for _ in ms]
    elif kind == "qrels":
        assert got.judgments("q1") == {"1": 2, "2": 1} and got.judgments("q2") == {"3": 1}
    elif kind == "ranklist":  # one query's list
        assert got.column("nn")[0] == _expected_nn(a)[0]
    else:
        assert got.column("nn").tolist() == _expected_nn(a)
