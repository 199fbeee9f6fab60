"""Run a study's splits so that every finished split is kept, on this machine or a Dask cluster.

Every long study command (Table 1, the HMC reference, model size, pruning, …) is a set of
independent jobs — one per split — whose results are put together at the end. :func:`run_splits`
runs them and keeps each one as it finishes:

* **kept at once**: after each finished job the partial-results file beside the output
  (``<name>.partial.json``: the run's configuration and every finished job, each with its wall
  time) is rewritten atomically (:func:`~ensemble_lib.studies.store.save_json`), so a crash or a
  Ctrl-C loses at most the jobs still running;
* **resumed exactly**: with ``resume=True`` the jobs stored there (for the same configuration) are
  not run again. Every result, fresh or resumed, goes through the same JSON round trip before the
  study puts them together, so a resumed run writes the very bytes an uninterrupted one does;
* **interrupted cleanly**: Ctrl-C (SIGINT) prints how many jobs were kept, where, and the command
  that resumes, and exits with status 130;
* **scaled out**: ``backend="dask"`` with ``scheduler="tcp://host:8786"`` sends the jobs to an
  existing Dask cluster through joblib's Dask backend. Every job runs with one BLAS thread, wherever
  it runs, so its bits do not depend on ``n_jobs`` or on the machine's cores. Ray's joblib backend
  cannot hand results back as they finish, which keeping each split needs, so ``backend="ray"`` is
  refused with a ValueError.

:func:`check_output` is the other half of "never lose a stored result": it refuses to replace an
existing stored file made with another configuration unless ``force`` is given.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import signal
import sys
import threading
import time
from pathlib import Path

from joblib import Parallel, delayed, parallel_config
from threadpoolctl import ThreadpoolController

from ..core import validation as check
from ..core.progress import report
from .store import save_json, stored_file, study_parser

#: the backends :func:`run_splits` knows: joblib's own worker processes, or a Dask cluster
BACKENDS = ("loky", "dask")
#: the exit status of a run stopped by Ctrl-C (128 + SIGINT), as a shell reports it
INTERRUPTED = 130


class Interrupted(SystemExit):
    """A study stopped by Ctrl-C after keeping its finished jobs (exit status 130)."""

    def __init__(self, message: str):
        super().__init__(INTERRUPTED)
        self.message = message


def partial_path(out) -> Path:
    """The partial-results file kept beside output ``out``: ``<stem>.partial.json``."""
    out = Path(out)
    return out.with_name(out.stem + ".partial.json")


def job_name(key) -> str:
    """A job's key (a tuple such as ``("boston", 3)``, or one value) as it is stored: ``"boston/3"``."""
    return "/".join(str(k) for k in (key if isinstance(key, tuple) else (key,)))


def _round_trip(obj):
    """``obj`` as it comes back from the partial file: fresh and resumed results must be equal."""
    return json.loads(json.dumps(obj))


def _thread_pools() -> ThreadpoolController:
    """threadpoolctl's controller of the thread pools loaded now, found without losing a Ctrl-C.

    Before 3.8, threadpoolctl finds the libraries on Linux through a C callback
    (``dl_iterate_phdr``; 3.5 is the declared floor). A KeyboardInterrupt raised inside it is
    printed as "Exception ignored on calling ctypes callback function" and lost, and the study
    would run on to its end. So while it looks, SIGINT in the main thread only records itself, and
    is raised again as soon as the search is over (other threads get no KeyboardInterrupt from
    Python; a handler set outside Python is left alone).
    """
    if threading.current_thread() is not threading.main_thread() or signal.getsignal(signal.SIGINT) is None:
        return ThreadpoolController()
    held = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: held.append(signum))
    try:
        controller = ThreadpoolController()
    finally:
        signal.signal(signal.SIGINT, previous)
    if held:
        signal.raise_signal(signal.SIGINT)  # now the study's own handling of Ctrl-C runs
    return controller


