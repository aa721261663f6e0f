"""Scoring on a Dask cluster (``--dask``, shrec_eval.scoring.distributed): the JSON
of every contest is the local path's, byte for byte, under every profile
(shards of queries), for embeddings with and without ``--top-k`` (shards of
the gallery), when a worker dies midway (Dask runs its task again) and from
the command line's own LocalCluster; cancelling cancels the futures;
without Dask, ``--dask`` says how to install it.

Every profile shards: a query's values depend on that query alone (the
engine's blocks already split the queries; tests/test_scoring_engine_hits.py), and
the means, averages and curves are made once, on the client, from all of
them.  shapenet17 shards each of its datasets."""

from __future__ import annotations

import os
import re
import socket
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from contest_files import write_binary_matrix, write_cla, write_qrels, write_ranklists
from contest_files import write_trec_run as trec_run
from contest_profiles import boli_contest, shapenet_csv, shapenet_method
from shrec_eval.cli.parser import main
from shrec_eval.errors import Cancelled, OptionsError
from shrec_eval.installed import pip_install
from shrec_eval.scoring import distributed as dist

distributed = pytest.importorskip("distributed")

N_ITEMS, N_CLASSES = 90, 7


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=50,
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        # the tests count on two workers (shards per worker): both registered
        # with the scheduler before the first test, not only started
        c.wait_for_workers(2, timeout=60)
        yield c


@pytest.fixture(autouse=True)
def small_shards(monkeypatch):
    """Shards of a few queries: many shards even on small contests."""
    monkeypatch.setattr(dist, "MIN_SHARD", 8)


def _cla_contest(folder: Path) -> tuple[Path, list[Path]]:
    rng = np.random.default_rng(3)
    labels = np.sort(rng.integers(0, N_CLASSES, N_ITEMS))
    items = [str(i) for i in range(N_ITEMS)]
    cla = write_cla(
        folder / "t.cla",
        [(f"c{c}", "0", [items[i] for i in np.flatnonzero(labels == c)]) for c in range(N_CLASSES)],
    )
    d = rng.integers(0, 40, (N_ITEMS, N_ITEMS)).astype(np.float32)  # ties
    runs = [write_binary_matrix(folder / "a.matrix", d)]
    runs.append(trec_run(folder / "b.trec", d[::-1].copy(), items, items, cut=30))
    write_ranklists(folder / "c", rng.random((N_ITEMS, N_ITEMS)), items, items, "plain")
    runs.append(folder / "c")
    return Path(cla), [Path(r) for r in runs]


def _json_pair(tmp_path, args: list[str], scheduler: str) -> tuple[bytes, bytes]:
    here, there = tmp_path / "local.json", tmp_path / "dask.json"
    assert main(["evaluate", *args, "--json", str(here)]) == 0
    assert main(["evaluate", *args, "--json", str(there), "--dask", scheduler]) == 0
    return here.read_bytes(), there.read_bytes()


@pytest.mark.parametrize("profile", ["shrec", "psbtable", "trec_eval"])
def test_a_cla_contest_is_the_same_bytes_on_the_cluster(tmp_path, client, profile):
    cla, runs = _cla_contest(tmp_path)
    args = [str(cla), *map(str, runs), "--profile", profile]
    here, there = _json_pair(tmp_path, args, client.scheduler.address)
    assert here == there and b'"per_query"' in here


def test_a_qrels_contest_is_the_same_bytes_on_the_cluster(tmp_path, client):
    rng = np.random.default_rng(4)
    queries = [f"q{i}" for i in range(40)]
    docs = [f"d{i}" for i in range(300)]
    judgments = {
        q: {docs[j]: int(rng.integers(0, 3)) for j in rng.choice(300, 25, replace=False)}
        for q in queries
    }
    qrels = write_qrels(tmp_path / "x.qrels", judgments)
    d = rng.random((40, 300))
    runs = [trec_run(tmp_path / f"r{i}.trec", d + i, queries, docs, cut=100) for i in range(2)]
    for profile in ("trec_eval", "shrec"):
        args = [str(qrels), *map(str, runs), "--profile", profile]
        here, there = _json_pair(tmp_path, args, client.scheduler.address)
        assert here == there


