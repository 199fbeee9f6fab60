"""Every converted long study keeps what it finishes (ensemble_lib.studies.runner), as Table 1 does.

For model_size, pruning_evidence and hmc_reference, on a tiny configuration:

* a run interrupted (Ctrl-C, a KeyboardInterrupt in the second split) keeps its first split, exits
  with status 130 naming the resume command, and ``--resume`` writes the uninterrupted run's bytes
  without running the kept split again;
* a stored result of another configuration is not replaced without ``--force`` (refused before any
  work), and a kept partial run is neither dropped nor resumed unasked;
* a quick or partial run writes to ``build/studies/`` by default, the published one to ``figures/``.

(test_runner.py interrupts Table 1 with a real SIGINT in a subprocess; here the interruption is
raised in this process at a chosen split, so it is deterministic and cheap.)
"""

from __future__ import annotations

import json

import pytest

from ensemble_lib.studies import hmc_reference as hmc
from ensemble_lib.studies import model_size as ms
from ensemble_lib.studies import pruning_evidence as pe
from ensemble_lib.studies import runner, store
from ensemble_lib.studies.splits import TableConfig

#: module, the function one split calls (patched to interrupt), the tiny run's arguments, the file,
#: and arguments that make another configuration
STUDIES = {
    "model_size": (ms, "run_split",
                   ["--run", "--datasets", "diabetes", "--n-splits", "2", "--hidden", "1", "--n-train", "40",
                    "--n-restarts", "1", "--committee-restarts", "1", "--jobs", "1"],
                   ms.RESULT_FILE, ["--n-restarts", "2"]),
    "pruning_evidence": (pe, "run_split",
                         ["--run", "--n-splits", "2", "--n-hidden", "1", "--max-steps", "3", "--n-train", "40",
                          "--n-restarts", "1", "--jobs", "1"],
                         pe.RESULT_FILE, ["--max-steps", "2"]),
    "hmc_reference": (hmc, "run_reference_split",
                      ["--quick", "--datasets", "diabetes", "--n-splits", "2", "--num-warmup", "60",
                       "--num-samples", "60"],
                      hmc.REFERENCE_FILE.format(dataset="diabetes"), ["--num-samples", "80"]),
}


def _with(args, extra):
    """``args`` with the options of ``extra`` replaced (or added)."""
    args = list(args)
    for opt, val in zip(extra[::2], extra[1::2]):
        if opt in args:
            args[args.index(opt) + 1] = val
        else:
            args += [opt, val]
    return args


@pytest.fixture(scope="module", params=list(STUDIES))
def study(request, tmp_path_factory):
    """A study's tiny run, uninterrupted: (name, its bytes)."""
    name = request.param
    module, _, args, result_file, _ = STUDIES[name]
    out = tmp_path_factory.mktemp(name)
    module.main(args + ["--outdir", str(out)])
    assert not list(out.glob("*.partial.json"))  # removed once the result is written
    return name, (out / result_file).read_bytes()


def test_an_interrupted_run_keeps_its_first_split_and_resumes_to_the_same_bytes(study, tmp_path, monkeypatch,
                                                                                  capsys):
    name, whole = study
    module, split_fn, args, result_file, _ = STUDIES[name]
    real = getattr(module, split_fn)
    calls = []

    def interrupted_at_the_second_split(*a, **k):
        calls.append(a)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(*a, **k)

    monkeypatch.setattr(module, split_fn, interrupted_at_the_second_split)
    with pytest.raises(runner.Interrupted) as stop:
        module.main(args + ["--outdir", str(tmp_path)])
    assert stop.value.code == runner.INTERRUPTED
    partial = runner.partial_path(tmp_path / result_file)
    kept = json.loads(partial.read_text())["jobs"]
    assert len(kept) == 1 and not (tmp_path / result_file).exists()
    err = capsys.readouterr().err
    assert f"1 of 2 split(s) kept in {partial}" in err
    command = err.split("resume with:\n")[1].splitlines()[0]
    assert command.endswith("--resume") and f"ensemble_lib.studies.{name}" in command

    # not resumed unasked, nor dropped
    with pytest.raises(SystemExit, match="--resume"):
        module.main(args + ["--outdir", str(tmp_path)])
    calls.clear()
    module.main(args + ["--outdir", str(tmp_path), "--resume"])
    assert len(calls) == 1  # only the split not kept ran again
    assert (tmp_path / result_file).read_bytes() == whole
    assert not partial.exists()


def test_a_stored_result_of_another_configuration_is_not_replaced_without_force(study, tmp_path, monkeypatch):
    name, whole = study
    module, split_fn, args, result_file, other = STUDIES[name]
    (tmp_path / result_file).write_bytes(whole)

    def refuse(*a, **k):
        raise AssertionError("the guard let a split start")

    monkeypatch.setattr(module, split_fn, refuse)
    with pytest.raises(SystemExit, match="another configuration; pass --force"):
        module.main(_with(args, other) + ["--outdir", str(tmp_path)])
    assert (tmp_path / result_file).read_bytes() == whole
    assert not list(tmp_path.glob("*.partial.json"))  # refused before any work
    with pytest.raises(AssertionError, match="the guard let a split start"):  # --force goes on
        module.main(_with(args, other) + ["--outdir", str(tmp_path), "--force"])


def test_the_stored_results_pass_their_own_guard():
    """The published configurations are those of the files in figures/ (so a rerun may rewrite them)."""
    runner.check_output(store.FIGURES_DIR / ms.RESULT_FILE, ms.ModelSizeConfig().as_dict())
    runner.check_output(store.FIGURES_DIR / pe.RESULT_FILE, pe.PruningConfig().as_dict())
    for name in ("boston", "diabetes"):
        runner.check_output(store.FIGURES_DIR / hmc.REFERENCE_FILE.format(dataset=name),
                            hmc.reference_config(name, TableConfig(), hmc.FULL_SAMPLER),
                            config_of=hmc.stored_reference_config)
    runner.check_output(store.FIGURES_DIR / hmc.DEMO_FILE, {"sampler": hmc.DEMO_SAMPLER.as_dict(), "seed": 0},
                        config_of=hmc.stored_demo_config)


def test_a_quick_or_partial_run_defaults_outside_figures(monkeypatch):
    assert ms.output_dir(ms.ModelSizeConfig()) == store.FIGURES_DIR
    assert ms.output_dir(ms.ModelSizeConfig(n_splits=1)) == store.SCRATCH_DIR
    assert ms.output_dir(ms.ModelSizeConfig(), ["boston"]) == store.SCRATCH_DIR
    assert pe.output_dir(pe.PruningConfig()) == store.FIGURES_DIR
    assert pe.output_dir(pe.PruningConfig(max_steps=3)) == store.SCRATCH_DIR
    # hmc_reference --quick (and any changed setting) writes to build/studies/, checked without sampling
    seen = []
    monkeypatch.setattr(hmc, "check_output", lambda path, *a, **k: seen.append(path.parent))
    monkeypatch.setattr(hmc, "run_reference", lambda *a, **k: (_ for _ in ()).throw(SystemExit("stop")))
    for argv in (["--quick"], ["--n-splits", "2"], ["--num-chains", "2"], []):
        with pytest.raises(SystemExit, match="stop"):
            hmc.main(argv + ["--datasets", "boston"])
    assert seen == [store.SCRATCH_DIR] * 3 + [store.FIGURES_DIR]