def limit_threads(limits: int = 1, user_api: str | None = None, *, require: bool = False):
    """A context manager: at most ``limits`` threads in each thread pool of ``user_api``
    (``"blas"``, ``"openmp"`` or None for both), as :func:`threadpoolctl.threadpool_limits`,
    but a Ctrl-C that comes while threadpoolctl looks for the libraries is not lost
    (:func:`_thread_pools`). With ``require``, RuntimeError if it finds no such pool to limit.
    """
    limits = check.integer("limits", limits, low=1)
    if user_api is not None:
        user_api = check.choice("user_api", user_api, ("blas", "openmp"))
    controller = _thread_pools()
    pools = controller.lib_controllers if user_api is None else controller.select(user_api=user_api).lib_controllers
    if require and not pools:
        raise RuntimeError(f"threadpoolctl finds no {user_api or 'thread pool'} library to limit "
                           "(threadpoolctl >= 3.5 knows numpy's scipy-openblas)")
    return controller.limit(limits=limits, user_api=user_api)


def _timed(fn, key):
    """Run one job (in a worker, or in this process for one job at a time) with one BLAS thread:
    ``(key, result, wall seconds)``. With two, OpenBLAS sums in another order, and a split run
    by ``--jobs 1`` would differ in its last bits from the same split in a worker process."""
    t0 = time.perf_counter()
    with limit_threads(1):
        result = fn(*key) if isinstance(key, tuple) else fn(key)
    return key, result, time.perf_counter() - t0


def check_output(path, config: dict, *, force: bool = False, config_of=None, load=None,
                 elsewhere: str = "--outdir") -> None:
    """Refuse to replace a stored result made with another configuration, unless ``force``.

    Parameters
    ----------
    path : str or Path
        The file a run is about to write.
    config : dict
        The run's configuration, as the stored file records it.
    force : bool
        Replace the file whatever it holds.
    config_of : callable, optional
        ``config_of(stored) -> dict``, the configuration of a stored result (default: its
        ``"config"`` entry). A file whose configuration equals ``config`` may be replaced: the run
        re-derives it.
    load : callable, optional
        ``load(path) -> stored``, how the file is read (default: as JSON); a file it cannot read
        counts as another configuration's.
    elsewhere : str
        The command's option that writes elsewhere, named in the message (``--outdir`` or ``--out``).

    Raises
    ------
    FileExistsError
        Naming the file and the option that replaces it.
    """
    path = Path(path)
    check.flag("force", force)
    if force or not path.is_file():
        return
    try:
        stored = json.loads(path.read_text()) if load is None else load(path)
        stored_config = config_of(stored) if config_of is not None else stored.get("config")
    except (ValueError, AttributeError, KeyError, TypeError, OSError):
        stored_config = None
    if _round_trip(stored_config) != _round_trip(config):
        raise FileExistsError(f"{path} holds a result of another configuration; pass --force to "
                              f"replace it, or {elsewhere} to write elsewhere")


def config_or_default(config, default) -> dict:
    """``config``, or ``default()`` if it is None; a ValueError unless it is a dict with the default's keys
    (a one-file study's configuration, e.g. ``grid_config``)."""
    if config is None:
        return default()
    if not isinstance(config, dict) or set(config) != set(default()):
        raise ValueError(f"config must be a dict with the keys of {default.__name__}() {sorted(default())}, "
                         f"got {config!r:.120}")
    return config


def store_once(path, name: str, config: dict | None, make, save, *, force: bool = False, config_of=None,
               load=None, elsewhere: str = "--out") -> Path:
    """Compute a study's one stored file and write it atomically: ``save(make(), path)``.

    ``path``: None (``figures/<name>``) or a str or pathlib.Path. A file there of another
    configuration (or one recording none) is not replaced unless ``force``: FileExistsError,
    before ``make`` runs (:func:`check_output`, with its ``config_of`` and ``load``).
    ``config=None``: the store records no configuration, so an existing file is replaced only
    with ``force``. ``elsewhere``: the command's option that writes elsewhere, for the message.
    """
    if path is not None:
        check.instance("path", path, (str, os.PathLike), "None or a str or pathlib.Path")
    path = stored_file(name) if path is None else Path(path)
    check.flag("force", force)
    if config is None:
        if path.is_file() and not force:
            raise FileExistsError(f"{path} exists (its store records no configuration to compare with); "
                                  f"pass --force to replace it, or {elsewhere} to write elsewhere")
    else:
        check_output(path, config, force=force, config_of=config_of, load=load, elsewhere=elsewhere)
    return save(make(), path)


