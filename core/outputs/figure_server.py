"""The start of the server that the report's drawing processes are forked
from (multiprocessing's forkserver: :mod:`.figure_jobs`), the first module
it imports, and imported nowhere else.

* SIGINT is ignored from now on, not only once the server has imported
  matplotlib (multiprocessing ignores it then): Ctrl-C in a terminal reaches
  the whole process group, and the command (or the app) decides what
  happens; the server printed a KeyboardInterrupt's traceback otherwise.
* The folder of the server's socket (``/tmp/pymp-*``, made by its parent)
  is removed when the server ends by itself, which it does when its parent
  and its drawing processes are gone: a parent killed (SIGKILL) leaves none
  behind.  (A parent that ends the server removes the folder itself.)
"""

from __future__ import annotations

import atexit
import os
import signal
import socket
import stat

signal.signal(signal.SIGINT, signal.SIG_IGN)


def _socket_paths() -> list[str]:
    """The path of the server's socket: a listening Unix socket this process
    holds, named by multiprocessing (``.../pymp-*/listener-*``); never one it
    was handed as its standard streams (an accepted connection names the
    socket of the service that accepted it, which is not the server's)."""
    paths = []
    try:
        fds = [int(fd) for fd in os.listdir("/proc/self/fd")]
    except (OSError, ValueError):
        return []
    for fd in fds:
        try:
            if not stat.S_ISSOCK(os.fstat(fd).st_mode):
                continue
            with socket.socket(fileno=os.dup(fd)) as s:
                if s.family != socket.AF_UNIX:
                    continue
                listening = s.getsockopt(socket.SOL_SOCKET, socket.SO_ACCEPTCONN)
                name = s.getsockname()
        except OSError:
            continue
        if (
            listening
            and isinstance(name, str)
            and os.path.basename(name).startswith("listener-")
            and os.path.basename(os.path.dirname(name)).startswith("pymp-")
        ):
            paths.append(name)
    return paths


def _remove(pid: int, paths: list[str]) -> None:
    """At the server's exit (not a forked process's): its socket, and the
    folder holding it where nothing else is in it."""
    if os.getpid() != pid:
        return
    for path in paths:
        for remove in (os.unlink, os.rmdir):
            try:
                remove(path)
            except OSError:
                break
            path = os.path.dirname(path)


atexit.register(_remove, os.getpid(), _socket_paths())
