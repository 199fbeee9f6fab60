"""Tests of lesson 4's study: the collapsed bound, the fits, Laplace error bars, Table 1, the 1-D demo.

What tests/models/test_network.py already proves (⟨E_D⟩, ⟨f⟩, ⟨f²⟩ against Monte Carlo
and quadrature; every gradient against central differences; the covariance
families at fixed α, β) is not repeated. Here each quantity is compared with
something independent: hyperparameters.full_bound, fit_hyperparameters'
alternation, a 2-D quadrature of the exact toy evidence over (α, β), Monte
Carlo of the linearised network, the linear model's closed form.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from scipy.special import gammaln

from ensemble_lib import LinearGaussianPosterior
from ensemble_lib.inference import network_fits as nf
from ensemble_lib.lessons import networks as demo
from ensemble_lib.studies import table1 as t1
from ensemble_lib.lessons.bound import make_toy
from ensemble_lib.core.gaussian import CovarianceFamily
from ensemble_lib.inference.hyperparameters import (GammaHyperprior,
                                                    HyperparameterConvergenceWarning,
                                                    fit_hyperparameters, full_bound, gamma_updates)
from ensemble_lib.inference.kl_fit import kl_objective
from ensemble_lib.inference.evidence import evidence_reestimation
from ensemble_lib.inference.laplace import laplace_fit
from ensemble_lib.models.network import NetworkPosterior, add_bias, network_jacobian, network_output

from _committed import assert_writes_the_committed_files

PRIOR = GammaHyperprior(a=2.0, b=1.0, c=2.0, d=50.0)  # concentrated: small problems converge fast


@pytest.fixture(scope="module")
def small():
    """H = 2 erf network on 12 noisy points of a sine (k = 6), and a Laplace start."""
    rng = np.random.default_rng(11)
    x = np.linspace(-2, 2, 12)
    t = np.sin(1.3 * x) + 0.1 * rng.normal(size=x.size)
    post = NetworkPosterior(add_bias(x[:, None]), t, 2, alpha=1.0, beta=25.0, n_quad=24)
    lap = laplace_fit(post, start=0.5 * rng.normal(size=post.dim), compute_kl=False)
    return post, lap


def random_gaussian(rng, k, scale=0.2):
    A = scale * rng.normal(size=(k, k)) / math.sqrt(k)
    return rng.normal(size=k), A @ A.T + 0.05 * np.eye(k)


# ---------------------------------------------------------------------------
# the collapsed bound F*(Q) = max_{R,S} F[Q, R, S]
# ---------------------------------------------------------------------------


def test_collapsed_bound_equals_full_bound_at_the_gamma_updates(small):
    post, _ = small
    cb = nf.CollapsedBound(post, PRIOR)
    rng = np.random.default_rng(1)
    for _ in range(3):
        mean, cov = random_gaussian(rng, post.dim)
        R, S = gamma_updates(post, mean, cov, PRIOR)
        assert cb.bound(mean, cov) == pytest.approx(full_bound(post, mean, cov, R, S, PRIOR), abs=1e-9)
        assert cb.hyperparameters(mean, cov) == pytest.approx((R.mean, S.mean), rel=1e-12)
        # any other Gamma R, S gives a smaller F (F* is the maximum over R, S)
        for fac in (0.5, 2.0):
            R2 = type(R)(R.shape * fac, R.scale)
            assert full_bound(post, mean, cov, R2, S, PRIOR) < cb.bound(mean, cov)


def test_collapsed_bound_keeps_its_normaliser_only_while_r_and_u_stay(small):
    """−c_0 is kept once computed (every fit evaluation looks it up); a changed r or u (as a
    subclass with weight classes sets them) is a new key: ln Γ(r + 1) = ln Γ(r) + ln r moves it by −ln r."""
    post, _ = small
    cb = nf.CollapsedBound(post, PRIOR)
    first = cb.log_normalisers
    assert cb.log_normalisers == first
    r = cb.r
    cb.r = r + 1.0
    assert cb.log_normalisers == pytest.approx(first - math.log(r), abs=1e-12)
    cb.r = r
    assert cb.log_normalisers == pytest.approx(first, abs=1e-12)
    cb.u = cb.u + 1.0
    assert cb.log_normalisers == pytest.approx(first - math.log(cb.u - 1.0), abs=1e-12)


def test_collapsed_bound_gradient_matches_central_differences(small):
    post, _ = small
    cb = nf.CollapsedBound(post, PRIOR)
    fam = CovarianceFamily.make("factor", post.dim, 2)
    rng = np.random.default_rng(2)
    theta = fam.pack(*random_gaussian(rng, post.dim))
    f, g = kl_objective(cb, fam, theta)
    h = 1e-5
    fd = np.array([(kl_objective(cb, fam, theta + h * e)[0] - kl_objective(cb, fam, theta - h * e)[0]) / (2 * h)
                   for e in np.eye(theta.size)])
    assert np.linalg.norm(g - fd) / np.linalg.norm(fd) < 1e-6


def test_optimum_matches_the_papers_alternation_on_a_linear_model():
    """fit_ensemble (one run on F*) and fit_hyperparameters (alternating eqs 34, 37, 38) agree."""
    rng = np.random.default_rng(5)
    Phi = rng.normal(size=(15, 3))
    lin = LinearGaussianPosterior(Phi, Phi @ [1.0, -0.5, 0.2] + 0.3 * rng.normal(size=15), 1.0, 1.0)
    alt = fit_hyperparameters(lin, PRIOR, family="full", tol=1e-10, max_iter=500)
    ens = nf.fit_ensemble(lin, PRIOR, "full", init=[(np.zeros(3), np.eye(3))], gtol=1e-9)
    assert alt.converged and ens.converged
    assert ens.alpha == pytest.approx(alt.alpha_final, rel=1e-5)
    assert ens.beta == pytest.approx(alt.beta_final, rel=1e-5)
    assert ens.bound == pytest.approx(alt.bound_final, abs=1e-7)
    np.testing.assert_allclose(ens.mean, alt.mean, atol=1e-6)


def test_each_hyperparameter_step_increases_the_bound_on_a_network(small):
    post, lap = small
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HyperparameterConvergenceWarning)
        run = fit_hyperparameters(post, PRIOR, family="diagonal", max_iter=6,
                                  init=(lap.mean, np.diag(1.0 / np.diag(lap.hessian))))
    tol = 1e-6
    assert np.all(run.bound_after_update >= run.bound - tol)  # the R, S step (eqs 35–38)
    assert np.all(run.bound[1:] >= run.bound_after_update[:-1] - tol)  # the Q step (eq. 34)
    assert run.bound_after_update[-1] > run.bound[0] + 1.0  # and it moved
    # the collapsed fit is at least as good as any point of the alternation
    ens = nf.fit_ensemble(post, PRIOR, "diagonal", init=[(lap.mean, np.diag(1.0 / np.diag(lap.hessian)))])
    assert ens.bound >= run.bound_after_update.max() - 1e-6


def test_factor_families_diagonal_to_full_on_a_fit(small):
    """s = 0 equals diagonal; s = k − 1 reaches full; F* grows with s (warm chain = independent cold fits)."""
    post, lap = small
    start = [(lap.mean, np.diag(1.0 / np.diag(lap.hessian)))]
    diag = nf.fit_ensemble(post, PRIOR, "diagonal", init=start, gtol=1e-8)
    fac0 = nf.fit_ensemble(post, PRIOR, "factor", 0, init=start, gtol=1e-8)
    assert fac0.bound == pytest.approx(diag.bound, abs=1e-7)
    full = nf.fit_ensemble(post, PRIOR, "full", init=[(lap.mean, lap.cov)], gtol=1e-8)
    top = nf.fit_ensemble(post, PRIOR, "factor", post.dim - 1, init=[(full.mean, full.cov)], gtol=1e-8)
    assert top.bound == pytest.approx(full.bound, abs=1e-5)
    bounds, prev = [diag.bound], diag
    for s in (1, 2):
        prev = nf.fit_ensemble(post, PRIOR, "factor", s, warm=prev, rng=np.random.default_rng(s))
        bounds.append(prev.bound)
    # each warm-chain optimum (which starts at the previous one, so cannot end below it) is the one
    # found independently: rank-s fits from cold starts alone (Laplace's diagonal, A⁻¹, the full fit)
    cold_starts = start + [(lap.mean, lap.cov), (full.mean, full.cov)]
    cold = [diag.bound] + [nf.fit_ensemble(post, PRIOR, "factor", s, init=cold_starts).bound
                           for s in (1, 2)]
    np.testing.assert_allclose(bounds, cold, atol=1e-6)
    assert np.all(np.diff(cold) > 0), cold  # the independent optima grow with s
    assert max(cold) <= full.bound + 1e-6
    assert full.bound > diag.bound + 0.01  # the richer family matters on this problem


def test_bound_never_exceeds_the_exact_log_evidence_on_the_toy():
    """F*(Q) ≤ ln P(D) = ln ∫∫ P(D|α,β) p(α) p(β) dα dβ, by 2-D quadrature of the exact toy evidence."""
    toy = make_toy()
    # concentrated hyperpriors (ln α, ln β each with s.d. ≈ 1/√20) keep the quadrature grid small
    prior = GammaHyperprior(a=20.0, b=0.01, c=20.0, d=5.0)
    la = np.linspace(math.log(0.2) - 1.6, math.log(0.2) + 1.6, 17)
    lb = np.linspace(math.log(100.0) - 1.6, math.log(100.0) + 1.6, 17)
    logp = np.empty((lb.size, la.size))
    for j, b in enumerate(lb):
        for i, a in enumerate(la):
            ev = toy.with_hyperparameters(alpha=math.exp(a), beta=math.exp(b)).log_evidence
            # Gamma densities in (ln α, ln β): x^shape e^{−x/scale} / (Γ(shape) scale^shape)
            logp[j, i] = (ev + prior.a * a - math.exp(a) / prior.b - gammaln(prior.a) - prior.a * math.log(prior.b)
                          + prior.c * b - math.exp(b) / prior.d - gammaln(prior.c) - prior.c * math.log(prior.d))
    h = (la[1] - la[0]) * (lb[1] - lb[0])
    m = logp.max()
    assert logp[0].max() < m - 10 and logp[-1].max() < m - 10  # the grid holds the mass
    assert logp[:, 0].max() < m - 10 and logp[:, -1].max() < m - 10
    log_evidence = m + math.log(np.sum(np.exp(logp - m)) * h)
    lap = laplace_fit(toy, compute_kl=False)
    for family in ("diagonal", "full"):
        fit = nf.fit_ensemble(toy, prior, family, init=[(lap.mean, lap.cov)])
        assert fit.bound <= log_evidence
        assert fit.bound > log_evidence - 5.0  # and it is a useful bound, not a trivial one


# ---------------------------------------------------------------------------
# MacKay's evidence with restarts, and the Laplace error bars
# ---------------------------------------------------------------------------


def test_laplace_error_bars_match_monte_carlo_of_the_linearised_network(small):
    post, lap = small
    rng = np.random.default_rng(3)
    Xn = add_bias(np.array([[-3.0], [0.1], [1.7]]))
    mean, var = nf.laplace_error_bars(post, lap.mean, lap.hessian, post.beta, Xn)
    np.testing.assert_allclose(mean, network_output(lap.mean, Xn, 2), atol=1e-14)
    n = 400_000
    W = rng.multivariate_normal(lap.mean, lap.cov, size=n)
    G = network_jacobian(lap.mean, Xn, 2)
    y = mean + (W - lap.mean) @ G.T + rng.normal(size=(n, 3)) / math.sqrt(post.beta)
    sd_of_var = y.var(axis=0) * math.sqrt(2.0 / n)  # standard error of a Gaussian variance
    assert np.all(np.abs(y.var(axis=0) - var) < 4 * sd_of_var)
    assert np.all(np.abs(y.mean(axis=0) - mean) < 4 * np.sqrt(var / n))


def test_fit_evidence_returns_the_best_restart_and_is_reproducible(small):
    post, _ = small
    a = nf.fit_evidence(post, np.random.default_rng(0), n_restarts=3)
    b = nf.fit_evidence(post, np.random.default_rng(0), n_restarts=3)
    assert a.final.log_evidence == b.final.log_evidence
    assert a.symmetry_factor == 8  # H! 2^H for H = 2 (MacKay §4.1)
    # at the fixed point, α = γ/Σw² and β = (N − γ)/2E_D (eqs 22, 24)
    st = a.final
    assert st.alpha == pytest.approx(st.gamma / st.sum_w2, rel=1e-5)
    assert st.beta == pytest.approx((post.n_data - st.gamma) / (2 * st.data_error), rel=1e-5)


def test_fit_evidence_reaches_the_best_mode_of_an_independent_search():
    """H = 3 from broad starts: one of fit_evidence's 3 restarts stalls at a poorer, unconverged point;
    the returned evidence must be the best converged one found by evidence_reestimation itself
    from 6 other starts (a separate generator), not the stalled restart's."""
    rng = np.random.default_rng(11)
    x = np.linspace(-2, 2, 12)
    t = np.sin(1.3 * x) + 0.1 * rng.normal(size=x.size)
    post = NetworkPosterior(add_bias(x[:, None]), t, 3, alpha=1.0, beta=25.0, n_quad=24)
    res = nf.fit_evidence(post, np.random.default_rng(0), n_restarts=3, alpha0=0.1)
    found = [r.final.log_evidence for r in res.restarts]
    assert max(found) - min(found) > 1.0  # the restarts differ: which one is returned matters
    search = np.random.default_rng(2024)
    best = -np.inf
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HyperparameterConvergenceWarning)
        for _ in range(6):
            run = evidence_reestimation(post, alpha0=0.1, beta0=10.0, symmetry_factor=48, exact=False,
                                        start=search.normal(size=post.dim) / math.sqrt(0.1))
            if run.converged:
                best = max(best, run.final.log_evidence)
    assert res.converged
    assert res.final.log_evidence == pytest.approx(best, abs=1e-6)


