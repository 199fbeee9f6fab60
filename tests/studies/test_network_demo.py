"""Lesson 4's stored demo fits (``figures/network_demo_fits.npz``, ensemble_lib.studies.network_demo).

* the store holds every setting the panel's controls can take, so no step on the default data fits;
* stored settings are re-derived from the data and settings alone (a fresh :func:`demo_fit`);
* a store made for other data, or none, is not used.
"""

from __future__ import annotations

import dataclasses
import shutil

import numpy as np
import pytest

from ensemble_lib.lessons import networks as demo
from ensemble_lib.studies import network_demo as store
from ensemble_lib.studies.store import FIGURES_DIR


def assert_same_demo_state(got, want, where=""):
    """Two demo fits agree up to what another CPU's floating point changes.

    The bounds and the Laplace evidence are at optima (second order in the optimiser's end
    point): 1e-7 relative. Curves and hyperparameters move at first order with the end point,
    which the network fits fix only to their tolerances (1e-5 in the gradient, 300 iterations
    for a factor fit): 1e-4. Settings, notes and active units exactly.
    """
    for f in dataclasses.fields(want):
        a, b = getattr(got, f.name), getattr(want, f.name)
        if f.name in ("bound", "lap_bound", "lap_log_evidence"):
            assert a == pytest.approx(b, rel=1e-7), (where, f.name)
        elif isinstance(b, (np.ndarray, float)):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-4, err_msg=f"{where} {f.name}")
        else:
            assert a == b, (where, f.name)


def test_the_store_holds_every_setting_of_the_panels_controls(monkeypatch):
    """Every value of every control, in every combination, is stored: a panel never fits."""
    panel = demo.Network1DPanel()

    def refuse(*args, **kwargs):
        raise AssertionError("a step on the default data fitted instead of using the store")

    monkeypatch.setattr(demo.demo_panel, "demo_fit", refuse)  # where the panel looks it up
    c = panel.controls
    exps = np.arange(c["alpha"].min, c["alpha"].max + c["alpha"].step / 2, c["alpha"].step)
    alphas = [c["alpha"].base ** e for e in exps]
    n = 0
    for h in range(c["n_hidden"].min, c["n_hidden"].max + 1):
        for s in range(c["rank"].min, c["rank"].max + 1):
            for adapt in (True, False):
                for alpha in alphas if not adapt else [c["alpha"].value]:
                    state = panel.compute(n_hidden=h, rank=s, alpha=alpha, adapt=adapt)
                    assert (state.n_hidden, state.rank, state.adapt) == (h, s, adapt)
                    n += 1
    assert n == len(store.demo_settings()) == 216


@pytest.mark.parametrize("setting", [(2, 1, None, True), (1, 0, -2.0, False), (4, 2, 1.5, False)],
                         ids=["default", "H1-diagonal-alpha0.01", "H4-s2-alpha31.6"])
def test_stored_settings_rederive_from_the_data_and_the_setting(setting):
    stored = store.load_demo_store()
    h, s, e, adapt = setting
    alpha = 1.0 if adapt else 10.0 ** e
    fresh = store.demo_fit(*store.demo_data(), h, s, alpha, adapt, rng=np.random.default_rng(store.DEMO_SEED))
    assert_same_demo_state(stored[store.memo_key(h, s, alpha, adapt)], fresh, setting)


def test_a_store_for_other_data_or_none_is_not_used(tmp_path):
    assert demo.load_demo_store(tmp_path) == {}  # no file
    arrays = dict(np.load(FIGURES_DIR / demo.DEMO_STORE_FILE, allow_pickle=False))
    assert len(demo.load_demo_store()) == 216
    shutil.copyfile(FIGURES_DIR / demo.DEMO_STORE_FILE, tmp_path / demo.DEMO_STORE_FILE)
    assert len(demo.load_demo_store(tmp_path)) == 216
    arrays["t"] = arrays["t"] + 1e-9
    np.savez_compressed(tmp_path / demo.DEMO_STORE_FILE, **arrays)
    assert demo.load_demo_store(tmp_path) == {}


