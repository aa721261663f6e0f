"""qrels read against a collection list: the collection's index is made
once and handed to the assessment, whose copies keep it only while their
ids are the same."""

from __future__ import annotations

from dataclasses import replace

import pytest
from shrec_eval.errors import FormatError
from shrec_eval.reading.readers import load_assessment


def _contest(tmp_path, docs=("d1", "d2", "d3")):
    qrels = tmp_path / "x.qrels"
    qrels.write_text("q1 0 d2 1\nq1 0 d3 0\nq2 0 d1 2\n")
    coll = tmp_path / "ids.txt"
    coll.write_text("".join(d + "\n" for d in docs))
    return qrels, coll


def test_the_collection_order_and_index_come_from_the_list(tmp_path):
    qrels, coll = _contest(tmp_path, ("d3", "d1", "d2", "d9"))
    a = load_assessment(qrels, collection=coll)
    assert a.item_ids == ("d3", "d1", "d2", "d9")
    assert [a.item_index(i) for i in ("d3", "d1", "d2", "d9", "dx")] == [0, 1, 2, 3, None]
    assert a.query_index("q2") == 1


def test_a_copy_with_other_ids_indexes_them_and_one_with_the_same_keeps_its_index(tmp_path):
    qrels, coll = _contest(tmp_path)
    a = load_assessment(qrels, collection=coll)
    same = replace(a, notes=())
    assert same._item_index is a._item_index
    other = replace(a, item_ids=("e1", "e2", "e3"), query_ids=("p1", "p2"))
    assert other.item_index("e3") == 2 and other.item_index("d3") is None
    assert other.query_index("p2") == 1 and other.query_index("q2") is None


def test_judged_documents_missing_from_the_list_are_named(tmp_path):
    qrels, coll = _contest(tmp_path, ("d2",))
    with pytest.raises(
        FormatError, match=r"2 judged documents are not in the collection list, e\.g\. d3, d1"
    ):
        load_assessment(qrels, collection=coll)