def test_failed_optimisations_warn_or_raise(small):
    post, lap = small
    with pytest.warns(HyperparameterConvergenceWarning, match="none of the 2 restarts converged"):
        nf.fit_evidence(post, np.random.default_rng(0), n_restarts=2, max_iter=1)
    from ensemble_lib.inference.kl_fit import KLFitWarning

    with pytest.warns(KLFitWarning, match="stopped before converging"):
        nf.fit_family(nf.CollapsedBound(post, PRIOR), "factor", 1,
                      warm=nf.fit_ensemble(post, PRIOR, "diagonal", init=[(lap.mean, lap.cov)]),
                      maxiter=1, rng=np.random.default_rng(0))


def test_bad_input_names_the_argument(small):
    post, lap = small
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="n_hidden must be an integer in"):
        nf.symmetry_factor(0)
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        nf.fit_evidence(post, 0)
    with pytest.raises(ValueError, match="n_restarts must be an integer in"):
        nf.fit_evidence(post, rng, n_restarts=0)
    with pytest.raises(ValueError, match="init .* or warm"):
        nf.fit_ensemble(post, PRIOR, "diagonal")
    with pytest.raises(ValueError, match="rank"):
        nf.fit_ensemble(post, PRIOR, "factor", post.dim, init=[(lap.mean, lap.cov)])
    with pytest.raises(ValueError, match="prior must be a GammaHyperprior"):
        nf.CollapsedBound(post, (1, 2, 3, 4))
    with pytest.raises(ValueError, match="hessian must have shape"):
        nf.laplace_error_bars(post, lap.mean, np.eye(3), 1.0, post.X)
    with pytest.raises(ValueError, match="beta must be a finite number > 0"):
        nf.laplace_error_bars(post, lap.mean, lap.hessian, math.nan, post.X)
    with pytest.raises(ValueError, match="X must contain only finite"):
        nf.laplace_error_bars(post, lap.mean, lap.hessian, 1.0, np.full((2, 2), np.inf))
    with pytest.raises(ValueError, match="n_hidden must be an integer in"):
        t1.TableConfig(n_hidden=0)
    with pytest.raises(ValueError, match="ranks must lie in"):
        t1.run_split(np.random.default_rng(0).normal(size=(30, 2)), np.arange(30.0),
                     t1.TableConfig(n_train=20, n_hidden=1, ranks=(5,), n_restarts=1))
    with pytest.raises(ValueError, match="dataset must be one of"):
        t1.run_table("iris")
    with pytest.raises(ValueError, match="rank must be an integer in"):
        demo.demo_fit(*demo.demo_data(), n_hidden=1, rank=3, alpha=1.0, adapt=False, rng=rng)
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        demo.demo_fit(*demo.demo_data(), **demo.DEMO_DEFAULTS, rng=0)