def test_the_boli_and_shapenet17_profiles_on_the_cluster(tmp_path, client):
    queries, target, runs = boli_contest(tmp_path)
    args = [str(target), str(runs), "--queries", str(queries), "--profile", "boli"]
    here, there = _json_pair(tmp_path, args, client.scheduler.address)
    assert here == there
    csv, method = shapenet_csv(tmp_path), shapenet_method(tmp_path)
    args = [str(csv), str(method), "--profile", "shapenet17"]
    here, there = _json_pair(tmp_path, args, client.scheduler.address)
    assert here == there


def _embeddings(tmp_path: Path, n_items: int = 2600, n_queries: int = 600, dim: int = 8):
    """A cross-domain .npz of more than two pieces of 1,024 items and two
    tiles of 512 queries, with duplicate gallery rows (tied distances)."""
    rng = np.random.default_rng(5)
    cls = rng.integers(0, 20, n_items)
    centres = rng.standard_normal((20, dim))
    g = (centres[cls] + rng.standard_normal((n_items, dim))).astype(np.float32)
    g[n_items // 2] = g[10]
    g[n_items - 1] = g[10]
    qc = rng.integers(0, 20, n_queries)
    q = (centres[qc] + rng.standard_normal((n_queries, dim))).astype(np.float32)
    q[7] = g[10]
    path = tmp_path / "x.npz"
    np.savez(
        path,
        query_features=q,
        query_ids=np.array([f"q{i}" for i in range(n_queries)]),
        gallery_features=g,
        gallery_ids=np.array([f"g{i}" for i in range(n_items)]),
    )
    (tmp_path / "ids.txt").write_text("".join(f"g{i}\n" for i in range(n_items)))
    judgments = {
        f"q{i}": {f"g{j}": 1 for j in np.flatnonzero(cls == c)[:60]} for i, c in enumerate(qc)
    }
    write_qrels(tmp_path / "x.qrels", judgments)
    return [str(tmp_path / "x.qrels"), "--collection", str(tmp_path / "ids.txt"), str(path)]


@pytest.mark.parametrize(
    "extra",
    [["--metric", "dot", "--top-k", "50"], ["--metric", "cosine", "--top-k", "1"], []],
    ids=["top-k 50", "top-k 1", "every item"],
)
def test_embeddings_are_the_same_bytes_on_the_cluster(tmp_path, client, extra):
    here, there = _json_pair(tmp_path, [*_embeddings(tmp_path), *extra], client.scheduler.address)
    assert here == there


def test_the_command_lines_own_local_cluster(tmp_path):
    args = [*_embeddings(tmp_path), "--metric", "dot", "--top-k", "20"]
    here, there = _json_pair(tmp_path, args, "local:2")
    assert here == there


class _KillOnce(distributed.WorkerPlugin):
    """Ends its worker's process the first time a task of ``name`` starts
    there (once for the whole cluster: a marker file)."""

    def __init__(self, name: str, marker: str) -> None:
        self.name, self.marker = name, marker

    def setup(self, worker) -> None:
        self.worker = worker

    def transition(self, key, start, finish, **kwargs) -> None:
        if finish == "executing" and self.name in str(key) and not os.path.exists(self.marker):
            Path(self.marker).write_text(str(os.getpid()))
            os._exit(1)


@pytest.mark.parametrize("task", ["_score_shard", "_select_shard"])
def test_a_worker_lost_midway_changes_no_byte(tmp_path, task):
    marker = tmp_path / "killed"
    extra = ["--top-k", "40"] if task == "_select_shard" else []
    args = [*_embeddings(tmp_path, n_items=2100, n_queries=80), "--metric", "dot", *extra]
    here = tmp_path / "local.json"
    assert main(["evaluate", *args, "--json", str(here)]) == 0
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, dashboard_address=":0", silence_logs=50
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        c.register_plugin(_KillOnce(task, str(marker)))
        there = tmp_path / "dask.json"
        assert (
            main(["evaluate", *args, "--json", str(there), "--dask", cluster.scheduler_address])
            == 0
        )
    assert marker.exists()  # a worker did die
    assert here.read_bytes() == there.read_bytes()


def test_cancel_cancels_the_clusters_futures(tmp_path, client):
    from shrec_eval.reading.readers import load_assessment, load_run

    args = _embeddings(tmp_path)
    a = load_assessment(args[0], collection=args[2])
    run = load_run(args[3], a, metric="euclidean")
    seen = []
    with pytest.raises(Cancelled):
        dist.evaluate(
            client, a, run, progress=lambda d, t: seen.append(d), should_stop=lambda: True
        )
    assert not seen
    _nothing_left(client)


def test_the_library_takes_a_client(tmp_path, client):
    from shrec_eval import evaluate
    from shrec_eval.reading.readers import load_assessment, load_run

    args = _embeddings(tmp_path)
    a = load_assessment(args[0], collection=args[2])
    local = evaluate(a, load_run(args[3], a, metric="dot", top_k=30))
    steps = []
    there = dist.evaluate(
        client,
        a,
        load_run(args[3], a, metric="dot", top_k=30),
        progress=lambda d, t: steps.append((d, t)),
    )
    assert np.array_equal(local.values, there.values, equal_nan=True)
    assert [w.to_dict() for w in local.warnings] == [w.to_dict() for w in there.warnings]
    assert steps[-1] == (a.n_queries, a.n_queries)
    assert all(d <= t for d, t in steps)


#: an evaluator file of a track: its own measure and a measure with parameters
DASK_TRACK = """\
[evaluator]
name = "dasktrack"
label = "a track scored on a cluster"
source = "tests/test_scoring_distributed.py"
help = "its NDCG of the retrieved hits, its first tier with one more"
why = "its script keeps the query in its own list"

[options]
remove_self = false

[[measures]]
key = "ft_plus"
binding = "ft(plus_one=true)"
label = "First tier, plus one"
definition = "(hits in the first C + 1) / C"

[table]
columns = ["nn", "ft_plus", "ndcg(discount=log2_from_1,ideal=retrieved)"]
"""


def test_an_evaluator_files_profile_on_the_cluster(tmp_path, client):
    """The profile of an evaluator file travels with the job (pickled): the
    workers never look it up (the file is gone when they score), and the
    results are the local path's, byte for byte on the command line."""
    from shrec_eval import EvalOptions, evaluate
    from shrec_eval.reading.readers import load_assessment, load_run

    path = tmp_path / "dasktrack.toml"
    path.write_text(DASK_TRACK)
    cla, runs = _cla_contest(tmp_path)
    args = [str(cla), *map(str, runs), "--profile", str(path)]
    here, there = _json_pair(tmp_path, args, client.scheduler.address)
    assert here == there and b'"profile":"dasktrack"' in here and b'"ft_plus"' in here
    options = EvalOptions(profile=path)
    path.unlink()  # nothing can read it again: the profile travels with the options
    a = load_assessment(cla)
    for run in runs:
        local = evaluate(a, load_run(run, a), options)
        remote = dist.evaluate(client, a, load_run(run, a), options)
        assert np.array_equal(local.values, remote.values, equal_nan=True)
        assert remote.options.rules == options.rules and "ft_plus" in remote.keys


def test_query_shards_cover_the_queries_once():
    for nq in (0, 1, 7, 100, 1000, 5000):
        for workers in (1, 2, 8):
            for align in (1, 512):
                shards = dist.query_shards(nq, workers, align)
                assert shards[0][0] == 0 and shards[-1][1] == nq
                assert all(a < b for a, b in shards) or nq == 0
                assert all(b == c for (_, b), (c, _) in zip(shards, shards[1:]))
                assert all(a % align == 0 for a, _ in shards)


def test_without_dask_the_option_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed fails
    hint = pip_install("dask")  # from where shrec-eval was installed (test_project_install.py)
    with pytest.raises(OptionsError, match=re.escape(hint)):
        with dist.connect("local:2"):
            pass
    cla, runs = _cla_contest(tmp_path)
    assert main(["evaluate", str(cla), str(runs[0]), "--dask", "local:2"]) == 2
    assert hint in capsys.readouterr().err


BAD_SCHEDULERS = [
    ("local:0", "from 1 to 1024, not '0'"),
    ("local:x", "from 1 to 1024, not 'x'"),
    ("local:-2", "from 1 to 1024, not '-2'"),
    ("host:1", "or a scheduler's address, tcp://HOST:PORT, such as tcp://host:8786, not 'host:1'"),
    ("", "not ''"),
    ("tcp://", "'tcp://': the address has no host"),
    ("tcp://:8786", "the address has no host"),
    ("tcp://127.0.0.1", "the address has no port; tcp://127.0.0.1:PORT was expected"),
    ("tcp://[::1", "the IPv6 host '[::1' lacks its closing ']'"),
    ("tcp://[::1]", "no port after [::1]"),
    ("tcp://[::g]:8786", "[::g] is not an IPv6 address"),
    ("tcp://::1:8786", "must be written in brackets: [::1]:PORT"),
    ("inproc://x", "the scheme 'inproc://' is not one shrec-eval connects with"),
    ("ucx://127.0.0.1:1", "the scheme 'ucx://' is not one"),
    ("ws://127.0.0.1:1", "the scheme 'ws://' is not one"),
    ("tcp://127.0.0.1:99999", "the port 99999 is out of range; a port is from 1 to 65535"),
    ("tcp://127.0.0.1:0", "the port 0 is out of range"),
    ("tcp://127.0.0.1:80a", "the port '80a' is not a number"),
    ("tcp://127.0.0.1:٨٧", "the port '٨٧' is not a number"),
    ("tcp://127.0.0.1:8786/x", "is not HOST:PORT (no path, user or spaces"),
    ("tcp://me@host:8786", "is not HOST:PORT"),
    ("tcp://my host:8786", "is not HOST:PORT"),
    ("tcp://-bad-:8786", "'-bad-' is not a host name or an IP address"),
    ("tcp://a..b:8786", "'a..b' is not a host name"),
]


@pytest.mark.parametrize(
    ("bad", "words"), BAD_SCHEDULERS, ids=[b or "empty" for b, _ in BAD_SCHEDULERS]
)
def test_bad_schedulers_are_refused_naming_the_bad_part(bad, words):
    """f10: every --dask string checked before anything connects (Dask is
    not even asked), the message naming what is wrong."""
    with pytest.raises(OptionsError) as e:
        dist.parse_scheduler(bad)
    assert words in str(e.value)
    with pytest.raises(OptionsError, match=re.escape(words)):
        with dist.connect(bad):
            pass


def test_good_schedulers_are_read():
    assert dist.parse_scheduler(" local:3 ") == dist.Scheduler(workers=3)
    assert dist.parse_scheduler("local") == dist.Scheduler(workers=1)
    for text, address in (
        ("tcp://10.1.2.3:8786", "tcp://10.1.2.3:8786"),
        ("TCP://Node-7.cluster.example:1", "tcp://Node-7.cluster.example:1"),
        ("tcp://[::1]:65535", "tcp://[::1]:65535"),
        ("tls://login_2:8786", "tls://login_2:8786"),
    ):
        assert dist.parse_scheduler(text).address == address


def test_the_command_line_checks_the_scheduler_before_reading(tmp_path, capsys):
    """A bad --dask is said before the contest is read (here: a missing
    assessment), in the tool's words, exit 2, for every command taking it."""
    for command in ("evaluate", "check", "compare"):
        for bad, words in (("tcp://[::1", "lacks its closing"), ("inproc://x", "scheme")):
            args = [command, str(tmp_path / "missing.cla"), str(tmp_path / "m.txt")]
            args += ["--measure", "map"] if command == "compare" else []
            assert main([*args, "--dask", bad]) == 2
            err = capsys.readouterr().err
            assert words in err and "missing.cla" not in err and "unexpected" not in err, err


def _closed_port() -> int:
    """A local port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_refused_connection_is_said_at_once(tmp_path, capsys):
    """f10: nothing listening is said within CONNECT_WAIT (5 s), where Dask
    retries for its whole time-out (30 s)."""
    cla, runs = _cla_contest(tmp_path)
    port = _closed_port()
    start = time.monotonic()
    assert main(["evaluate", str(cla), str(runs[0]), "--dask", f"tcp://127.0.0.1:{port}"]) == 2
    assert time.monotonic() - start < 5
    err = capsys.readouterr().err
    assert f"the connection was refused: nothing listens on port {port} of 127.0.0.1" in err


def test_a_port_where_no_scheduler_speaks_is_said(monkeypatch):
    """A program that accepts the connection but is not a Dask scheduler
    (Dask would wait for its handshake for ever): said after CONNECT_WAIT;
    one that closes the connection at once, at once; one that speaks other
    words (an SSH server), in the tool's words."""
    monkeypatch.setattr(dist, "CONNECT_WAIT", 0.5)
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        port = silent.getsockname()[1]
        start = time.monotonic()
        with pytest.raises(OptionsError, match="it said nothing in 0.5 s"):
            with dist.connect(f"tcp://127.0.0.1:{port}"):
                pass
        assert time.monotonic() - start < 3
    with socket.socket() as closing:
        closing.bind(("127.0.0.1", 0))
        closing.listen(1)
        port = closing.getsockname()[1]

        def close_it():
            conn, _ = closing.accept()
            conn.close()

        t = threading.Thread(target=close_it)
        t.start()
        with pytest.raises(OptionsError, match="is not a Dask scheduler .it closed the connection"):
            with dist.connect(f"tcp://127.0.0.1:{port}"):
                pass
        t.join()
    with socket.socket() as ssh:  # speaks first, not Dask's words (Dask: a MemoryError)
        ssh.bind(("127.0.0.1", 0))
        ssh.listen(2)
        port = ssh.getsockname()[1]
        conns = []

        def banner():
            for _ in range(2):  # the probe, then Dask
                conn, _ = ssh.accept()
                conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")
                conns.append(conn)

        t = threading.Thread(target=banner, daemon=True)
        t.start()
        with pytest.raises(OptionsError, match="cannot connect to a Dask scheduler there"):
            with dist.connect(f"tcp://127.0.0.1:{port}"):
                pass
        for conn in conns:
            conn.close()


def test_unreachable_hosts_and_tls_without_settings(monkeypatch):
    def no_answer(*args, **kwargs):
        raise TimeoutError

    with pytest.raises(OptionsError, match="tls:// needs Dask's TLS settings"):
        with dist.connect("tls://127.0.0.1:8786"):
            pass
    monkeypatch.setattr(socket, "create_connection", no_answer)
    with pytest.raises(OptionsError, match="did not answer on port 8786 within 5 s"):
        with dist.connect("tcp://10.1.2.3:8786"):
            pass


def test_the_app_command_without_qt_says_how_to_install_it(monkeypatch, capsys):
    import importlib.util

    from shrec_gui import launch

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "PySide6" else real(name, *a)
    )
    from shrec_eval.installed import pip_install

    assert launch.main(["--demo"]) == 1
    err = capsys.readouterr().err
    assert "needs Qt (PySide6)" in err and pip_install("app") in err and "[app]" in err


