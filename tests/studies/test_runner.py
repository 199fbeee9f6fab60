"""Studies that keep what they finish (ensemble_lib.studies.runner), and a figures command that keeps
the stored files.

* a Table-1 run interrupted by a real SIGINT after its first split keeps that split, says how to
  resume, and the resumed run writes the uninterrupted run's bytes;
* a stored table of another configuration is not replaced without ``--force``;
* a writer killed (SIGKILL) in the middle of an atomic write leaves the old file intact;
* ``make figures``' writing keeps a stored file that a run changes only by floating point, and a
  run over a copy of ``figures/`` leaves it unchanged;
* the tiny table on a local Dask cluster (``--backend dask --scheduler``) is the in-process one;
  Ray is refused with a message saying why.
"""

from __future__ import annotations

import io
import json
import os
import shlex
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from ensemble_lib.lessons import figures
from ensemble_lib.studies import model_size as ms
from ensemble_lib.studies import runner, store
from ensemble_lib.studies import table1 as t1

ROOT = Path(__file__).resolve().parents[2]
#: five splits of the tiny table, in this process (each split takes a second or two): the four after
#: the first give the Ctrl-C below seconds to arrive even on a busy machine (with three, a loaded
#: machine once let the run finish before the signal)
N_SPLITS = 5
TINY = ["--table", "--datasets", "boston", "--n-splits", str(N_SPLITS), "--n-train", "40", "--n-hidden", "1",
        "--ranks", "1", "--n-restarts", "2", "--jobs", "1"]
MODULE = "ensemble_lib.studies.table1"


def _env():
    return {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}


def _as_from_a_terminal():
    """Give the child the Ctrl-C a terminal gives it: SIGINT at its default disposition.

    A command started in the background by a non-interactive shell (as CI starts `make test`)
    inherits SIGINT *ignored*, and Python then installs no KeyboardInterrupt handler, so the signal
    below was silently dropped and the run finished (exit 0): that was CI's failure, not the study's.
    """
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture(scope="module")
def uninterrupted(tmp_path_factory):
    out = tmp_path_factory.mktemp("whole")
    t1.main(TINY + ["--outdir", str(out)])
    assert not list(out.glob("*.partial.json"))  # removed once the table is written
    return (out / "boston_table1.json").read_bytes()