def one_file_main(argv, description: str, name: str, write, done) -> Path:
    """The command line of a study with one stored file: ``--out FILE`` (default ``figures/<name>``)
    and ``--force``; ``write(out, force=...)`` makes the file, ``done(path, seconds)`` is the line
    printed after it (the path is returned). A file of another configuration ends the command with
    its message."""
    parser = study_parser(description, outdir=False)
    parser.add_argument("--out", default=None, help=f"the file to write (default figures/{name})")
    parser.add_argument("--force", action="store_true",
                        help="replace a stored file of another configuration (or one recording none)")
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    try:
        path = write(args.out, force=args.force)
    except FileExistsError as e:
        raise SystemExit(str(e)) from None
    print(done(path, time.perf_counter() - t0), flush=True)
    return path


def run_splits(keys, fn, *, config: dict, partial, resume: bool = False, force: bool = False,
               n_jobs: int = 1, backend: str = "loky", scheduler: str | None = None, progress=None,
               describe=None, resume_command: str | None = None) -> tuple[dict, dict]:
    """Run ``fn(*key)`` for every key, keeping each finished result at once in ``partial``.

    Parameters
    ----------
    keys : list
        The jobs, each a tuple of ``fn``'s arguments (or one argument); stored as :func:`job_name`.
    fn : callable
        A module-level function (it is sent to worker processes) returning a JSON-ready result.
    config : dict
        The run's configuration; a partial file of another configuration is never resumed.
    partial : str or Path or None
        The partial-results file (:func:`partial_path` of the output); removed by the caller
        (:func:`finish`) once the output is written. None: keep nothing (a library call).
    resume : bool
        Take the jobs already stored in ``partial`` instead of running them again.
    force : bool
        Start afresh even if ``partial`` holds finished jobs (they are dropped).
    n_jobs : int
        Worker processes (``1``: this process); ignored by ``backend="dask"`` (the cluster's workers).
    backend : {"loky", "dask"}
    scheduler : str, optional
        The Dask scheduler's address (``backend="dask"``).
    progress : callable, optional
        ``progress(done, total, what=None)`` (the library's callback shape), as jobs finish.
    describe : callable, optional
        ``describe(key, result, seconds) -> str``, the ``what`` of each finished job.
    resume_command : str, optional
        The command that resumes, printed on Ctrl-C.

    Returns
    -------
    (results, seconds) : (dict, dict)
        Key → result (after a JSON round trip, whether fresh or resumed) and key → wall seconds.

    Raises
    ------
    FileExistsError
        ``partial`` holds finished jobs and neither ``resume`` nor ``force`` was given.
    Interrupted
        On Ctrl-C, after closing ``progress`` (if it has a ``close()``, as a progress bar does) and
        printing what was kept and ``resume_command`` (exit status 130).
    """
    keys = list(keys)
    if not callable(fn):
        raise ValueError(f"fn must be a callable, got {type(fn).__name__}")
    if not isinstance(config, dict):
        raise ValueError(f"config must be a dict, got {type(config).__name__}")
    if backend == "ray":
        raise ValueError("backend 'ray' is not supported: Ray's joblib backend cannot return results as "
                         "they finish, which keeping each finished split needs; use backend 'dask' "
                         "(--backend dask --scheduler ADDRESS)")
    if backend not in BACKENDS:
        raise ValueError(f"backend must be one of {list(BACKENDS)}, got {backend!r}")
    if backend == "dask" and not scheduler:
        raise ValueError("scheduler must be a Dask scheduler's address (tcp://host:port) with backend 'dask'")
    n_jobs = check.integer("n_jobs", n_jobs, low=1, high=256)
    check.flag("resume", resume)
    check.flag("force", force)
    partial = None if partial is None else Path(partial)
    names = {job_name(k): k for k in keys}
    config = _round_trip(config)

    kept: dict = {}
    if partial is not None and partial.is_file() and not force:
        stored = json.loads(partial.read_text())
        if not resume:
            raise FileExistsError(f"{partial} holds {len(stored.get('jobs', {}))} finished split(s) of an "
                                  "interrupted run: pass --resume to continue it, or --force to start afresh")
        if stored.get("config") != config:
            raise FileExistsError(f"{partial} was made with another configuration; pass --force to "
                                  "start afresh")
        kept = {n: v for n, v in stored["jobs"].items() if n in names}
    results = {names[n]: v["result"] for n, v in kept.items()}
    seconds = {names[n]: v["seconds"] for n, v in kept.items()}
    todo = [k for k in keys if job_name(k) not in kept]

    def keep():
        if partial is not None:
            save_json({"config": config, "jobs": kept}, partial)

    report(progress, len(results), len(keys))
    try:
        if todo:
            with _backend(backend, scheduler) as dask:
                run = Parallel(n_jobs=-1 if dask else n_jobs, return_as="generator_unordered")
                for key, result, secs in run(delayed(_timed)(fn, k) for k in todo):
                    result, secs = _round_trip(result), round(secs, 1)
                    results[key], seconds[key] = result, secs
                    kept[job_name(key)] = {"result": result, "seconds": secs}
                    keep()
                    report(progress, len(results), len(keys),
                           what=None if describe is None else describe(key, result, secs))
    except KeyboardInterrupt:
        close = getattr(progress, "close", None)  # a progress bar ends before the message
        if callable(close):
            close()
        message = (f"\ninterrupted: {len(kept)} of {len(keys)} split(s) "
                   + (f"kept in {partial}" if partial is not None else "finished, none kept")
                   + (f"; resume with:\n    {resume_command}" if resume_command else ""))
        print(message, file=sys.stderr, flush=True)
        raise Interrupted(message) from None
    return results, seconds


