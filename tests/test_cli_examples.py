"""``shrec-eval examples DIR``: the example contests copied out of the
installed package (what the docs' commands run on), through the output gate:
a new folder or an earlier copy, never a folder of other files, never into
the package itself; a clear one-line error otherwise."""

import subprocess
import sys

import pytest
from shrec_eval.cli.parser import main
from shrec_eval.resources import resource_path


def _files(folder):
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_examples_copies_every_file_and_an_earlier_copy_is_replaced(tmp_path, capsys):
    target = tmp_path / "ex"
    assert main(["examples", str(target)]) == 0
    shipped = _files(resource_path("examples"))
    assert _files(target) == shipped
    assert {"psb_test.cla", "alice.matrix", "carol/0.txt", "qrels.txt"} <= set(shipped)
    assert f"{len(shipped)} example files written to {target}" in capsys.readouterr().out
    (target / "bob.txt").write_text("changed")
    (target / "carol" / "0.txt").unlink()
    assert main(["examples", str(target)]) == 0  # an earlier copy: made whole again
    assert _files(target) == shipped


def test_the_copy_scores_as_the_docs_say(tmp_path, capsys):
    target = tmp_path / "ex"
    main(["examples", str(target)])
    capsys.readouterr()
    args = [str(target / n) for n in ("psb_test.cla", "alice.matrix", "bob.txt", "carol")]
    assert main(["evaluate", *args, "--columns", "nn"]) == 0
    table = capsys.readouterr().out
    assert [ln.split()[1] for ln in table.splitlines()[2:5]] == ["alice", "bob", "carol"]


@pytest.mark.parametrize(
    "make,message",
    [
        (
            lambda t: (t / "ex").mkdir() or (t / "ex" / "mine.txt").write_text("x"),
            "the folder holds other files than this output writes (mine.txt)",
        ),
        (lambda t: (t / "ex").write_text("x"), "this is a file"),
        (lambda t: None, "does not exist"),
    ],
)
def test_examples_refuses_what_it_must_not_replace(tmp_path, capsys, make, message):
    make(tmp_path)
    target = tmp_path / "ex" if message != "does not exist" else tmp_path / "no" / "ex"
    before = target.read_bytes() if target.is_file() else None
    assert main(["examples", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"shrec-eval: error: {target}: ") and message in err
    assert err.count("\n") == 1 and "Traceback" not in err
    if before is not None:
        assert target.read_bytes() == before
    if (tmp_path / "ex" / "mine.txt").exists():
        assert sorted(p.name for p in (tmp_path / "ex").iterdir()) == ["mine.txt"]


def test_examples_never_writes_into_the_package(capsys):
    target = resource_path("examples", "copy")
    assert main(["examples", str(target)]) == 2
    assert "lies inside the input folder" in capsys.readouterr().err
    assert not target.exists()


def test_python_m_shrec_eval_examples(tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "shrec_eval", "examples", str(tmp_path / "ex")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "ex" / "psb_test.cla").read_bytes() == (
        resource_path("examples", "psb_test.cla").read_bytes()
    )
