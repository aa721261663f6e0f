"""Signals are never swallowed while a mesh is read: trimesh wraps parts of
its readers in ``except BaseException`` (an OBJ's material read), which
would catch the KeyboardInterrupt or Terminated that Ctrl-C and SIGTERM
raise; ``shrec_eval.shapes.shape_input.signals_kept`` raises the signal again when
the reader returns, so `thumbnails` stops with the usual exit status (130,
143)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest
from shrec_eval.cli.parser import Terminated, _terminate
from shrec_eval.shapes.shape_input import signals_kept

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


def _swallowing(signum):
    """What trimesh does: a signal arrives inside a ``try ... except
    BaseException: pass``, and the code carries on."""
    done = []
    try:
        os.kill(os.getpid(), signum)
        time.sleep(0.2)  # the handler runs here
    except BaseException:
        done.append("swallowed")
    return done


@pytest.mark.parametrize(
    "signum, handler, raised",
    [
        (signal.SIGINT, signal.default_int_handler, KeyboardInterrupt),
        (signal.SIGTERM, _terminate, Terminated),
    ],
)
def test_a_swallowed_signal_is_raised_again(signum, handler, raised):
    old = signal.signal(signum, handler)
    try:
        assert _swallowing(signum) == ["swallowed"]  # without the guard: lost
        seen = []
        with pytest.raises(raised):
            with signals_kept():
                seen += _swallowing(signum)
        assert seen == ["swallowed"]
        assert signal.getsignal(signum) is handler  # put back
        with signals_kept():  # no signal: nothing raised
            pass
    finally:
        signal.signal(signum, old)


def test_a_signal_that_propagates_is_raised_once():
    old = signal.signal(signal.SIGTERM, _terminate)
    try:
        with pytest.raises(Terminated):
            with signals_kept():
                os.kill(os.getpid(), signal.SIGTERM)
                time.sleep(0.2)
        assert signal.getsignal(signal.SIGTERM) is _terminate
    finally:
        signal.signal(signal.SIGTERM, old)


# the thumbnails command with trimesh's reader replaced by one that blocks
# and swallows whatever is raised meanwhile, as its OBJ reader does
_CHILD = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    import trimesh
    real, marker = trimesh.load, Path(sys.argv[1])

    def load(*args, **kwargs):
        marker.write_text("reading")
        try:
            time.sleep(30)
        except BaseException:
            pass
        return real(*args, **kwargs)

    trimesh.load = load
    sys.argv = ["shrec-eval", "thumbnails", "--shapes", sys.argv[2], sys.argv[3], "--no-cache"]
    from shrec_eval.cli.parser import entry_point
    entry_point()
    """
)


@pytest.mark.parametrize("signum, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_thumbnails_stops_on_a_signal_whatever_trimesh_does(tmp_path, signum, code):
    shapes = tmp_path / "shapes"
    shapes.mkdir()
    (shapes / "0.obj").write_text("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
    marker = tmp_path / "marker"
    env = {**os.environ, "SHREC_EVAL_CACHE_DIR": str(tmp_path / "cache")}
    p = subprocess.Popen(
        [sys.executable, "-c", _CHILD, marker, shapes, tmp_path / "out"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    try:
        t = time.monotonic()
        while not marker.exists():
            assert p.poll() is None and time.monotonic() - t < 60, p.stderr.read()
            time.sleep(0.05)
        p.send_signal(signum)
        out, err = p.communicate(timeout=60)
    finally:
        p.kill()
    assert p.returncode == code, (out, err)
    assert b"written" not in out
    assert err.decode().strip() == (
        "shrec-eval: terminated" if code == 143 else "shrec-eval: interrupted"
    )
    assert not list((tmp_path / "out").glob("*.png"))