def _shard_tasks(dask_scheduler) -> list[str]:
    """Our tasks the scheduler still holds (shards, and the data they use),
    with their state and who wants them."""
    names = ("_score_shard", "_select_shard", "_same")
    return [
        f"{t.key} {t.state} wanted by {sorted(str(c) for c in t.who_wants)}"
        for t in dask_scheduler.tasks.values()
        if any(n in str(t.key) for n in names)
    ]


def _handled(client) -> None:
    """Every message this client has sent the scheduler is handled: its
    submits, cancels and releases go on one stream, handled in order, where
    ``run_on_scheduler``'s question comes by a connection of its own and
    may overtake them (while a graph sent before is still unpacked: its
    tasks not made yet, or made and their cancel not read yet).  A task
    sent now has run once they are."""
    client.submit(len, (), pure=False).result(timeout=60)


def _nothing_left(client, wait: float = 30) -> None:
    """Nothing of ours is left on the cluster (within ``wait`` seconds),
    read once the scheduler has handled what this client sent
    (:func:`_handled`; read before, an empty answer was taken for nothing
    left while a job's tasks and their cancel were on their way, and the
    next read found the tasks made and the cancel not yet read: the flaky
    failure of ``_same-...  processing``).  A future this process no longer
    reaches may still be held by a reference cycle (an exception's
    traceback and its frames) until Python's collector runs, and is
    released then: collected here, as the process would in its time."""
    import gc
    import time

    _handled(client)
    deadline = time.monotonic() + wait
    while (left := client.run_on_scheduler(_shard_tasks)) and time.monotonic() < deadline:
        gc.collect()
        time.sleep(0.1)
    assert left == []