def test_an_interrupted_run_keeps_its_first_split_and_resumes_to_the_same_bytes(tmp_path, uninterrupted):
    out = tmp_path / "out"
    partial = runner.partial_path(out / "table1_boston")
    proc = subprocess.Popen([sys.executable, "-m", MODULE, *TINY, "--outdir", str(out)], env=_env(),
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_as_from_a_terminal)
    deadline = time.monotonic() + 300
    while not (partial.is_file() and json.loads(partial.read_text())["jobs"]):
        assert proc.poll() is None, "the run ended before keeping a split:\n" + proc.stderr.read()
        assert time.monotonic() < deadline, "no split kept within 300 s"
        time.sleep(0.02)
    proc.send_signal(signal.SIGINT)  # Ctrl-C, after the first split was kept
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == runner.INTERRUPTED, err
    kept = json.loads(partial.read_text())["jobs"]
    assert 1 <= len(kept) < N_SPLITS and "boston/0" in kept
    assert not (out / "boston_table1.json").exists()
    assert f"{len(kept)} of {N_SPLITS} split(s) kept in {partial}" in err
    command = err.split("resume with:\n")[1].splitlines()[0].strip()
    args = shlex.split(command)
    assert args[:3] == ["python", "-m", MODULE] and args[-1] == "--resume"

    # the printed command resumes; the kept splits are not run again
    done = subprocess.run([sys.executable, *args[1:]], env=_env(), cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert (out / "boston_table1.json").read_bytes() == uninterrupted
    assert not partial.exists()


def test_a_kept_partial_run_is_neither_dropped_nor_resumed_unasked(tmp_path):
    partial = tmp_path / "r.partial.json"
    store.save_json({"config": {"a": 1}, "jobs": {"0": {"result": {"x": 1.5}, "seconds": 1.0}}}, partial)
    calls = []

    def job(i):
        calls.append(i)
        return {"x": float(i)}

    with pytest.raises(FileExistsError, match="--resume"):
        runner.run_splits([0, 1], job, config={"a": 1}, partial=partial)
    with pytest.raises(FileExistsError, match="another configuration"):
        runner.run_splits([0, 1], job, config={"a": 2}, partial=partial, resume=True)
    results, _ = runner.run_splits([0, 1], job, config={"a": 1}, partial=partial, resume=True)
    assert calls == [1] and results == {0: {"x": 1.5}, 1: {"x": 1.0}}
    results, _ = runner.run_splits([0, 1], job, config={"a": 1}, partial=partial, force=True)
    assert calls == [1, 0, 1] and results == {0: {"x": 0.0}, 1: {"x": 1.0}}


def test_a_stored_table_of_another_configuration_is_not_replaced_without_force(tmp_path, uninterrupted):
    out = tmp_path / "boston_table1.json"
    out.write_bytes(uninterrupted)
    other = [a if a != "--n-restarts" else a for a in TINY]
    other[other.index("--n-restarts") + 1] = "1"
    with pytest.raises(SystemExit, match="another configuration; pass --force"):
        t1.main(other + ["--outdir", str(tmp_path)])
    assert out.read_bytes() == uninterrupted
    assert not list(tmp_path.glob("*.partial.json"))  # refused before any work
    # the same configuration may rewrite it (it re-derives the same bytes): checked, not run here
    runner.check_output(out, json.loads(uninterrupted)["config"])
    with pytest.raises(FileExistsError):
        runner.check_output(out, {**json.loads(uninterrupted)["config"], "n_restarts": 1})
    runner.check_output(out, {}, force=True)


def test_a_quick_run_defaults_outside_figures():
    assert t1.output_dir(t1.TableConfig()) == store.FIGURES_DIR
    assert t1.output_dir(t1.TableConfig(n_splits=2)) == store.SCRATCH_DIR
    assert store.SCRATCH_DIR.parent.name == "build"  # git-ignored


def test_a_writer_killed_mid_write_leaves_the_old_file_intact(tmp_path):
    path = tmp_path / "r.json"
    store.save_json({"old": list(range(100))}, path)
    before = path.read_bytes()
    started = tmp_path / "started"
    code = textwrap.dedent(f"""
        import time
        from pathlib import Path
        from ensemble_lib.studies import store

        def slow(f):
            f.write(b'{{"new": [')
            f.flush()
            Path({str(started)!r}).touch()
            time.sleep(60)

        store.write_atomically({str(path)!r}, slow)
    """)
    proc = subprocess.Popen([sys.executable, "-c", code], env=_env(), cwd=ROOT)
    deadline = time.monotonic() + 120
    while not started.exists():
        assert proc.poll() is None and time.monotonic() < deadline
        time.sleep(0.02)
    proc.kill()  # SIGKILL: no handler, no cleanup runs
    proc.wait(timeout=30)
    assert path.read_bytes() == before
    assert json.loads(path.read_text()) == {"old": list(range(100))}


def test_a_figure_changed_only_by_floating_point_is_kept(tmp_path):
    stored = tmp_path / "t.csv"
    stored.write_text("kl,n\n0.368880,3\n")
    made = tmp_path / "m.csv"
    made.write_text("kl,n\n0.368881,3\n")  # one unit in the 6th figure: another CPU's rounding
    assert not store.replace_if_changed(made, stored)
    assert stored.read_text() == "kl,n\n0.368880,3\n" and not made.exists()
    made.write_text("kl,n\n0.368890,3\n")  # a changed result
    assert store.replace_if_changed(made, stored)
    assert stored.read_text() == "kl,n\n0.368890,3\n" and not made.exists()


def test_the_figures_command_leaves_a_copy_of_figures_unchanged(tmp_path):
    """Lessons 1 and 7's writers (toy_kl_table.csv, mixture_fits.png: the files another CPU rewrote)
    over a copy of figures/: every file keeps its bytes, and no temporary file is left. Under
    ``make test-lowest`` the oldest declared matplotlib rasterises with its own byte-level differences
    (tests/_committed.py), so there the first run may replace the PNG and a second run must not."""
    import hashlib

    def digests():
        return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in copy.iterdir()}

    copy = tmp_path / "figures"
    shutil.copytree(store.FIGURES_DIR, copy)
    if os.environ.get("ENSEMBLE_TEST_LOWEST") == "1":
        figures.write_all(copy, only=["toy_posterior", "mixture"])
    before = digests()
    written = figures.write_all(copy, only=["toy_posterior", "mixture"])
    assert {"toy_kl_table.csv", "mixture_fits.png"} <= {p.name for p in written}
    after = digests()
    assert after == before, f"rewritten: {sorted(n for n in after if after[n] != before.get(n))}"


