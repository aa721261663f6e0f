"""A new profile is one evaluator file, no Python (docs/development.md,
"Where your change goes"; docs/evaluators.md): a toy evaluator file in the
user's config folder (``$SHREC_EVAL_CONFIG_DIR/evaluators/toy.toml``), and
in that child Python: ``shrec-eval profiles`` lists it with where it comes
from, ``--profile toy`` is taken (an unknown name's message lists it),
``measures --profile toy`` states its columns, ``evaluate --profile toy``
scores with them and writes its name in the JSON, a contest file names it,
and the library's ``load_assessment`` / ``evaluate`` take it; and the app's
Options dialog offers it (where Qt is installed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hostile import small_contest

TESTS = Path(__file__).parent

TOY = """\
# toy: a profile made by tests/test_profile_toy.py
[evaluator]
name = "toy"
label = "Toy profile"
source = "tests/test_profile_toy.py"
help = "a toy profile found in the config folder"

[table]
columns = ["nn", "ft_psb"]
rank_by = "nn"
"""

CHILD = r"""
import contextlib, io, json, sys
folder = sys.argv[1]
from shrec_eval import EvalOptions, evaluate, load_assessment, load_run
from shrec_eval.cli.parser import main
from shrec_eval.contest import AssessmentSource, Contest, RunSource

def cli(*argv):
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(argv), out=out)
        except SystemExit as e:
            code = e.code
    return code, out.getvalue(), err.getvalue()

cla, m = folder + "/s.cla", folder + "/s.txt"
seen = {}
seen["profiles"] = cli("profiles")
seen["measures"] = cli("measures", "--profile", "toy")
seen["evaluate"] = cli("evaluate", cla, m, "--profile", "toy", "--json", folder + "/r.json")
seen["json_profile"] = json.load(open(folder + "/r.json"))["profile"]
seen["unknown"] = cli("evaluate", cla, m, "--profile", "toyx")
c = Contest(AssessmentSource(cla), (RunSource(m),), EvalOptions(profile="toy"))
c.write(folder + "/c.json")
seen["contest"] = Contest.read(folder + "/c.json").options.profile
a = load_assessment(cla, profile="toy")
r = evaluate(a, load_run(m, a), EvalOptions(profile="toy"))
shrec = evaluate(a, load_run(m, a), EvalOptions())
seen["library"] = [r.options.profile, r.mean("nn"), shrec.mean("nn")]
try:  # the app's Options dialog, where Qt is installed
    import os
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from PySide6.QtWidgets import QApplication
except ImportError:
    seen["app"] = None
else:
    app = QApplication([])
    from shrec_gui.window.dialogs import OptionsDialog
    d = OptionsDialog(EvalOptions())
    seen["app"] = [d.profile.itemData(i) for i in range(d.profile.count())]
print(json.dumps(seen))
"""


def test_a_toy_profile_is_one_evaluator_file(tmp_path):
    (tmp_path / "config" / "evaluators").mkdir(parents=True)
    (tmp_path / "config" / "evaluators" / "toy.toml").write_text(TOY)
    small_contest(tmp_path)
    p = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=TESTS,
        env={**os.environ, "SHREC_EVAL_CONFIG_DIR": str(tmp_path / "config")},
    )
    assert p.returncode == 0, p.stderr[-3000:]
    seen = json.loads(p.stdout.splitlines()[-1])
    code, out, _ = seen["profiles"]
    (row,) = [line for line in out.splitlines() if line.startswith("toy ")]
    assert code == 0 and "config folder" in row and "toy.toml" in row and "Toy profile" in row
    code, out, _ = seen["measures"]
    assert code == 0 and "Profile toy:" in out
    assert "table columns: nn, ft_psb" in out and "ranked by: nn" in out
    code, out, err = seen["evaluate"]
    assert code == 0, err
    assert out.splitlines()[0].split()[:4] == ["Rank", "Run", "nn", "ft_psb"]
    assert "profile toy" in out
    assert seen["json_profile"] == "toy"
    code, _, err = seen["unknown"]
    assert code == 2 and "toy" in err  # the choices named include it
    assert seen["contest"] == "toy"
    profile, nn, shrec_nn = seen["library"]
    assert profile == "toy" and nn == shrec_nn
    assert seen["app"] is None or "toy" in seen["app"]  # the app's Options dialog offers it