def test_nothing_left_is_read_once_the_messages_on_their_way_are_handled(client, monkeypatch):
    """What is left is read after the scheduler has handled what was sent
    before: a task sent just before the check, whose graph the scheduler is
    still unpacking (slowed here, as on a loaded machine), is found left."""
    import distributed.scheduler

    real = distributed.scheduler._materialize_graph

    def slow(*args, **kwargs):
        time.sleep(0.5)
        return real(*args, **kwargs)

    monkeypatch.setattr(distributed.scheduler, "_materialize_graph", slow)
    future = client.submit(dist._same, 1, pure=False)
    with pytest.raises(AssertionError, match="_same-.* wanted by"):
        _nothing_left(client, wait=0.3)
    del future
    _nothing_left(client)


def test_ctrl_c_cancels_the_clusters_futures(tmp_path, client, monkeypatch):
    """KeyboardInterrupt while the shards come back (as Ctrl-C arrives in
    the waiting thread): every shard's future is cancelled, and the data
    they use, and none is left on the scheduler."""

    from shrec_eval.reading.readers import load_assessment, load_run

    cla, runs = _cla_contest(tmp_path)
    a = load_assessment(cla)
    run = load_run(runs[0], a)
    cancelled = []
    real = client.cancel
    monkeypatch.setattr(client, "cancel", lambda fs, **kw: (cancelled.extend(fs), real(fs, **kw)))

    def interrupt(done, total):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        dist.evaluate(client, a, run, progress=interrupt)
    # every shard's future, and the assessment and run they use
    shards = [f for f in cancelled if str(f.key).startswith("_score_shard")]
    assert len(shards) == len(dist.query_shards(a.n_queries, 2)) > 1
    assert sum(str(f.key).startswith("_same") for f in cancelled) == 2
    _nothing_left(client)


