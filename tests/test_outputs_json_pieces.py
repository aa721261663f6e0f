"""The JSON document is written in pieces (core/outputs/json_pieces.py json_pieces,
core/outputs/writing.py write_pieces): byte for byte what orjson writes whole, for
any split, and the file appears whole or not at all."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping

import numpy as np
import orjson
import pytest
import shrec_eval.outputs.json_pieces as jp
import shrec_eval.outputs.writing as writing
from shrec_eval.errors import OutputError
from shrec_eval.outputs.report import json_pieces, to_json, write_json


@pytest.fixture(scope="module")
def demo_doc():
    from shrec_eval import evaluate
    from shrec_eval.contest import Contest
    from shrec_eval.resources import demo_manifest

    contest = Contest.read(demo_manifest())
    a = contest.load_assessment()
    return to_json(a, [evaluate(a, source.load(a)) for source in contest.runs])


def _plain(value):
    """The document with its lazily made objects (RowMap) as plain dicts."""
    if isinstance(value, Mapping):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _whole(doc) -> bytes:
    return orjson.dumps(_plain(doc), option=orjson.OPT_SERIALIZE_NUMPY) + b"\n"


@pytest.mark.parametrize("heavy, group", [(1 << 16, 512), (10, 3), (0, 1), (50, 2)])
def test_pieces_are_the_document_byte_for_byte(demo_doc, monkeypatch, heavy, group):
    monkeypatch.setattr(jp, "_JSON_HEAVY", heavy)
    monkeypatch.setattr(jp, "_JSON_GROUP", group)
    pieces = list(json_pieces(demo_doc))
    assert b"".join(pieces) == _whole(demo_doc)
    if heavy < 100:
        assert len(pieces) > 100  # really split


def test_odd_documents_in_pieces(monkeypatch):
    monkeypatch.setattr(jp, "_JSON_HEAVY", 2)
    monkeypatch.setattr(jp, "_JSON_GROUP", 2)
    docs = [
        {},
        [],
        {"a": {}, "b": [], "c": [[], {}], "d": None},
        {'q"uote\\': {"é": [1.5, math.nan, math.inf]}, "x": np.arange(7.0)},
        {"per_query": {f"q{i}": np.full(3, i / 7) for i in range(9)}},
        [{"k": list(range(5))}, np.zeros((2, 3)), "text", 3, True],
    ]
    for doc in docs:
        assert b"".join(json_pieces(doc)) == _whole(doc)


def test_write_json_writes_the_whole_document(tmp_path, demo_doc, monkeypatch):
    monkeypatch.setattr(jp, "_JSON_HEAVY", 100)
    monkeypatch.setattr(writing, "_FLUSH_EVERY", 1 << 12)  # the flusher asked often
    synced = []
    real = writing._datasync
    monkeypatch.setattr(writing, "_datasync", lambda fd: synced.append(fd) or real(fd))
    out = tmp_path / "r.json"
    write_json(out, demo_doc)
    assert out.read_bytes() == _whole(demo_doc)
    assert json.loads(out.read_text())["runs"][0]["name"] == demo_doc["runs"][0]["name"]
    assert synced  # flushed while writing
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_a_failing_piece_leaves_the_old_file(tmp_path):
    out = tmp_path / "r.json"
    out.write_text("old")

    def pieces():
        yield b"{" * (1 << 20)
        raise RuntimeError("stop")

    with pytest.raises(RuntimeError):
        writing.write_pieces(out, pieces())
    assert out.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_a_failing_flush_is_an_error_and_leaves_the_old_file(tmp_path, monkeypatch):
    out = tmp_path / "r.json"
    out.write_text("old")
    monkeypatch.setattr(writing, "_FLUSH_EVERY", 1)

    def broken(fd):
        raise OSError(5, "Input/output error")

    monkeypatch.setattr(writing, "_datasync", broken)
    with pytest.raises(OutputError, match="Input/output error"):
        writing.write_pieces(out, [b"a" * 100, b"b" * 100])
    assert out.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.json"]


def test_a_key_orjson_refuses_is_refused_in_pieces(monkeypatch):
    monkeypatch.setattr(jp, "_JSON_HEAVY", 0)
    doc = {"a": {1: [1.0, 2.0]}}
    with pytest.raises(TypeError):
        orjson.dumps(doc)
    with pytest.raises(TypeError):
        b"".join(json_pieces(doc))


def test_a_heavy_member_after_many_light_ones_is_written_in_pieces(monkeypatch):
    # a run of the command line: name, path, format, reader, mean, averages,
    # per_class, undefined come before per_query and curves; the weight of a
    # small object is every member's, not that of its first eight
    monkeypatch.setattr(jp, "_JSON_HEAVY", 1000)
    monkeypatch.setattr(jp, "_JSON_GROUP", 50)
    run = {f"light{i}": {"x": i} for i in range(9)}
    run["per_query"] = {f"q{i}": {"ap": i / 3, "nn": 1.0} for i in range(2000)}
    run["curves"] = {"pr": {"per_query": {f"q{i}": np.full(21, i / 7) for i in range(300)}}}
    doc = {"tool": "t", "runs": [run]}
    pieces = list(json_pieces(doc))
    assert b"".join(pieces) == _whole(doc)
    whole = len(_whole(doc))
    assert len(pieces) > 40 and max(map(len, pieces)) < whole / 8  # about 1000 values each


def test_the_command_lines_document_is_written_in_pieces(demo_doc, monkeypatch):
    doc = dict(demo_doc)
    doc["assessment"] = {**doc["assessment"], "reader": {"format": None, "graded": True}}
    doc["runs"] = [{**r, "reader": {"format": "trec", "variant": None}} for r in doc["runs"]]
    monkeypatch.setattr(jp, "_JSON_HEAVY", 2000)
    pieces = list(json_pieces(doc))
    assert b"".join(pieces) == _whole(doc)
    assert max(map(len, pieces)) < len(_whole(doc)) / 20