# ---------------------------------------------------------------------------
# Table 1: the same code path as the command, on a tiny configuration
# ---------------------------------------------------------------------------


TINY = ["--table", "--datasets", "boston", "--n-splits", "2", "--n-train", "40", "--n-hidden", "1",
        "--ranks", "1", "--n-restarts", "2", "--jobs", "1"]
#: the tiny table's ensemble families, poorest first
TINY_FAMILIES = ("ensemble_diagonal", "ensemble_s1", "ensemble_full")


@pytest.fixture(scope="module")
def tiny_out(tmp_path_factory):
    """The tiny table by the command, in two worker processes (its ``--jobs`` path)."""
    out = tmp_path_factory.mktemp("table")
    t1.main(TINY[:-1] + ["2", "--outdir", str(out), "--times", str(out / "times.json")])
    return out


@pytest.fixture(scope="module")
def tiny_table_text(tiny_out):
    return (tiny_out / "boston_table1.json").read_text()


@pytest.fixture(scope="module")
def tiny_rerun(tmp_path_factory):
    """The same command again, in this process (``--jobs 1``): its folder, and every split it
    computed, by (configuration, index), as ``run_split`` returned it."""
    out = tmp_path_factory.mktemp("again")
    splits = {}
    run_split = t1.run_split

    def recording(X, y, config, index, progress=None):
        splits[config, index] = run_split(X, y, config, index, progress)
        return splits[config, index]

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(t1, "run_split", recording)
        t1.main(TINY + ["--outdir", str(out)])
    return out, splits