#: the two ways a job goes to the cluster: shards of queries (every run
#: but --top-k feature vectors) and shards of the gallery (--top-k)
JOB_PATHS = {"query shards": {"metric": "euclidean"}, "gallery shards": {"top_k": 30}}


def _feature_run(folder: Path, **kwargs):
    from shrec_eval.reading.readers import load_assessment, load_run

    args = _embeddings(folder)
    a = load_assessment(args[0], collection=args[2])
    return a, load_run(args[3], a, **kwargs)


class _Submits:
    """``client.submit`` spied on: ``sent``, the names of the functions it
    was given, in order (the job's data, ``_same``, then its shards); Ctrl-C
    (KeyboardInterrupt) instead of the submit numbered ``interrupt_at`` (0
    for the first), as a user's Ctrl-C arrives while a job is sent."""

    def __init__(self, client, monkeypatch) -> None:
        self.sent: list[str] = []
        self.interrupt_at: int | None = None
        self.real = client.submit
        monkeypatch.setattr(client, "submit", self.submit)

    def submit(self, func, *args, **kwargs):
        if len(self.sent) == self.interrupt_at:
            raise KeyboardInterrupt
        self.sent.append(func.__name__)
        return self.real(func, *args, **kwargs)


@pytest.mark.parametrize("path", JOB_PATHS)
def test_a_stop_at_any_moment_leaves_nothing_on_the_cluster(tmp_path, client, monkeypatch, path):
    """should_stop answering True once the job has made k submits, for every
    k from none to all of them (then the stop comes while the results are
    awaited): Cancelled, at once, with exactly k submits made (stopped before
    it starts, a job sends nothing), and nothing of the job left on the
    scheduler while its exception is still held (as an interactive session
    keeps its last error: the futures its frames hold are still alive)."""
    a, run = _feature_run(tmp_path, **JOB_PATHS[path])
    spy = _Submits(client, monkeypatch)
    held = []
    for k in range(20):
        spy.sent.clear()
        try:
            dist.evaluate(client, a, run, should_stop=lambda k=k: len(spy.sent) >= k)
        except Cancelled as exc:
            held.append(exc)
        else:  # every submit made before the k-th: the stop never came
            break
        assert len(spy.sent) == k, spy.sent
        _nothing_left(client, wait=10)
    assert k > 2 and "_same" in spy.sent and len(held) == k  # data, shards, and the wait


