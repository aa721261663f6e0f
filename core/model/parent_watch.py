"""Helper processes that die with the process that started them.

The app draws thumbnails in spawned processes (shrec_gui/workers/shapes.py),
and the command line and the app draw a report's figures in some
(:mod:`shrec_eval.outputs.figure_jobs`).  A pool's processes wait on a queue
whose write end they hold themselves, so when their parent is killed
(SIGKILL, SIGTERM without a handler, a crash) nothing tells them, and they
lived on (35-150 MB each), with multiprocessing's resource tracker, which
stays as long as any process holding its pipe does.

:func:`die_with_parent` is the pool's initializer, run first in each helper:

* a daemon thread waits on :func:`multiprocessing.parent_process`'s
  sentinel (a pipe the parent holds open on POSIX, its process handle on
  Windows: ready the moment the parent is gone, however it went) and ends
  the helper; once the helpers are gone the resource tracker reads the end
  of its pipe and exits by itself;
* on Linux, ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` as well: the kernel kills
  the helper when the thread that started it ends, even while the helper is
  busy in C code that keeps the interpreter lock;
* SIGINT is ignored: Ctrl-C in a terminal reaches the whole process group,
  and the parent (not its helpers) decides what happens then.

Qt-free: this module is imported in every helper process.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading

PR_SET_PDEATHSIG = 1  # linux/prctl.h


def _pdeathsig() -> bool:
    """Have the kernel SIGKILL this process when its parent thread ends (Linux)."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch(sentinel) -> None:
    multiprocessing.connection.wait([sentinel])
    os._exit(0)  # no clean-up to do: the parent is gone, and so is whoever wanted the answers


def die_with_parent() -> None:
    """Tie this (helper) process's life to its parent's; see the module's doc."""
    if hasattr(signal, "SIGINT"):
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    parent = multiprocessing.parent_process()
    _pdeathsig()
    if parent is None:  # not a multiprocessing child: nothing to watch
        return
    if not parent.is_alive():  # it went before the watch was set
        os._exit(0)
    threading.Thread(
        target=_watch, args=(parent.sentinel,), name="parent-watch", daemon=True
    ).start()