def test_table_command_gives_identical_json_when_run_twice(tiny_table_text, tiny_out, tiny_rerun):
    """Determinism: the same configuration, once in two worker processes and once in this process,
    gives the same bytes."""
    out, splits = tiny_rerun
    assert len(splits) == 2  # the second run computed both splits itself
    assert (out / "boston_table1.json").read_text() == tiny_table_text
    times = json.loads((tiny_out / "times.json").read_text())
    assert len(times["split_seconds"]["boston"]) == 2 and times["wall_seconds"] > 0
    assert times["n_jobs"] == 2
    assert '"seconds"' not in tiny_table_text  # wall times live in the --times file only


def test_verify_split_rederives_a_stored_split_and_reports_a_changed_number(tiny_out, tiny_rerun, tmp_path,
                                                                           monkeypatch):
    """``verify_split`` re-runs a split from the stored file's configuration and compares every number.

    Its re-run of split 1 is the one the determinism test's second run made (in this process, from
    the command line's configuration; the stored file was made in worker processes): ``run_split``
    answers from that run, and only for the configuration and index it was run with, so the stored
    configuration must read back exactly. Running the split a third time would repeat that run.
    """
    _, splits = tiny_rerun
    asked = []

    def rerun(X, y, config, index):
        asked.append((config, index))
        return splits[config, index]  # a KeyError if the stored configuration did not read back

    monkeypatch.setattr(t1, "run_split", rerun)
    assert t1.verify_split(["boston"], 1, tiny_out) == []
    assert [i for _, i in asked] == [1]
    stored = json.loads((tiny_out / "boston_table1.json").read_text())
    stored["splits"][1]["methods"]["ensemble_s1"]["test_mse"] *= 1.001
    (tmp_path / "boston_table1.json").write_text(json.dumps(stored))
    bad = t1.verify_split(["boston"], 1, tmp_path)
    assert len(bad) == 1 and "ensemble_s1.test_mse" in bad[0]