@pytest.mark.parametrize("path", JOB_PATHS)
def test_ctrl_c_while_submitting_leaves_nothing_on_the_cluster(tmp_path, client, monkeypatch, path):
    """Ctrl-C (KeyboardInterrupt) at each submit of a job after the first,
    its data sent and some of its shards or none: what was sent is cancelled
    on the scheduler, also while the exception (and the futures its frames
    hold) is kept."""
    a, run = _feature_run(tmp_path, **JOB_PATHS[path])
    spy = _Submits(client, monkeypatch)
    dist.evaluate(client, a, run)  # every submit of the job, counted
    total = len(spy.sent)
    assert total > 2 and spy.sent[0] == "_same"
    for k in range(1, total):
        spy.sent.clear()
        spy.interrupt_at = k
        with pytest.raises(KeyboardInterrupt) as caught:
            dist.evaluate(client, a, run)
        assert len(spy.sent) == k and caught.value is not None
        spy.interrupt_at = None
        _nothing_left(client, wait=10)


def test_check_and_compare_take_the_cluster_too(tmp_path, client, capsys):
    cla, runs = _cla_contest(tmp_path)
    args = [str(cla), *map(str, runs)]
    outs = []
    for extra in ([], ["--dask", client.scheduler.address]):
        assert main(["check", *args, "--json", str(tmp_path / f"c{len(outs)}.json"), *extra]) == 0
        outs.append(capsys.readouterr().out)
    assert outs[0] == outs[1]
    assert (tmp_path / "c0.json").read_bytes() == (tmp_path / "c1.json").read_bytes()
    for i, extra in enumerate(([], ["--dask", client.scheduler.address])):
        cmp = ["compare", *args, "--measure", "map", "--resamples", "200", "--seed", "1"]
        assert main([*cmp, "--json", str(tmp_path / f"k{i}.json"), *extra]) == 0
    assert (tmp_path / "k0.json").read_bytes() == (tmp_path / "k1.json").read_bytes()


