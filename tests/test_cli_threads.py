"""``main`` called from several threads at once (the library's command
line, as a tool that scores several contests in threads calls it): the
tables made on first use (the profile registry, built from the evaluator
files; the measure registry made from it) are made once and seen whole by
every thread, never half made by another (where ``--profile psbtable``
was an unknown profile while a first thread was still making the
built-ins)."""

import subprocess
import sys

#: a fresh process (its registries not made yet), its threads started at
#: once by a barrier and switched often, each scoring nothing but looking
#: its profile up (``measures --profile NAME``); then each profile's output
#: made again alone, which every thread's must equal
PROBE = """
import io, sys, threading
from shrec_eval.cli.parser import main

PROFILES = ["shrec", "boli", "psbtable", "shapenet17", "trec_eval", "sipiran21"] * 2
sys.setswitchinterval(1e-6)
start = threading.Barrier(len(PROFILES))
got = {}

def run(i, name):
    out = io.StringIO()
    start.wait()
    got[i] = (main(["measures", "--profile", name], out=out), out.getvalue())

threads = [threading.Thread(target=run, args=(i, p)) for i, p in enumerate(PROFILES)]
for t in threads:
    t.start()
for t in threads:
    t.join()
sys.setswitchinterval(0.005)
for i, name in enumerate(PROFILES):
    alone = io.StringIO()
    assert main(["measures", "--profile", name], out=alone) == 0
    code, text = got[i]
    print(name, code, text == alone.getvalue())
"""


def test_main_in_several_threads_at_once_makes_the_registries_once():
    for _ in range(2):  # two fresh processes: the first look-ups race in each
        done = subprocess.run(
            [sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, done.stderr
        lines = done.stdout.split("\n")[:-1]
        assert len(lines) == 12 and all(line.endswith(" 0 True") for line in lines), (
            done.stdout + done.stderr
        )