@pytest.fixture(scope="module")
def tiny_table(tiny_table_text):
    return json.loads(tiny_table_text)


def test_table_command_stores_the_documented_json(tiny_table):
    r = tiny_table
    assert r["config"]["n_train"] == 40 and r["config"]["prior"] == {"a": 0.25, "b": 400.0, "c": 0.05, "d": 2000.0}
    assert r["config"]["ranks"] == [1] and r["config"]["n_restarts"] == 2
    assert set(r["methods"]) == {"laplace_evidence", *TINY_FAMILIES}
    assert r["paper"] == {"ensemble_s1": 0.22, "ensemble_diagonal": 0.28, "laplace_evidence": 0.33}
    assert len(r["splits"]) == 2 and r["splits"][0]["n_test"] == 466
    for key, m in r["methods"].items():
        vals = [s["methods"][key]["test_mse"] for s in r["splits"]]
        assert m["test_mse"]["mean"] == pytest.approx(np.mean(vals))
        assert m["test_mse"]["se"] == pytest.approx(np.std(vals, ddof=1) / math.sqrt(2))
        assert all(np.isfinite([m["bound"]["mean"], m["alpha"]["mean"], m["beta"]["mean"]]))
    assert r["methods"]["laplace_evidence"]["log_evidence"]["mean"] is not None
    assert "race" in r["note"]
    assert "Ensemble (s = 1)" in t1.format_table(r)
    for s in r["splits"]:
        assert s["settled"] and s["rounds"] >= 1
        assert len(s["laplace_restarts"]) == r["config"]["n_restarts"]
        for key, row in s["methods"].items():
            shares = np.asarray(row["unit_shares"])
            assert len(shares) == 1 and row["active_units"] == int(np.sum(shares >= 0.01))
            assert isinstance(row["converged"], bool) and isinstance(row["at_limit"], bool)
        # every family's reported fit is one of its trials, and the best of them
        for key in TINY_FAMILIES:
            tried = [t["bound"] for t in s["trials"] if t["family"] == key]
            assert s["methods"][key]["bound"] in tried and max(tried) <= s["methods"][key]["bound"] + 1e-6