def _one_array(folder: Path, dim: int) -> list[str]:
    """The contest of :func:`_embeddings` with its features in one .npy
    (queries first), its rows named by an ids file (``--ids``)."""
    args = _embeddings(folder, dim=dim)
    z = np.load(args[3])
    np.save(folder / "x.npy", np.concatenate([z["query_features"], z["gallery_features"]]))
    ids = [*z["query_ids"].tolist(), *z["gallery_ids"].tolist()]
    (folder / "rows.txt").write_text("".join(f"{i}\n" for i in ids))
    return [*args[:3], str(folder / "x.npy"), "--ids", str(folder / "rows.txt")]


@pytest.mark.parametrize("extra", [["--top-k", "20"], []], ids=["top-k", "every item"])
def test_feature_files_are_read_by_the_workers_never_sent(tmp_path, client, monkeypatch, extra):
    """f05: what the client sends of a run of features read from a file is
    where the workers read them from, never the values: the same size for 8
    and 512 dimensions (0.1 and 6.6 MB of features), one array (.npy) or
    two (.npz), a few bytes a row (ids, the rows' places and norms); no
    "Sending large graph" warning of Dask's."""
    import pickle
    import warnings

    import dask
    from shrec_eval import Assessment

    sent: list[int] = []  # the sizes of the runs sent (the assessment is sent too, as it is)
    real = dist._put

    def put(c, obj):
        if not isinstance(obj, Assessment):
            sent.append(len(pickle.dumps(obj)))
        return real(c, obj)

    monkeypatch.setattr(dist, "_put", put)
    sizes = {}
    for dim in (8, 512):
        for layout in ("npy", "npz"):
            folder = tmp_path / f"{layout}{dim}"
            folder.mkdir()
            args = _one_array(folder, dim) if layout == "npy" else _embeddings(folder, dim=dim)
            sent.clear()
            out = str(folder / "x.json")
            with (
                warnings.catch_warnings(record=True) as caught,
                dask.config.set({"distributed.admin.large-graph-warning-threshold": "500kB"}),
            ):
                warnings.simplefilter("always")
                cmd = ["evaluate", *args, "--metric", "dot", *extra, "--json", out]
                assert main([*cmd, "--dask", client.scheduler.address]) == 0
            assert not [w for w in caught if "large graph" in str(w.message)]
            sizes[layout, dim] = sum(sent), os.path.getsize(args[3])
    for layout in ("npy", "npz"):
        (small, _), (large, features) = sizes[layout, 8], sizes[layout, 512]
        assert sent and abs(large - small) < 200, sizes
        assert large < features / 50, sizes