@contextlib.contextmanager
def _backend(backend: str, scheduler: str | None):
    """joblib's default backend, or its Dask backend on the cluster at ``scheduler`` (True inside)."""
    if backend != "dask":
        yield False
        return
    # distributed is needed only to scale out (the test extra installs it); loaded here, on first use
    from distributed import Client

    with Client(scheduler) as client, parallel_config(backend="dask", wait_for_workers_timeout=60):
        del client
        yield True


def finish(partial) -> None:
    """Remove the partial-results file once the output it was kept for has been written."""
    Path(partial).unlink(missing_ok=True)


def add_run_options(parser, *, resume: bool = True, backend: bool = True):
    """Add the options every long study shares: ``--force``, ``--resume``, ``--backend``, ``--scheduler``."""
    parser.add_argument("--force", action="store_true",
                        help="replace an existing stored result of another configuration "
                             "(and drop an interrupted run's kept splits)")
    if resume:
        parser.add_argument("--resume", action="store_true",
                            help="continue an interrupted run from the splits it kept "
                                 "(<output>.partial.json); the output is the uninterrupted run's, byte for byte")
    if backend:
        parser.add_argument("--backend", choices=[*BACKENDS, "ray"], default="loky",
                            help="where the splits run: joblib's worker processes (loky, default) or an "
                                 "existing Dask cluster (dask, with --scheduler); ray is refused")
        parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                            help="the Dask scheduler's address, e.g. tcp://127.0.0.1:8786 (--backend dask)")
    return parser


def resume_command(module: str, argv) -> str:
    """The command line that resumes ``python -m module argv``: the same arguments with ``--resume``."""
    args = [a for a in argv if a not in ("--resume", "--force")]
    return shlex.join(["python", "-m", module, *args, "--resume"])


__all__ = ["BACKENDS"]  # the runner is the studies' own (their run_* and main take its options)
