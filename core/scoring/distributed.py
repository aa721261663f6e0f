"""Scoring on a Dask cluster: shards of queries, and shards of a gallery.

One machine's scoring (:func:`shrec_eval.scoring.engine.evaluate`) gives each query's
values from that query alone, so a run splits into *query shards*, scored on
the cluster's workers (:class:`~shrec_eval.scoring.engine.Scoring`, ``score``) and
merged on the client (``result``): the same bits as one pass, per-query
values, means, averages and curves alike.  A top-K run of feature vectors
(``--top-k``) splits its *gallery* instead: each worker selects every
query's first K among a range of the gallery's pieces
(:func:`shrec_eval.kernels.topk.select_columns`), the client merges the
keys (exact: the K smallest keys of the union are those of the whole row,
ties by collection order) and scores the lists.

The workers need the library alone (its extra ``[dask]``, no Qt)
and, for runs read from files that are never loaded whole (feature vectors,
binary matrices), the same files at the same paths (a shared file system, as
on a SLURM cluster; a LocalCluster shares this machine's).  Runs held in
memory (TREC runs, rank lists, ASCII matrices) travel with the tasks.

Dask is optional: :func:`connect` says how to install it.  Ctrl-C (or
``should_stop``) cancels a job's futures on the cluster whenever it comes,
also while the job is being sent (:class:`_Job`); a worker lost midway is
replaced and its tasks run again by Dask, and the result is the same.
"""

from __future__ import annotations

import contextlib
import ipaddress
import re
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._version import __version__
from ..errors import OptionsError
from ..installed import pip_install
from ..kernels import distances as tiling
from ..kernels.topk import column_shards, merge_keys, select_columns
from ..model.assessment import Assessment
from ..model.runs import Run
from ..options import EvalOptions
from ..reading.formats import embeddings as emb
from .engine import Cancelled, QueryScores, Scoring
from .results import RunResult

__all__ = ["Scheduler", "connect", "evaluate", "install_hint", "parse_scheduler", "query_shards"]


def install_hint() -> str:
    """How to add Dask, with the command of where shrec-eval was installed from."""
    return (
        "--dask needs Dask's distributed scheduler, which is not installed: "
        f"{pip_install('dask')} (or pip install dask distributed)"
    )


#: queries of a shard at the least (each shard prepares the assessment anew)
MIN_SHARD = 512


def _distributed():
    try:
        import distributed
    except ImportError:
        raise OptionsError(install_hint()) from None
    return distributed


#: seconds to wait for a scheduler's port to answer before saying it does not
CONNECT_WAIT = 5.0
#: the schemes --dask connects with (tls with Dask's TLS settings)
SCHEMES = ("tcp", "tls")
_HOST = re.compile(r"(?!-)[A-Za-z0-9_-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9_-]{1,63}(?<!-))*\.?")
_USAGE = "local:N (N worker processes on this machine) or a scheduler's address, tcp://HOST:PORT"