def test_the_tiny_table_on_a_local_dask_cluster_equals_the_in_process_run(tmp_path):
    distributed = pytest.importorskip("distributed")
    tiny = TINY[:TINY.index("--n-splits") + 1] + ["2"] + TINY[TINY.index("--n-splits") + 2:]
    t1.main(tiny + ["--outdir", str(tmp_path / "here")])
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        t1.main(tiny + ["--outdir", str(tmp_path / "dask"), "--backend", "dask",
                        "--scheduler", cluster.scheduler_address])
    assert ((tmp_path / "dask" / "boston_table1.json").read_bytes()
            == (tmp_path / "here" / "boston_table1.json").read_bytes())


def _blas_threads(_key):
    """The BLAS threads a job sees (the largest over the BLAS libraries loaded)."""
    from threadpoolctl import threadpool_info
    return max(i["num_threads"] for i in threadpool_info() if i.get("user_api") == "blas")


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_every_job_runs_with_one_blas_thread_whatever_n_jobs(n_jobs):
    """So a split's bits do not depend on --jobs: in this process (n_jobs = 1), even where BLAS has
    two threads (OpenBLAS then sums in another order), and in the worker processes."""
    from threadpoolctl import threadpool_limits
    with threadpool_limits(limits=2, user_api="blas"):
        assert _blas_threads(None) == 2 or (os.cpu_count() or 1) < 2
        results, _ = runner.run_splits([0, 1], _blas_threads, config={}, partial=None, n_jobs=n_jobs)
    assert results == {0: 1, 1: 1}


def test_a_ctrl_c_while_threadpoolctl_looks_for_libraries_is_not_lost(monkeypatch):
    """threadpoolctl < 3.8 looks for the loaded libraries on Linux through a C callback
    (``dl_iterate_phdr``); a KeyboardInterrupt raised inside one is printed as "Exception ignored"
    and lost (a CI run on the lowest declared versions: the interrupted study ran to its end). Here a
    real SIGINT comes inside a real ctypes callback during that search, whatever the version: the
    limit must raise KeyboardInterrupt once the search is over."""
    import ctypes
    import signal

    from threadpoolctl import ThreadpoolController

    search = ThreadpoolController._load_libraries

    def interrupted_search(self):
        def inside_c():
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(100_000):  # Python runs its handler here, inside the callback
                pass
        ctypes.CFUNCTYPE(None)(inside_c)()
        return search(self)

    monkeypatch.setattr(ThreadpoolController, "_load_libraries", interrupted_search)
    # Python's own Ctrl-C handler, as a study command has it (a pytest-xdist worker may ignore SIGINT)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with runner.limit_threads(1):
                pytest.fail("the limit was entered: the Ctrl-C was lost")
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # put back
    finally:
        signal.signal(signal.SIGINT, before)


@pytest.mark.parametrize("kwargs,name", [({"limits": 0}, "limits"), ({"limits": 1.5}, "limits"),
                                         ({"user_api": "cuda"}, "user_api")])