@pytest.mark.parametrize("n_jobs", [0, -1, 1.5, "2"])
def test_a_bad_number_of_processes_is_a_value_error_naming_it(n_jobs):
    with pytest.raises(ValueError, match="n_jobs"):
        store.compute_store([(1, 0, None, True)], n_jobs=n_jobs)


def test_the_store_records_its_configuration_and_the_panels_arrays_ignore_it():
    """The file records what made it (data, grid, seed, hyperpriors, every setting); the panel's
    loader reads the arrays it knows and leaves the ``config`` entry alone."""
    path = FIGURES_DIR / demo.DEMO_STORE_FILE
    assert store.stored_config(path) == store.store_config()
    assert [tuple(s) for s in store.store_config()["settings"]] == store.demo_settings()


def test_a_stored_file_of_another_configuration_is_not_replaced_without_force(tmp_path, monkeypatch):
    arrays = dict(np.load(FIGURES_DIR / demo.DEMO_STORE_FILE, allow_pickle=False))
    other = {**store.store_config(), "demo_seed": 1}
    arrays["config"] = np.array(__import__("json").dumps(other))
    out = tmp_path / demo.DEMO_STORE_FILE
    np.savez_compressed(out, **arrays)
    before = out.read_bytes()

    def refuse(*args, **kwargs):
        raise AssertionError("the guard let a fit start")

    monkeypatch.setattr(store, "compute_store", refuse)
    with pytest.raises(SystemExit, match="another configuration; pass --force"):
        store.main(["--out", str(out), "--jobs", "1"])
    del arrays["config"]  # a file recording no configuration is not replaced either
    np.savez_compressed(out, **arrays)
    none = out.read_bytes()
    with pytest.raises(SystemExit, match="another configuration"):
        store.main(["--out", str(out), "--jobs", "1"])
    assert out.read_bytes() == none != before
    with pytest.raises(AssertionError, match="the guard let a fit start"):  # --force goes on to fit
        store.main(["--out", str(out), "--jobs", "1", "--force"])


def test_every_image_of_a_mode_becomes_the_same_canonical_state():
    """canonical_state: the 2^H·H! images of one mode (units swapped, a unit's signs flipped) give one
    state, whose network function, α, β and evidence are the original's."""
    import dataclasses
    import itertools

    from ensemble_lib.inference.evidence import EvidenceState
    from ensemble_lib.models.network import add_bias, network_output
    from ensemble_lib.studies.network_demo import canonical_state

    rng = np.random.default_rng(3)
    H, d = 3, 2
    k = H * d + H
    w = rng.normal(size=k)
    A = rng.normal(size=(k, k))
    hess = A @ A.T + np.eye(k)
    base = EvidenceState(alpha=0.3, beta=5.0, mean=w, cov=np.linalg.inv(hess), hessian=hess, gamma=4.0,
                         data_error=1.0, sum_w2=float(w @ w), log_likelihood=-1.0, log_occam=-2.0,
                         log_evidence=-3.0)
    X = add_bias(np.linspace(-3, 3, 7)[:, None])
    ref = canonical_state(base, H)
    assert np.allclose(network_output(ref.mean, X, H), network_output(w, X, H))
    assert np.all(ref.mean[:H * d].reshape(H, d)[:, 0] <= 0)
    assert np.all(np.diff(ref.mean[:H * d].reshape(H, d)[:, 0]) >= 0)
    for perm in itertools.permutations(range(H)):
        for flips in itertools.product((1.0, -1.0), repeat=H):
            P = np.zeros((k, k))
            for new, old in enumerate(perm):
                P[new * d:(new + 1) * d, old * d:(old + 1) * d] = flips[old] * np.eye(d)
                P[H * d + new, H * d + old] = flips[old]
            image = dataclasses.replace(base, mean=P @ w, cov=P @ base.cov @ P.T, hessian=P @ hess @ P.T)
            got = canonical_state(image, H)
            np.testing.assert_allclose(got.mean, ref.mean, atol=1e-12)
            np.testing.assert_allclose(got.cov, ref.cov, atol=1e-10)
            np.testing.assert_allclose(got.hessian, ref.hessian, atol=1e-10)
            assert (got.alpha, got.beta, got.log_evidence) == (base.alpha, base.beta, base.log_evidence)
