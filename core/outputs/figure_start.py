"""How the report's drawing processes of :mod:`.figure_jobs` start, with
nothing but the standard library imported here (no numpy, no matplotlib):
spawned, each importing :data:`DRAWING_MODULES`, or on Linux forked from
one server process that imports them once (multiprocessing's forkserver,
:func:`drawing_context`).

:func:`server_started` starts that server before anything else of a
command is imported: the command line (and ``shrec-gui --export-report``)
holds it as soon as its arguments ask for a report.  The server's import
of matplotlib (0.7 to 0.8 s of a quiet core) was the longest wait of a
short scoring: started with the drawers, after the command had imported
the engine and read the contest (0.45 s into ``shrec-eval demo
--report``), it was done 0.5 to 1.0 s after the demo's figures were handed
to the drawers, which waited for it; started first, it overlaps the
command's own import, reading and scoring on the other core."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from typing import Any

#: what a drawing process imports before its first job (about a second of
#: processor time): matplotlib's figure, its three file formats, and the
#: figures' own modules (:mod:`.figure_plots` and what it imports)
DRAWING_MODULES = (
    "matplotlib.backends.backend_agg",
    "matplotlib.backends.backend_pdf",
    "matplotlib.backends.backend_svg",
    "matplotlib.figure",
    "matplotlib.textpath",
    "shrec_eval.outputs.figure_plots",
)

#: what the server the drawing processes are forked from imports first
#: (SIGINT ignored, the folder of its socket removed when it ends by itself)
SERVER_START = "shrec_eval.outputs.figure_server"


def drawing_context(from_server: bool):
    """How the drawing processes start: spawned, each importing
    :data:`DRAWING_MODULES` (about a second of processor time each), or
    with ``from_server`` on Linux forked from a server process that imports
    them once (multiprocessing's ``forkserver``; the server is started
    fresh, never forked from a process running Qt), which lives as long as
    this process (the command line's: it ends with the command)."""
    import multiprocessing

    if from_server and sys.platform.startswith("linux") and not getattr(sys, "frozen", False):
        forkserver = multiprocessing.get_context("forkserver")
        # the server's start: the drawing modules (each forked process then runs
        # the main module again as ``__mp_main__``, as a spawned one does: the
        # command line's is a few lines); a setting of this process's one
        # server, which nothing else here uses
        forkserver.set_forkserver_preload([SERVER_START, *DRAWING_MODULES])
        return forkserver
    return multiprocessing.get_context("spawn")  # never fork a process running Qt


#: the users of this process's server that have not let go of it yet
#: (:func:`hold_server`: drawers forked from it, :func:`server_started`): the
#: last to let go ends it
_SERVER_USERS = [0]
_SERVER_LOCK = threading.Lock()
#: the process whose users these are: a process forked from one holding
#: the server (``os.fork``) holds nothing of it (:func:`_users_here`)
_SERVER_OWNER = [os.getpid()]


def _users_here() -> None:
    """In a process forked from one that held the server: no user here, and
    no server either (the parent's is the parent's: a child that let go of
    the users it inherited ended it, and reports of its own failed on it);
    the child's copy of its pipe closed, its socket left to the parent; the
    next report here starts a server of this process's own.  Called under
    :data:`_SERVER_LOCK`."""
    if _SERVER_OWNER[0] == os.getpid():
        return
    _SERVER_OWNER[0] = os.getpid()
    _SERVER_USERS[0] = 0
    server = _server_record()
    if server is not None:
        with server._lock:
            _forget_server(server, unlink=False)


def _server_record() -> Any:
    """multiprocessing's record of this process's fork server (its pid, pipe
    and socket, and the lock they are changed under), or None in a Python
    without these names (the server then left to this process's exit)."""
    from multiprocessing import forkserver

    server: Any = getattr(forkserver, "_forkserver", None)
    if getattr(server, "_lock", None) is None or not hasattr(server, "_stop_unlocked"):
        return None
    return server


def _forget_server(server: Any, *, unlink: bool = True) -> None:
    """multiprocessing's record of a server that is not this process's child
    (reaped by someone else, or a parent's) dropped without signalling or
    waiting for its pid, which may be another process's by now: its pipe's
    end closed, its socket removed (``unlink``), so that the next start
    makes a fresh one.  Called under the server's lock."""
    from multiprocessing import util

    fd = getattr(server, "_forkserver_alive_fd", None)
    if fd is not None:
        try:
            os.close(fd)
        except OSError:
            pass
    address = getattr(server, "_forkserver_address", None)
    if unlink and isinstance(address, str) and not util.is_abstract_socket_namespace(address):
        try:
            os.unlink(address)
        except OSError:
            pass
    server._forkserver_pid = server._forkserver_alive_fd = server._forkserver_address = None


def _child_ended(pid: int) -> bool | None:
    """Whether the child ``pid`` has ended (waiting to be reaped: True) or
    runs (False), read without reaping it; None when it is no child of this
    process (reaped by someone else: the pid may be another's by now).
    Where this cannot be told (no ``os.waitid``): running, as before."""
    if not hasattr(os, "waitid"):
        return False
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return None


def hold_server() -> None:
    """One user more of the server (drawers, :func:`server_started`,
    :func:`kept_server`); a server that died since it was last used (killed)
    is ended first (:func:`_end_dead_server`)."""
    with _SERVER_LOCK:
        _users_here()
        _SERVER_USERS[0] += 1
        _end_dead_server()


def _end_dead_server() -> None:
    """A server of this process that died while it was held (killed; in a
    :func:`kept_server` its users never all let go) ended as
    :func:`_end_server` ends one: reaped and its socket removed, so that the
    next user starts a fresh one (multiprocessing would start it too, but
    leave the dead one's socket in the folder, which then stays).  A server
    still running, or none, is left alone (its state read without reaping
    it)."""
    server = _server_record()
    if server is None:
        return
    with server._lock:
        pid = server._forkserver_pid
        if pid is None:
            return
        ended = _child_ended(pid)
        if ended is None:  # reaped by someone else (an os.wait() loop): forgotten
            _forget_server(server)
            return
        if not ended:  # running
            return
        try:
            server._stop_unlocked()  # reaped, its socket removed
        except OSError:  # its socket gone already (its folder removed meanwhile)
            pass


def let_go_of_server() -> None:
    """One user fewer of the server; the last ends it (:func:`_end_server`)."""
    with _SERVER_LOCK:
        _users_here()
        if _SERVER_USERS[0] == 0:  # a user inherited from a parent (os.fork): not this one's
            return
        _SERVER_USERS[0] -= 1
        if _SERVER_USERS[0] == 0:
            _end_server()


def _end_server() -> None:
    """End this process's fork server (its drawers gone: nothing else here
    uses it) and the folder of its socket (``/tmp/pymp-*``), which
    multiprocessing would remove at this process's exit only: the app and
    ``shrec-gui --export-report`` leave none behind, and a later start makes
    both anew.  The server is killed, not asked to stop (it would empty its
    interpreter first); the folder is removed by multiprocessing's own
    finalizer (so that nothing is left to remove at exit), and only when it
    holds nothing else (also when no server started: its folder was made
    first); a folder gone meanwhile (a /tmp cleaner's doing) is forgotten,
    so that the next start makes one.  Without these names (another Python)
    both are left to this process's exit, as before."""
    from multiprocessing import process, util

    server = _server_record()
    if server is None:
        return
    with server._lock:
        pid = server._forkserver_pid
        if pid is not None and _child_ended(pid) is None:  # reaped by someone else: not ours
            _forget_server(server)
        elif pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            try:
                server._stop_unlocked()  # its pipe closed, it reaped, its socket removed
            except OSError:  # its socket gone already (its folder removed meanwhile)
                pass
    config: dict = getattr(process.current_process(), "_config", {})
    folder = config.get("tempdir")
    if not folder:
        return
    gone = False
    try:
        if os.listdir(folder):
            return
    except FileNotFoundError:
        gone = True
    except OSError:
        return
    for finalizer in list(getattr(util, "_finalizer_registry", {}).values()):
        if getattr(finalizer, "_callback", None) is getattr(util, "_remove_temp_dir", None):
            if gone:  # nothing to remove (its finalizer's rmtree would raise)
                finalizer.cancel()
                config["tempdir"] = None
            else:
                finalizer()  # the folder removed, and forgotten: made anew when next needed


@contextlib.contextmanager
def kept_server():
    """This process's server kept while this lasts, for every report written
    meanwhile: the command line's ``main`` with ``--report``, the drawers of
    :func:`.figure_jobs.start_drawers`, the app's exports, called again and
    again from one script, notebook or test session, fork their drawing
    processes from one server, started by the first of them, instead of
    each starting its own (its import of matplotlib, about a second of
    processor time) and ending it.  Nothing starts here: a block that
    writes no report starts no process.  When it ends, the server ends
    with the last of its users still drawing, and its socket's folder
    with it, as a command's does; a server that died meanwhile (killed)
    is replaced by a fresh one at the next report.  Where the drawing
    processes are spawned (not Linux, or frozen: see
    :func:`drawing_context`) there is nothing to keep."""
    if drawing_context(True).get_start_method() != "forkserver":
        yield
        return
    hold_server()
    try:
        yield
    finally:
        let_go_of_server()


@contextlib.contextmanager
def server_started(wanted: bool = True):
    """The server of :func:`drawing_context` started now (``wanted``, where
    there is one: Linux, not frozen), its import running while this
    process goes on, and held while this lasts: the drawers made meanwhile
    (:class:`.figure_jobs.FigureDrawers` with ``from_server``) are forked
    from it, and the last of them and this to let go ends it (a command
    that fails before its drawers start leaves none).  A server that
    cannot start now (a socket path too long) is left to the drawers,
    whose start meets the same error and leaves the figures to their
    caller."""
    if not wanted or drawing_context(True).get_start_method() != "forkserver":
        yield
        return
    from multiprocessing import forkserver

    hold_server()
    try:
        try:
            forkserver.ensure_running()
        except (OSError, ValueError):
            pass
        yield
    finally:
        let_go_of_server()