@dataclass(frozen=True)
class Scheduler:
    """What ``--dask`` names: ``workers`` processes of a LocalCluster
    (``local:N``), or a running scheduler's ``scheme``, ``host`` and
    ``port``."""

    workers: int = 0
    scheme: str = ""
    host: str = ""
    port: int = 0

    @property
    def address(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


def parse_scheduler(text: str) -> Scheduler:
    """``--dask``'s value checked before anything connects (Dask not
    imported): ``local:N`` with 1 <= N <= 1024, or ``tcp://HOST:PORT`` /
    ``tls://HOST:PORT`` with a host name or an IP address (IPv6 in
    brackets) and a port from 1 to 65535; an :class:`OptionsError` naming
    the part that is not."""
    given = text
    text = text.strip()

    def bad(why: str) -> OptionsError:
        return OptionsError(f"--dask {given!r}: {why}")

    if text == "local" or text.startswith("local:"):
        n_text = text.partition(":")[2] or "1"
        n = int(n_text) if n_text.strip().isdigit() else 0
        if not 1 <= n <= 1024:
            raise OptionsError(
                f"--dask local:N takes a number of worker processes from 1 to 1024, not {n_text!r}"
            )
        return Scheduler(workers=n)
    if "://" not in text:
        raise OptionsError(f"--dask takes {_USAGE}, such as tcp://host:8786, not {given!r}")
    scheme, _, rest = text.partition("://")
    if scheme.lower() not in SCHEMES:
        raise bad(
            f"the scheme {scheme + '://'!r} is not one shrec-eval connects with; tcp:// (or "
            "tls:// with Dask's TLS settings) was expected, or local:N"
        )
    if not rest:
        raise bad("the address has no host; tcp://HOST:PORT was expected")
    if any(c in rest for c in "/?#@") or any(c.isspace() for c in rest):
        raise bad(f"{rest!r} is not HOST:PORT (no path, user or spaces may follow the scheme)")
    if rest.startswith("["):  # an IPv6 address: [::1]:8786
        host, close, after = rest[1:].partition("]")
        if not close:
            raise bad(f"the IPv6 host {rest!r} lacks its closing ']'")
        try:
            ipaddress.IPv6Address(host)
        except ValueError:
            raise bad(f"[{host}] is not an IPv6 address") from None
        if not after.startswith(":"):
            raise bad(f"the address has no port after [{host}]; [{host}]:PORT was expected")
        port_text = after[1:]
    else:
        host, colon, port_text = rest.rpartition(":")
        if not colon:
            raise bad(f"the address has no port; {scheme}://{rest}:PORT was expected (8786?)")
        if not host:
            raise bad("the address has no host; tcp://HOST:PORT was expected")
        if ":" in host:
            raise bad(f"the IPv6 host {host!r} must be written in brackets: [{host}]:PORT")
        if not _HOST.fullmatch(host) or len(host) > 253:
            raise bad(f"{host!r} is not a host name or an IP address")
    if not port_text.isdigit() or not port_text.isascii():
        raise bad(f"the port {port_text!r} is not a number from 1 to 65535")
    port = int(port_text)
    if not 1 <= port <= 65535:
        raise bad(f"the port {port} is out of range; a port is from 1 to 65535")
    return Scheduler(scheme=scheme.lower(), host=host, port=port)


def _reachable(where: Scheduler, shown: str) -> None:
    """The scheduler's port answers within :data:`CONNECT_WAIT` seconds (a
    TCP connection, closed again), and over ``tcp://`` a Dask scheduler
    speaks there (it sends its handshake first, unasked); else an
    :class:`OptionsError` saying why.  Dask itself retries a refused
    connection for its whole time-out, and waits for ever for the handshake
    of a port where another program listens."""
    # socket (with selectors) imported here, by --dask alone: every command
    # imports this module through the scoring service, and socket was the
    # largest of its imports that no command without --dask uses
    import socket

    try:
        sock = socket.create_connection((where.host, where.port), timeout=CONNECT_WAIT)
    except socket.gaierror as exc:
        raise OptionsError(
            f"--dask {shown}: cannot find the host {where.host!r} ({exc.strerror})"
        ) from None
    except ConnectionRefusedError:
        raise OptionsError(
            f"--dask {shown}: the connection was refused: nothing listens on port "
            f"{where.port} of {where.host} (is the scheduler running, at this address?)"
        ) from None
    except TimeoutError:
        raise OptionsError(
            f"--dask {shown}: {where.host} did not answer on port {where.port} within "
            f"{CONNECT_WAIT:g} s (a firewall, or a machine that is down?)"
        ) from None
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise OptionsError(f"--dask {shown}: cannot reach the scheduler ({reason})") from None
    with sock:
        if where.scheme != "tcp":  # (over TLS the client speaks first)
            return
        try:
            first = sock.recv(1)
        except TimeoutError:
            first = None
        except OSError:
            first = b""
    if not first:
        said = "closed the connection" if first == b"" else f"said nothing in {CONNECT_WAIT:g} s"
        raise OptionsError(
            f"--dask {shown}: a program listens on port {where.port} of {where.host}, but it "
            f"is not a Dask scheduler (it {said}); a scheduler's port is 8786 by default"
        )


@contextlib.contextmanager
def connect(scheduler: str) -> Iterator:
    """A ``dask.distributed.Client`` for ``--dask SCHEDULER``: ``local:N``
    starts a LocalCluster of N worker processes on this machine (one thread
    each), closed on leaving; ``tcp://HOST:PORT`` (``tls://`` with Dask's
    TLS settings) joins a running scheduler.  The string is checked first
    (:func:`parse_scheduler`), then whether the port answers (a refused
    connection is said at once, no answer after :data:`CONNECT_WAIT` s)."""
    where = parse_scheduler(scheduler)
    distributed = _distributed()
    if where.workers:
        with (
            distributed.LocalCluster(
                n_workers=where.workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=":0",  # any free port (8787 may be taken)
                silence_logs=50,  # logging.CRITICAL: a lost worker is Dask's to handle
            ) as cluster,
            distributed.Client(cluster) as client,
        ):
            _check_versions(client)
            yield client
        return
    shown = where.address
    if (
        where.scheme == "tls"
        and distributed.Security().get_connection_args("client").get("ssl_context") is None
    ):
        raise OptionsError(
            f"--dask {shown}: tls:// needs Dask's TLS settings for a client, and there are "
            "none: set distributed.comm.tls.ca-file, .client.cert and .client.key in Dask's "
            "configuration (or DASK_DISTRIBUTED__COMM__TLS__CA_FILE and the like)"
        )
    _reachable(where, shown)
    try:
        client = distributed.Client(where.address, timeout=30)
    except Exception as exc:  # Dask's, whatever answers there (a MemoryError for an SSH server)
        reason = f"{exc.__class__.__name__}: {exc}" if str(exc) else exc.__class__.__name__
        raise OptionsError(
            f"--dask {shown}: cannot connect to a Dask scheduler there ({reason})"
        ) from None
    with client:
        _check_versions(client)
        yield client


def _version() -> str:
    return __version__


def _check_versions(client) -> None:
    """Every worker runs this version of the library (another one could
    tile or round otherwise: the results would not be the same bits)."""
    try:
        client.wait_for_workers(1, timeout=60)
    except TimeoutError:
        raise OptionsError("--dask: the scheduler has no worker (none joined in 60 s)") from None
    other = {w: v for w, v in client.run(_version).items() if v != __version__}
    if other:
        worker, version = next(iter(other.items()))
        raise OptionsError(
            f"--dask: worker {worker} runs shrec-eval {version}, this is {__version__}; "
            "install the same version on every worker"
        )


def query_shards(n_queries: int, n_workers: int, align: int = 1) -> list[tuple[int, int]]:
    """Ranges of queries for ``n_workers``: about four a worker (for an even
    load and a progress that moves), at least :data:`MIN_SHARD` queries
    each, boundaries on multiples of ``align`` (an embedding run's tiles of
    query rows: a tile is computed by one worker)."""
    if n_queries <= 0:
        return [(0, 0)]
    n = max(1, min(4 * max(1, n_workers), n_queries // MIN_SHARD))
    step = -(-n_queries // n)
    step = -(-step // align) * align
    return [(a, min(a + step, n_queries)) for a in range(0, n_queries, step)]


def _n_workers(client) -> int:
    return max(1, len(client.scheduler_info().get("workers", {})))


def _score_shard(assessment: Assessment, run: Run, evaluator, start: int, stop: int) -> QueryScores:
    """A worker's task: one shard of queries, by the job's evaluator (its
    profile resolved on the client, received pickled: an evaluator file's
    profile too)."""
    return Scoring(assessment, run, evaluator).score(start, stop)


def _select_shard(dist, tiles: list[int], c0: int, c1: int, k: int, cols: int) -> list:
    """A worker's task: every row's first K among gallery pieces [c0, c1)."""
    return select_columns(dist, tiles, c0, c1, k, cols)


def _same(obj):
    return obj


def _put(client, obj):
    """``obj`` on the cluster as the result of a task, which Dask computes
    again if the worker holding it is lost (scattered data would be gone,
    and the tasks that need it with it)."""
    with warnings.catch_warnings():  # a TREC run held in memory may be large
        warnings.filterwarnings(
            "ignore", message=".*([Ll]arge object|[Ll]arge graph)", category=UserWarning
        )
        return client.submit(_same, obj, pure=False, retries=2)


class _Job:
    """One job's futures on the cluster, sent by ``put`` (its data) and
    ``submit`` (its tasks), each asking ``should_stop`` first (a job stopped
    before it starts sends nothing), and awaited by ``wait``.  In ``with
    _Job(client, should_stop) as sent``, however the block ends early
    (Ctrl-C, however far the sending went; ``should_stop``; a task's error;
    a submit that fails), every future sent is cancelled on the scheduler at
    once (``force``: also where another client wants it), so nothing of the
    job stays on the cluster whoever still holds its futures (the
    exception's traceback and its frames, an interactive session's last
    error).  Dask sends the cancel after the messages that made the tasks,
    on the client's one ordered stream to the scheduler, which handles them
    in that order (``Client.cancel`` since distributed 2023.3)."""

    def __init__(self, client, should_stop) -> None:
        self.client, self.should_stop = client, should_stop
        self.sent: list = []

    def __enter__(self) -> _Job:
        return self

    def __exit__(self, kind, exc, tb) -> None:
        if kind is not None and self.sent:
            try:
                self.client.cancel(self.sent, force=True)
            except Exception:
                # the client closed or the scheduler gone (what the cancel
                # would drop goes with the client's connection): the job's
                # own error is the one the caller gets, not the cancel's
                pass

    def _ask(self) -> None:
        if self.should_stop is not None and self.should_stop():
            raise Cancelled()

    def put(self, obj):
        self._ask()
        self.sent.append(future := _put(self.client, obj))
        return future

    def submit(self, func, *args):
        self._ask()
        self.sent.append(future := self.client.submit(func, *args, pure=False, retries=2))
        return future

    def wait(self, futures: list, done: Callable[[Any, Any], None]) -> None:
        """Each future's result handed to ``done`` as it comes; ``should_stop``
        asked between them."""
        pending = _distributed().as_completed(futures, with_results=True)
        while True:
            self._ask()
            try:
                batch = pending.next_batch(block=False)
            except StopIteration:
                return
            if not batch:
                if pending.is_empty():
                    return
                time.sleep(0.05)
                continue
            for future, result in batch:
                if isinstance(result, BaseException):  # a cancelled future (another client?)
                    raise result
                if future.status == "error":  # the task's own error, as on one machine
                    _, exc, tb = result
                    raise exc.with_traceback(tb)
                done(future, result)


def evaluate(
    client,
    assessment: Assessment,
    run: Run,
    options: EvalOptions | None = None,
    *,
    progress: Callable[[int, int], None] | None = None,
    should_stop: Callable[[], bool] | None = None,
) -> RunResult:
    """:func:`shrec_eval.scoring.engine.evaluate` on the cluster of ``client`` (a
    ``dask.distributed.Client``): the same result, bit for bit."""
    job = Scoring(assessment, run, options)
    nq = assessment.n_queries
    if isinstance(run, emb.TopKRun):
        _top_k(client, run, nq, progress, should_stop)
        # the lists are selected: the measures here, as on one machine
        part = job.score(0, nq, should_stop=should_stop)
        if progress is not None:
            progress(nq, nq)
        return job.result([part])
    # an embedding run's tiles of query rows: each made by one worker
    align = tiling.TILE_ROWS if isinstance(run, emb.EmbeddingRun) else 1
    shards = query_shards(nq, _n_workers(client), align)
    parts: list[QueryScores] = []

    def done(_, part: QueryScores) -> None:
        parts.append(part)
        if progress is not None:
            progress(sum(p.stop - p.start for p in parts), nq)

    with _Job(client, should_stop) as sent:
        a_ref, r_ref = sent.put(assessment), sent.put(run)
        futures = [sent.submit(_score_shard, a_ref, r_ref, job.evaluator, a, b) for a, b in shards]
        sent.wait(futures, done)
    if progress is not None and nq == 0:
        progress(0, 0)
    return job.result(parts)


def _top_k(client, run, nq: int, progress, should_stop) -> None:
    """Every query's first K of a top-K run, selected by the cluster: the
    gallery's pieces in shards (a tile's rows of a binary matrix, which is
    read a block of rows at a time), the keys merged here."""
    dist = run.distances
    n_workers = _n_workers(client)
    jobs = []  # (group, tiles, c0, c1)
    for g in range(run.n_groups):
        tiles = list(run.group_tiles(g))
        if getattr(dist, "rows_first", False):
            jobs += [(g, [t], 0, dist.n_pieces) for t in tiles]
        else:
            jobs += [(g, tiles, a, b) for a, b in column_shards(dist.n_pieces, 2 * n_workers)]
    got: dict[int, list] = {}

    def done(future, keys) -> None:
        for t, k in zip(index[future.key][1], keys):
            got.setdefault(t, []).append(k)
        if progress is not None:
            n = sum(map(len, got.values()))
            progress(min(nq - 1, n * nq // max(1, total)), nq)

    total = sum(len(j[1]) for j in jobs)
    with _Job(client, should_stop) as sent:
        ref = sent.put(dist)
        futures = [
            sent.submit(_select_shard, ref, tiles, c0, c1, run.keep, tiling.TILE_COLS)
            for _, tiles, c0, c1 in jobs
        ]
        index = {f.key: j for f, j in zip(futures, jobs)}
        sent.wait(futures, done)
    keys_by_group = {}
    for g in range(run.n_groups):
        tiles = run.group_tiles(g)
        keys_by_group[g] = np.concatenate([merge_keys(got[t], run.keep) for t in tiles])
    run.set_keys(keys_by_group)
