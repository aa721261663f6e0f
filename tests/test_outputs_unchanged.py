"""Every output kind of the command line on the demo contest (report folder,
gallery and thumbnails, JSON, CSV, native files of boli, psbtable and
sipiran21, trec_eval's text, compare, check, measures, a distance matrix of
feature vectors) is byte for byte what it was before core/ was cut into
parts (issue 32): tests/restructure_outputs.py makes them and holds them
against tests/golden/before_restructure/ (rewritten by running that script
when an output is meant to change)."""

from restructure_outputs import differences, generate


def test_every_output_is_byte_identical_to_before_the_restructure():
    diff = differences(generate())
    assert not diff, "".join(diff[:200])