def test_table_ordering_on_the_tiny_configuration(tiny_table):
    """Bounds: diagonal ≤ s = 1 ≤ full and every ensemble ≥ Laplace's Gaussian, on every split;
    every method beats predicting the training mean."""
    for s in tiny_table["splits"]:
        m = s["methods"]
        F = [m[k]["bound"] for k in TINY_FAMILIES]
        assert np.all(np.diff(F) >= -1e-6), F
        assert F[0] >= m["laplace_evidence"]["bound"] - 1e-6
        assert all(v["test_mse"] < s["baseline_mse"] for v in m.values())


def test_run_split_is_reproducible_from_its_seed():
    X = np.random.default_rng(0).normal(size=(40, 2))
    y = np.sin(X[:, 0]) + 0.1 * np.random.default_rng(1).normal(size=40)
    cfg = t1.TableConfig(n_train=20, n_hidden=1, ranks=(1,), full=False, n_restarts=1)
    a, b = t1.run_split(X, y, cfg, 3), t1.run_split(X, y, cfg, 3)
    assert a["methods"] == b["methods"]


# ---------------------------------------------------------------------------
# the 1-D demo (its panel: tests/ui/test_panel.py)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("n_hidden", list(range(demo.H_RANGE[0], demo.H_RANGE[1] + 1)))
def test_slider_sweep_gives_finite_predictions(n_hidden):
    """Every H, the extreme s and α, fixed and adapted: finite means, positive error bars."""
    x, t = demo.demo_data()
    cases = [(demo.S_RANGE[1], 10 ** demo.LOG10_ALPHA_RANGE[0], False), (0, 10 ** demo.LOG10_ALPHA_RANGE[1], False),
             (1, 1.0, True)]
    for rank, alpha, adapt in cases:
        st = demo.demo_fit(x, t, n_hidden, rank, alpha, adapt, n_grid=41,
                           rng=np.random.default_rng(demo.DEMO_SEED))
        for arr in (st.ens_mean, st.ens_sd, st.lap_mean, st.lap_sd):
            assert np.all(np.isfinite(arr))
        assert np.all(st.ens_sd > 0) and np.all(st.lap_sd > 0)
        assert np.isfinite([st.bound, st.lap_bound, st.lap_log_evidence]).all()
        # error bars include the noise: never below 1/√β
        assert np.all(st.ens_sd >= 1 / math.sqrt(st.ens_beta) - 1e-12)


