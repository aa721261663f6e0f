"""Scoring: from an assessment and runs to results.  :mod:`.base_measures`
declares the measures every profile computes (each once, as data) and
:mod:`.measures` is the registry across profiles (``expand``, ``resolve``);
:mod:`.curves` the curves, :mod:`.chunk` the block of queries both compute
on; :mod:`.engine` scores a run one block of queries at a time under a
memory budget (progress and cancel callbacks, no Qt) from the blocks of
:mod:`.blocks`; :mod:`.averages` averages over queries and classes,
:mod:`.results` holds a run's results; :mod:`.stats` compares runs (paired
tests, intervals, corrections), :mod:`.confusion` counts classes in first
tiers; :mod:`.distributed` shards the same work on a Dask cluster and
:mod:`.memory` keeps freed blocks for reuse.  Scoring and the profiles use
each other (a profile declares measures; the engine applies a profile's
rules), and neither writes a file."""
