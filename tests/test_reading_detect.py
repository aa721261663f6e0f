"""What detection says a file is that is not text: an image, a PDF or
another file of a known kind is named for what it is (filetype's
signatures), one of no known kind as "not text"; neither is taken for a PSB
binary float32 matrix unless it has a matrix's very size for the
assessment, and real binary matrices are detected as before."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image
from shrec_eval.errors import FormatError
from shrec_eval.reading.readers import (
    detect_assessment_format,
    detect_run_format,
    load_assessment,
    sniff_all,
)

CLA = "PSB 1\n2 4\n\na 0 2\n0\n1\n\nc 0 2\n2\n3\n"


def _image(fmt: str) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (16, 16), (200, 30, 30)).save(buf, fmt)
    return buf.getvalue()


KNOWN = {
    "png": (_image("PNG"), ".png file (image/png)"),
    "jpg": (_image("JPEG"), ".jpg file (image/jpeg)"),
    "pdf": (b"%PDF-1.4\n" + bytes(range(256)) * 4, ".pdf file (application/pdf)"),
}


@pytest.fixture
def assessment(tmp_path):
    (tmp_path / "a.cla").write_text(CLA)
    return load_assessment(tmp_path / "a.cla")


@pytest.mark.parametrize("kind", sorted(KNOWN))
def test_a_file_of_a_known_kind_is_named_for_what_it_is(tmp_path, assessment, kind):
    data, said = KNOWN[kind]
    path = tmp_path / f"file.{kind}"
    path.write_bytes(data)
    assert sniff_all(path) == []  # not "binary-matrix"
    with pytest.raises(FormatError) as err:
        detect_assessment_format(path)
    assert f"the file is not text: it is a {said}" in str(err.value)
    assert "binary float32" not in str(err.value)
    with pytest.raises(FormatError) as err:
        detect_run_format(path, assessment)
    assert str(err.value).startswith(f"{path}: this is a {said}, and its {len(data)} bytes")


def test_a_file_of_no_known_kind_is_not_text_and_not_a_matrix_of_no_size(tmp_path):
    path = tmp_path / "junk.bin"
    path.write_bytes(bytes(range(1, 256)) * 3)  # 765 bytes: no whole number of float32
    assert sniff_all(path) == []
    with pytest.raises(FormatError) as err:
        detect_assessment_format(path)
    assert str(err.value).endswith("was expected; the file is not text")


def test_binary_matrices_are_detected_as_before(tmp_path, assessment):
    rng = np.random.default_rng(3)
    m = rng.random((4, 4)).astype(np.float32)
    np.fill_diagonal(m, 0)
    path = tmp_path / "run.matrix"
    path.write_bytes(m.tobytes())
    assert sniff_all(path) == ["binary-matrix"]
    assert detect_run_format(path, assessment) == "binary-matrix"
    # bytes that begin as a PNG's, of a matrix's very size for the assessment: a matrix
    png_head = np.frombuffer(KNOWN["png"][0][:16], dtype=np.float32)
    path.write_bytes(np.concatenate([png_head, m.ravel()[4:]]).astype(np.float32).tobytes())
    assert detect_run_format(path, assessment) == "binary-matrix"