def test_the_default_data_fits_are_shared_and_equal_fresh_fits(monkeypatch):
    """The figure and every panel on the default data share one memo of demo fits (no refit).

    A shared fit (read from the stored fits, ``figures/network_demo_fits.npz``) must be the one a
    fresh :func:`demo_fit` gives for the same settings: checked field by field against a fresh
    fit, up to another CPU's floating point (tests/studies/test_network_demo.py). A panel on other
    data fits its own (it reaches :func:`demo_fit` even though the default setting is in the
    shared memo).
    """
    from studies.test_network_demo import assert_same_demo_state

    _, state = demo.demo_figure()
    panel = demo.Network1DPanel()
    assert panel.compute(**demo.DEMO_DEFAULTS) is state
    fresh = demo.demo_fit(*demo.demo_data(), **demo.DEMO_DEFAULTS, rng=np.random.default_rng(demo.DEMO_SEED))
    assert_same_demo_state(state, fresh, "default setting")

    class Fitted(Exception):
        pass

    def refuse(*args, **kwargs):
        raise Fitted

    monkeypatch.setattr(demo.demo_panel, "demo_fit", refuse)  # where the panel looks it up
    x, t = demo.demo_data()
    with pytest.raises(Fitted):
        demo.Network1DPanel(data=(x, t + 0.5))
    assert demo.Network1DPanel().compute(**demo.DEMO_DEFAULTS) is state  # the default data still share


def test_error_bars_grow_away_from_the_data():
    st = demo.demo_fit(*demo.demo_data(), **demo.DEMO_DEFAULTS, rng=np.random.default_rng(demo.DEMO_SEED))
    mid = st.x_grid.size // 2  # x = 0, in the gap
    edge = 0  # x = −3, beyond the data
    x_data = demo.demo_data()[0]
    i_near = int(np.argmin(np.abs(st.x_grid - x_data[3])))
    for sd in (st.ens_sd, st.lap_sd):
        assert sd[edge] > sd[i_near] and sd[mid] > sd[i_near]


def test_write_figures_writes_the_committed_figures(tmp_path):
    made = assert_writes_the_committed_files(
        demo.write_figures, tmp_path,
        ["network_1d_demo.png", "boston_table1.png", "table1_pruning.png"])
    assert all(x.stat().st_size > 10_000 for x in made)


def test_demo_shows_the_stored_hmc_band_only_where_it_was_sampled():
    """The HMC band (figures/hmc_demo.json) belongs to the default data, H = 2, adapted α, β."""
    from ensemble_lib.ui.plotting import new_figure

    hmc = demo.load_hmc_demo()
    assert hmc is not None and hmc["n_hidden"] == 2 and hmc["adapt"]
    x, t = demo.demo_data()
    fig, ax = new_figure(4, 3)
    plot = demo.demo_panel._DemoPlot(ax, x, t, hmc)
    assert len(plot.hmc_lines) == 3
    base = dict(x_grid=np.linspace(-3, 3, 5), ens_mean=np.zeros(5), ens_sd=np.ones(5),
                lap_mean=np.zeros(5), lap_sd=np.ones(5), ens_alpha=1.0, ens_beta=1.0, lap_alpha=1.0,
                lap_beta=1.0, bound=0.0, lap_bound=0.0, lap_log_evidence=0.0)
    for n_hidden, adapt, shown in ((2, True, True), (3, True, False), (2, False, False)):
        plot.update(demo.DemoState(n_hidden=n_hidden, rank=1, adapt=adapt, **base))
        assert all(line.get_visible() == shown for line in plot.hmc_lines)
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert any("HMC" in lab for lab in labels) == shown
    # other data: no band at all
    assert demo.demo_panel._DemoPlot(new_figure(4, 3)[1], x + 0.1, t, hmc).hmc_lines == []


def test_demo_counts_active_units_from_the_fit():
    st = demo.demo_fit(*demo.demo_data(), **demo.DEMO_DEFAULTS, rng=np.random.default_rng(demo.DEMO_SEED))
    assert 1 <= st.ens_active <= st.n_hidden and 1 <= st.lap_active <= st.n_hidden
    assert f"ensemble {st.ens_active} of {st.n_hidden}" in demo.format_demo_readout(st)