def test_limit_threads_refuses_bad_arguments_by_name(kwargs, name):
    with pytest.raises(ValueError, match=name):
        runner.limit_threads(**kwargs)


def test_ray_is_refused_with_the_reason(tmp_path):
    with pytest.raises(ValueError, match="Ray's joblib backend cannot return results as they finish"):
        runner.run_splits([0], float, config={}, partial=None, backend="ray")
    with pytest.raises(ValueError, match="scheduler"):
        runner.run_splits([0], float, config={}, partial=None, backend="dask")
    with pytest.raises(ValueError, match="backend"):
        runner.run_splits([0], float, config={}, partial=None, backend="threads")


def test_the_other_study_commands_refuse_to_replace_another_configurations_result(tmp_path):
    shutil.copy(store.FIGURES_DIR / ms.RESULT_FILE, tmp_path / ms.RESULT_FILE)
    before = (tmp_path / ms.RESULT_FILE).read_bytes()
    with pytest.raises(SystemExit, match="another configuration; pass --force"):
        ms.main(["--run", "--n-splits", "1", "--outdir", str(tmp_path)])
    assert (tmp_path / ms.RESULT_FILE).read_bytes() == before


def test_the_command_line_progress_is_a_tqdm_bar_with_each_finished_split_above_it():
    out = io.StringIO()
    bar = store.TqdmProgress("splits", file=out)
    bar(1, 4)  # a resumed run: one split kept
    bar(2, 4, what="split 1: done")
    bar(4, 4, what="split 3: done")
    text = out.getvalue()
    assert "split 1: done\n" in text and "split 3: done\n" in text
    assert "4/4" in text and bar.bar is None  # closed at the end


def test_a_one_file_store_is_written_once_and_replaced_only_when_asked(tmp_path):
    """store_once: a missing file is made; one of the same configuration is re-derived in place; one of
    another configuration, or (config=None) any existing file of a store that records none, stays
    byte for byte and the work is not started, until force."""
    calls = []

    def make():
        calls.append(1)
        return {"config": {"n": 1}, "value": len(calls)}

    path = tmp_path / "one.json"
    runner.store_once(path, "one.json", {"n": 1}, make, store.save_json)
    runner.store_once(path, "one.json", {"n": 1}, make, store.save_json)  # same configuration: re-derived
    assert json.loads(path.read_text())["value"] == 2
    before = path.read_bytes()
    with pytest.raises(FileExistsError, match="another configuration; pass --force"):
        runner.store_once(path, "one.json", {"n": 2}, make, store.save_json)
    with pytest.raises(FileExistsError, match="records no configuration.*--force.*--outdir"):
        runner.store_once(path, "one.json", None, make, store.save_json, elsewhere="--outdir")
    assert path.read_bytes() == before and len(calls) == 2
    runner.store_once(path, "one.json", None, make, store.save_json, force=True)
    assert json.loads(path.read_text())["value"] == 3


@pytest.mark.parametrize("module, argv", [("toy_hmc", []), ("classification_demo", ["--only", "fig9"]),
                                          ("toy_evidence_grid", ["--out", "{tmp}/grid.json"])])
def test_the_one_file_commands_refuse_to_replace_a_stored_file_unasked(tmp_path, module, argv):
    """The commands behind lessons 3, 8 and 9's stores leave an existing file alone (exit status 1,
    the option that replaces it named) before doing any work."""
    if module == "toy_evidence_grid":
        (tmp_path / "grid.json").write_text(json.dumps({"config": {"other": True}}))
    else:
        shutil.copytree(store.FIGURES_DIR, tmp_path / "figures", ignore=shutil.ignore_patterns("*.png"))
        argv = argv + ["--outdir", str(tmp_path / "figures")] if module == "classification_demo" else \
            argv + ["--out", str(tmp_path / "figures" / "monte_carlo_toy.npz")]
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    done = subprocess.run([sys.executable, "-m", f"ensemble_lib.studies.{module}", *argv], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "--force" in done.stderr
    assert before == {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