@pytest.mark.parametrize("top_k", [None, 20])
def test_a_feature_file_changed_under_the_workers_is_an_error_naming_it(tmp_path, client, top_k):
    """f03 on a cluster: a feature file truncated after the client read it
    is, on the workers that read it, the error of one machine, naming it."""
    from shrec_eval.errors import FormatError
    from shrec_eval.reading.readers import load_assessment, load_run

    args = _one_array(tmp_path, 64)
    a = load_assessment(args[0], collection=args[2])
    run = load_run(args[3], a, ids=args[5], metric="dot", top_k=top_k)
    os.truncate(args[3], 20000)
    with pytest.raises(FormatError) as e:
        dist.evaluate(client, a, run)
    assert e.value.path == args[3]
    assert "the file ended after 20,000 bytes while it was read" in e.value.message
    _nothing_left(client)


def test_a_cancel_that_fails_leaves_the_jobs_own_error(tmp_path, client, monkeypatch):
    """The job's error reaches the caller when the cancel after it fails too
    (the client closed, the scheduler gone): not the cancel's."""
    from shrec_eval.reading.readers import load_assessment, load_run

    cla, runs = _cla_contest(tmp_path)
    a = load_assessment(cla)
    run = load_run(runs[0], a)
    real = client.cancel
    tried = []

    def cancel_fails(futures, **kw):
        tried.append(len(futures))
        real(futures, **kw)  # nothing left on the cluster for the next tests
        raise OSError("the scheduler is gone")

    monkeypatch.setattr(client, "cancel", cancel_fails)

    def progress(done, total):
        raise ValueError("the caller's own error")

    with pytest.raises(ValueError, match="the caller's own error"):
        dist.evaluate(client, a, run, progress=progress)
    assert tried and tried[0] > 2
    _nothing_left(client)
