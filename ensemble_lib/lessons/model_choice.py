"""Lesson 6: choosing the model — evidence, the strict lower bound, ARD, pruning, committees, priors.

MacKay (1995), "Probable networks", §1.5–1.8 (Occam factors), §3.2 (classes), §4 (eq. 30),
§4.1 (H! 2^H), §5.3 (committees), §6 (pruning), §7 (ARD), §8 (priors over functions);
Barber & Bishop (1998) §2.2 (F*, a strict lower bound on ln P(D)).

* :func:`polynomial_occam`: Occam's razor where everything is exact — polynomial models of
  degree 0 … 7 (linear in the weights) with Gamma hyperpriors: the exact ln P(D) (quadrature over
  ln α, ln β; :func:`~ensemble_lib.inference.model_comparison.exact_log_evidence`), MacKay's
  MacKay (30) and the ensemble's bound F* (full covariance, :func:`~ensemble_lib.fit_ensemble`);
* :func:`toy_occam`: the 2-weight toy at fixed α, β: exact ln P(D|α,β) by quadrature, Laplace's
  (20) with the mirror factor 2, and the full-covariance bound F;
* :func:`size_rows`, :func:`plot_model_size`, :func:`plot_ard`, :func:`committee_rows`: the
  stored study (``figures/model_size.json``, :mod:`ensemble_lib.studies.model_size`);
* :func:`pruning_demo`: MacKay §6 on a small network, beside OBD and a refit;
  :func:`pruning_study_rows`, :func:`plot_pruning_study`: the stored Boston pruning study
  (``figures/pruning_evidence.json``, :mod:`ensemble_lib.studies.pruning_evidence`);
* :class:`NoiseInputsPanel` (:func:`noise_ard`): ARD of a linear model on Boston with a slider for
  the number of pure-noise inputs appended (MacKay §7);
* :func:`hyper_error_bar_demo`: MacKay §5.2.2's extra predictive variance beside the exact
  integration over ln α, ln β (:func:`integrated_predictive`);
* :class:`PriorFunctionsPanel`: functions drawn from the prior for H and each class's width;
* :func:`write_figures`: ``model_size.png``, ``ard_boston.png``, ``occam_polynomial.png``,
  ``hyper_error_bars.png``, ``pruning_evidence.png``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..core import validation as check
from ..inference.ard import network_classes, sample_prior_functions
from ..inference.evidence import evidence_reestimation, laplace_evidence
from ..inference.hyperparameters import GammaHyperprior, HyperparameterConvergenceWarning
from ..inference.kl_fit import kl_fit
from ..inference.laplace import laplace_fit
from ..inference.model_comparison import (SubsetPosterior, deletion_evidence, exact_log_evidence,
                                          model_log_evidence)
from ..inference.network_fits import fit_ensemble
from ..models.linear import LinearGaussianPosterior
from ..models.network import NetworkPosterior, add_bias
from ..models.toy import make_posterior
from ..ui.panel import FigurePanel
from ..ui.plotting import new_figure, save_figure

#: the hyperpriors of the exact Occam comparison (Barber & Bishop's broad ones)
OCCAM_PRIOR = GammaHyperprior()


# ---------------------------------------------------------------------------
# 1. Occam's razor where everything is exact
# ---------------------------------------------------------------------------


def polynomial_data(n: int = 20, seed: int = 0, noise_sd: float = 0.2):
    """``x`` uniform in (−1, 1), ``t = x − 2x³ + 0.5`` plus N(0, noise_sd²) noise (a cubic)."""
    n = check.integer("n", n, low=3, high=10_000)
    noise_sd = check.positive("noise_sd", noise_sd)
    rng = np.random.default_rng(check.integer("seed", seed, low=0))
    x = rng.uniform(-1.0, 1.0, n)
    return x, x - 2.0 * x**3 + 0.5 + noise_sd * rng.standard_normal(n)


def polynomial_design(x, degree: int) -> np.ndarray:
    """Legendre features P_0(x) … P_degree(x) (well conditioned on (−1, 1))."""
    degree = check.integer("degree", degree, low=0, high=20)
    return np.polynomial.legendre.legvander(np.asarray(x, dtype=float), degree)


@dataclass(frozen=True)
class OccamRow:
    """One model: exact ln P(D), MacKay (30), the bound F*, and their gaps."""

    label: str
    k: int
    log_evidence_exact: float
    log_evidence_laplace: float
    bound: float


@lru_cache(maxsize=4)
def polynomial_occam(degrees: tuple = tuple(range(8)), n: int = 20, seed: int = 0) -> tuple:
    """:class:`OccamRow` per polynomial degree (module docstring), Gamma hyperpriors :data:`OCCAM_PRIOR`."""
    x, t = polynomial_data(n, seed)
    rows = []
    for deg in degrees:
        lin = LinearGaussianPosterior(polynomial_design(x, deg), t, 1.0, 1.0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", HyperparameterConvergenceWarning)
            run = evidence_reestimation(lin, tol=1e-10, exact=False)
        lap = model_log_evidence(run, prior=OCCAM_PRIOR).log_evidence
        exact = exact_log_evidence(lin.with_hyperparameters(alpha=run.alpha_final, beta=run.beta_final),
                                   OCCAM_PRIOR)
        fit = fit_ensemble(lin, OCCAM_PRIOR, "full", init=[(run.final.mean, run.final.cov)], gtol=1e-8)
        rows.append(OccamRow(f"degree {deg}", lin.dim, exact, lap, fit.bound))
    return tuple(rows)


@lru_cache(maxsize=4)
def toy_occam(alphas: tuple = (0.02, 0.2, 2.0, 20.0), seed: int = 25) -> tuple:
    """The toy at fixed α (β = 100): exact ln P(D|α,β), Laplace (20) with factor 2, full-covariance F."""
    rows = []
    for a in alphas:
        post = make_posterior(seed=seed, alpha=a)
        lap = laplace_evidence(post, symmetry_factor=2).log_evidence
        fit = kl_fit(post, "full")
        rows.append(OccamRow(f"α = {a:g}", 2, float(post.log_evidence), lap, fit.bound))
    return tuple(rows)


def format_occam(rows) -> str:
    lines = [f"{'model':<12} {'ln P(D) exact':>14} {'Laplace (30)':>13} {'bound F*':>10} "
             f"{'Laplace-exact':>14} {'exact-F*':>9}"]
    for r in rows:
        lines.append(f"{r.label:<12} {r.log_evidence_exact:14.4f} {r.log_evidence_laplace:13.4f} "
                     f"{r.bound:10.4f} {r.log_evidence_laplace - r.log_evidence_exact:+14.4f} "
                     f"{r.log_evidence_exact - r.bound:9.4f}")
    return "\n".join(lines)


def plot_occam(ax, rows, title: str = "", fixed: bool = False):
    """Exact ln P(D), Laplace and the bound per model; ``fixed``: at fixed α, β (MacKay (20), F)."""
    k = np.arange(len(rows))
    ax.plot(k, [r.log_evidence_exact for r in rows], "k-o",
            label="exact ln P(D|α,β)" if fixed else "exact ln P(D)")
    ax.plot(k, [r.log_evidence_laplace for r in rows], "C1--s",
            label="Laplace, MacKay (20) × 2 modes" if fixed else "Laplace, MacKay (30)")
    ax.plot(k, [r.bound for r in rows], "C0-^", label="bound F (full Q)" if fixed else "bound F*")
    ax.set_xticks(k, [r.label.split()[-1] for r in rows])
    ax.set_ylabel("nats")
    ax.set_title(title)
    ax.legend(loc="best", fontsize=8)


# ---------------------------------------------------------------------------
# 2–4. The stored study
# ---------------------------------------------------------------------------


def size_rows(result: dict, dataset: str) -> list[dict]:
    """Per H: mean ± s.e. over splits (the stored ``summary``) as flat rows."""
    summ = result["datasets"][dataset]["summary"]
    rows = []
    for H in result["config"]["hidden"]:
        s = summ[str(H)]
        rows.append({"H": H, **{k: s[k]["mean"] for k in s}, **{k + "_se": s[k]["se"] for k in s}})
    return rows


def format_size(result: dict, dataset: str) -> str:
    lines = [f"{dataset}: mean over {result['config']['n_splits']} splits",
             f"{'H':>2} {'ln ev (30)':>11} {'Laplace MSE':>12} {'units':>6} {'bound F*':>10} "
             f"{'ens. MSE':>9} {'units':>6}"]
    for r in size_rows(result, dataset):
        lines.append(f"{r['H']:>2} {r['log_evidence']:11.2f} {r['laplace_test_mse']:12.3f} "
                     f"{r['laplace_active_units']:6.1f} {r['bound']:10.2f} {r['ensemble_test_mse']:9.3f} "
                     f"{r['ensemble_active_units']:6.1f}")
    return "\n".join(lines)


def _errorbar(ax, x, rows, key, **kw):
    y = np.array([r[key] for r in rows], dtype=float)
    e = np.array([r[key + "_se"] or 0.0 for r in rows], dtype=float)
    return ax.errorbar(x, y, yerr=e, capsize=3, **kw)


def plot_model_size(axes, result: dict, dataset: str) -> None:
    """Left: ln evidence (30) of the best optimum and F* against H; right: test MSE against H."""
    rows = size_rows(result, dataset)
    H = np.array([r["H"] for r in rows])
    ax1, ax2 = axes
    _errorbar(ax1, H, rows, "log_evidence", fmt="C1-s", label="Laplace ln P(D|H), MacKay (30)")
    _errorbar(ax1, H, rows, "bound", fmt="C0-^", label="ensemble bound F*")
    ax1.set_xlabel("hidden units H")
    ax1.set_ylabel("nats")
    ax1.set_title(f"{dataset}: evidence and bound")
    ax1.legend(fontsize=8)
    _errorbar(ax2, H, rows, "laplace_test_mse", fmt="C1-s", label="Laplace (MAP)")
    _errorbar(ax2, H, rows, "ensemble_test_mse", fmt="C0-^", label="ensemble (diagonal)")
    ax2.set_xlabel("hidden units H")
    ax2.set_ylabel("test MSE (standardised)")
    ax2.set_title(f"{dataset}: test error")
    ax2.legend(fontsize=8)


def ard_arrays(result: dict):
    """(input names, α per input per split (S × d), count of splits where noise > every real input)."""
    ard = [s["ard"] for s in result["datasets"]["boston"]["splits"] if "ard" in s]
    names = ard[0]["inputs"]
    return names, np.array([a["alpha"] for a in ard]), sum(a["noise_above_every_real"] for a in ard)


def plot_ard(ax, result: dict) -> None:
    names, A, _ = ard_arrays(result)
    n_noise = result["config"]["n_noise"]
    x = np.arange(len(names))
    med = np.exp(np.mean(np.log(A), axis=0))
    colors = ["C0"] * (len(names) - n_noise) + ["C3"] * n_noise
    ax.bar(x, med, color=colors)
    for row in A:
        ax.plot(x, row, "k.", ms=4)
    cfg = result["config"]
    ceiling = (0.5 * cfg["ard_hidden"] + cfg["prior"]["a"]) * cfg["prior"]["b"]
    ax.axhline(ceiling, color="0.4", ls="--", lw=1, label=f"hyperprior ceiling (k_c/2 + a) b = {ceiling:g}")
    ax.legend(loc="lower left", fontsize=8)
    ax.set_yscale("log")
    ax.set_xticks(x, names, rotation=60, fontsize=8)
    ax.set_ylabel("ᾱ_c (geometric mean; dots: splits)")
    ax.set_title("ARD on Boston: one α per input (red: pure noise)")


def committee_rows(result: dict, hmc: dict | None = None) -> list[dict]:
    """Per split, test MSEs side by side: at the HMC reference's size (H = ``committee_hidden``) the
    best single optimum, the committee of the distinct optima, the ensemble (B&B's diagonal Q) and the
    HMC reference (where stored, same splits); over every H, the best single optimum and the committee."""
    H = result["config"].get("committee_hidden", 4)
    rows = []
    for name, entry in result["datasets"].items():
        ref = {s["index"]: s["test_mse"] for s in (hmc or {}).get(name, {}).get("splits", [])}
        if hmc and name in hmc and hmc[name]["config"]["n_hidden"] != H:
            ref = {}
        for s in entry["splits"]:
            c, f = s.get("committee"), s.get("committee_fixed_size")
            if not (c and f):
                continue
            ens = next(r["ensemble"] for r in s["sizes"] if r["n_hidden"] == H) \
                if H in [r["n_hidden"] for r in s["sizes"]] else None
            rows.append({"dataset": name, "split": s["index"], "H": H,
                         "fixed_best_single": f["best_single"]["test_mse"], "fixed_committee": f["test_mse"],
                         "fixed_members": len(f["members"]), "fixed_runs": f["n_runs"],
                         "ensemble": ens["test_mse"] if ens else None, "hmc": ref.get(s["index"]),
                         "best_single": c["best_single"]["test_mse"], "best_H": c["best_single"]["n_hidden"],
                         "committee": c["test_mse"], "members": len(c["members"])})
    return rows


def format_committees(rows) -> str:
    """The table of :func:`committee_rows`: test MSE; members = distinct optima of the restarts."""
    H = rows[0]["H"] if rows else 4

    def cell(x, width):
        return f"{x:{width}.3f}" if x is not None else f"{'—':>{width}}"

    lines = [f"{'':15} {f'one size, H = {H}':^46}   {'every H = 1…8':^30}",
             f"{'data':<9} {'split':>5} {'best':>7} {'committee':>13} {'ensemble':>9} {'HMC':>7}   "
             f"{'best (H)':>10} {'committee':>16}"]
    for r in rows:
        lines.append(f"{r['dataset']:<9} {r['split']:>5} {cell(r['fixed_best_single'], 7)} "
                     f"{cell(r['fixed_committee'], 6)} ({r['fixed_members']:>2}/{r['fixed_runs']:<2}) "
                     f"{cell(r['ensemble'], 9)} {cell(r['hmc'], 7)}   "
                     f"{cell(r['best_single'], 6)} ({r['best_H']}) {cell(r['committee'], 6)} "
                     f"({r['members']:>2} optima)")
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# 4b. Error bars with uncertain hyperparameters (§5.2.2)
# ---------------------------------------------------------------------------

#: where the error bars are drawn: the data's range (−1, 1) and a little beyond
X_ERRORBARS = np.linspace(-1.3, 1.3, 131)


@dataclass(frozen=True)
class HyperErrorBarDemo:
    """Predictive variances of a polynomial model along ``x`` (MacKay §5.2, §5.2.2, and the truth).

    ``weight_variance`` gᵀA⁻¹g, ``hyper_variance`` MacKay §5.2.2's extra term, ``noise_variance``
    1/β, all at α_MP, β_MP; ``exact_mean``, ``exact_variance``: the predictive distribution
    integrated over the exact posterior of (ln α, ln β) (flat prior in both, grid quadrature), split
    into ``exact_spread`` (the variance of the mean over α, β: what §5.2.2 approximates) and
    ``exact_expected`` (the mean of gᵀA⁻¹g + 1/β over α, β).
    """

    degree: int
    x: np.ndarray
    x_data: np.ndarray
    t_data: np.ndarray
    mean: np.ndarray
    weight_variance: np.ndarray
    hyper_variance: np.ndarray
    noise_variance: float
    exact_mean: np.ndarray
    exact_spread: np.ndarray
    exact_expected: np.ndarray
    gamma: float
    log_alpha_error: float
    log_beta_error: float

    @property
    def variance(self) -> np.ndarray:
        """MacKay §5.2.2's σ_t²."""
        return self.weight_variance + self.hyper_variance + self.noise_variance

    @property
    def exact_variance(self) -> np.ndarray:
        return self.exact_spread + self.exact_expected


def integrated_predictive(post, G, half_width: float = 8.0, n_grid: int = 201):
    """The predictive mean and variance of a linear model integrated over ln α, ln β (flat prior).

    ``p(ln α, ln β | D) ∝ P(D | α, β)`` on a grid of ± ``half_width`` error bars (MacKay (25))
    around the evidence maximum (the posterior's own α, β), trapezoidal rule; at each grid point the
    exact Gaussian predictive of ``y = Gw``: mean ``G w_MP(α, β)``, variance ``G A⁻¹ Gᵀ + 1/β``
    (one eigendecomposition of ΦᵀΦ serves every point). Returns ``(mean, spread, expected)``: the
    mixture's mean, the variance of the means and the mean of the variances.
    """
    from ..inference.model_comparison import _log_evidence_on_grid

    post = check.posterior("post", post)
    if not isinstance(post, LinearGaussianPosterior):
        raise ValueError(f"post must be a LinearGaussianPosterior, got {type(post).__name__}")
    G = check.finite_matrix("G", G, shape="(M, k)")
    if G.shape[1] != post.dim:
        raise ValueError(f"G must have k = {post.dim} columns, got {G.shape[1]}")
    half_width = check.positive("half_width", half_width, upper=20.0)
    n_grid = check.integer("n_grid", n_grid, low=11, high=2001)
    lam, Q = np.linalg.eigh(post.Phi.T @ post.Phi)
    b = Q.T @ (post.Phi.T @ post.t)
    GQ = G @ Q
    gamma = float(np.sum(post.beta * lam / (post.alpha + post.beta * lam)))
    sa, sb = math.sqrt(2.0 / gamma), math.sqrt(2.0 / (post.n_data - gamma))
    la = math.log(post.alpha) + half_width * sa * np.linspace(-1.0, 1.0, n_grid)
    lb = math.log(post.beta) + half_width * sb * np.linspace(-1.0, 1.0, n_grid)
    logp = _log_evidence_on_grid(post, la, lb)
    p = np.exp(logp - logp.max())
    A, B = np.exp(la)[:, None, None], np.exp(lb)[None, :, None]
    D = A + B * lam  # (na, nb, k): eigenvalues of A(α, β)
    mu = np.einsum("mk,ijk->ijm", GQ, B * b / D)
    var = np.einsum("mk,ijk->ijm", GQ**2, 1.0 / D) + 1.0 / B

    def integrate(f):
        return np.trapezoid(np.trapezoid(f, lb, axis=1), la, axis=0)

    norm = integrate(p)
    pw = p[..., None]
    m = integrate(pw * mu) / norm
    return m, integrate(pw * (mu - m) ** 2) / norm, integrate(pw * var) / norm


@lru_cache(maxsize=4)
def hyper_error_bar_demo(degree: int = 3, n: int = 20, seed: int = 0) -> HyperErrorBarDemo:
    """§5.2.2 on the polynomial models of section 1: MacKay's error bars beside the exact integration."""
    from ..inference.model_comparison import hyperparameter_error_bars

    x, t = polynomial_data(n, seed)
    lin = LinearGaussianPosterior(polynomial_design(x, degree), t, 1.0, 1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", HyperparameterConvergenceWarning)
        run = evidence_reestimation(lin, tol=1e-12, exact=False)
    G = polynomial_design(X_ERRORBARS, degree)
    eb = hyperparameter_error_bars(run, G)
    at_mp = lin.with_hyperparameters(alpha=run.alpha_final, beta=run.beta_final)
    m, spread, expected = integrated_predictive(at_mp, G)
    return HyperErrorBarDemo(degree=degree, x=X_ERRORBARS, x_data=x, t_data=t, mean=G @ run.final.mean,
                             weight_variance=eb.weight_variance, hyper_variance=eb.hyper_variance,
                             noise_variance=eb.noise_variance, exact_mean=m, exact_spread=spread,
                             exact_expected=expected, gamma=run.gamma_final,
                             log_alpha_error=run.log_alpha_error, log_beta_error=run.log_beta_error)


def format_hyper_error_bars(demos) -> str:
    """Per model: γ, the error bars (25), and the variances inside the data and at the ends."""
    lines = [f"{'model':<9} {'gamma':>6} {'s_lna':>6} {'s_lnb':>6} {'where':<11} {'g^T A^-1 g':>11} "
             f"{'MacKay extra':>12} {'1/beta':>8} {'exact spread':>12} {'exact total/MacKay':>18}"]
    for d in demos:
        inside = np.abs(d.x) <= 1.0
        for where, sel in (("|x| <= 1", inside), ("x = -1.3", d.x == d.x[0]), ("x = +1.3", d.x == d.x[-1])):
            lines.append(
                f"{'degree ' + str(d.degree):<9} {d.gamma:6.2f} {d.log_alpha_error:6.3f} {d.log_beta_error:6.3f} "
                f"{where:<11} {np.mean(d.weight_variance[sel]):11.4g} {np.mean(d.hyper_variance[sel]):12.4g} "
                f"{d.noise_variance:8.4g} {np.mean(d.exact_spread[sel]):12.4g} "
                f"{np.mean(d.exact_variance[sel] / d.variance[sel]):18.3f}")
    return "\n".join(lines)


def plot_hyper_error_bars(axes, demo: HyperErrorBarDemo) -> None:
    """Left: the data, the mean and ±2 s.d. bands; right: each variance term against x (log scale)."""
    ax1, ax2 = axes
    sd0 = np.sqrt(demo.weight_variance + demo.noise_variance)
    ax1.fill_between(demo.x, demo.exact_mean - 2 * np.sqrt(demo.exact_variance),
                     demo.exact_mean + 2 * np.sqrt(demo.exact_variance), color="0.85",
                     label="±2 s.d., integrated over ln α, ln β")
    ax1.plot(demo.x, demo.mean + 2 * sd0, "C0-", lw=1, label="±2 s.d. at α_MP, β_MP (MacKay §5.2)")
    ax1.plot(demo.x, demo.mean - 2 * sd0, "C0-", lw=1)
    sd = np.sqrt(demo.variance)
    ax1.plot(demo.x, demo.mean + 2 * sd, "C3--", lw=1, label="±2 s.d. with MacKay §5.2.2's term")
    ax1.plot(demo.x, demo.mean - 2 * sd, "C3--", lw=1)
    ax1.plot(demo.x, demo.mean, "k-", lw=1)
    ax1.plot(demo.x_data, demo.t_data, "k.", ms=5)
    ax1.set_xlabel("x")
    ax1.set_ylabel("t")
    ax1.set_title(f"degree {demo.degree}: predictive ±2 s.d.")
    ax1.legend(fontsize=7, loc="upper center")
    ax2.semilogy(demo.x, demo.weight_variance, "C0-", label="gᵀA⁻¹g")
    ax2.semilogy(demo.x, demo.hyper_variance, "C3--", label="MacKay §5.2.2 extra")
    ax2.semilogy(demo.x, demo.exact_spread, "C3:", label="exact spread of the mean")
    ax2.semilogy(demo.x, demo.exact_variance - demo.weight_variance - demo.noise_variance, "0.4",
                 label="exact total − (gᵀA⁻¹g + 1/β)")
    ax2.axhline(demo.noise_variance, color="k", lw=0.8, ls="-.", label="1/β")
    ax2.axvspan(-1.3, -1.0, color="0.93", zorder=0)
    ax2.axvspan(1.0, 1.3, color="0.93", zorder=0)
    ax2.set_xlabel("x (shaded: outside the data)")
    ax2.set_ylabel("variance")
    ax2.set_title("the terms of the predictive variance")
    ax2.set_ylim(1e-7, None)
    ax2.legend(fontsize=7, loc="lower center", ncol=2)


def hyper_error_bar_figure(degree: int = 3):
    fig, axes = new_figure(11.0, 4.0, ncols=2)
    plot_hyper_error_bars(axes, hyper_error_bar_demo(degree))
    return fig, axes


# ---------------------------------------------------------------------------
# 3b. ARD with a slider for the number of pure-noise inputs (§7)
# ---------------------------------------------------------------------------

#: the α limit of the re-estimation: an input whose α_c runs to it is switched off
ARD_LIMIT = check.PRECISION_RANGE[1]


@dataclass(frozen=True)
class NoiseARDState:
    """Linear-model ARD on Boston with ``n_noise`` pure-noise inputs appended (MacKay (27), §7).

    ``alphas``, ``gammas``, ``weights``, ``weight_sd``: per input (13 real, then the noise inputs),
    the evidence's α_c, γ_c, w_MP and √(A⁻¹)_ii; ``one_alpha_weights``: w_MP with one α for all;
    test errors of both (standardised targets) and, for reference, both without noise inputs.
    """

    n_noise: int
    seed: int
    names: tuple
    alphas: np.ndarray
    gammas: np.ndarray
    weights: np.ndarray
    weight_sd: np.ndarray
    one_alpha_weights: np.ndarray
    test_mse: float
    one_alpha_test_mse: float
    clean_test_mse: float
    clean_one_alpha_test_mse: float

    @property
    def switched_off(self) -> np.ndarray:
        """Inputs whose α_c ran to the limit (their weights are held at ≈ 0)."""
        return self.alphas >= ARD_LIMIT

    @property
    def n_real(self) -> int:
        return len(self.names) - self.n_noise


@lru_cache(maxsize=512)
def _noise_fit(n_noise: int, seed: int):
    """(ARD state, one-α state, their test MSEs) at the stored hyperparameters."""
    from ..studies import noise_inputs as NI

    stored = NI.load_result()
    config = NI.NoiseInputsConfig(**stored["config"])
    row = stored["fits"][str(seed)][n_noise]
    ard = NI.posterior_at(n_noise, seed, row["alphas"], row["beta"], config)
    one = NI.posterior_at(n_noise, seed, row["one_alpha"]["alpha"], row["one_alpha"]["beta"], config)
    _, Xte = NI.design(n_noise, seed, config)
    y_test = NI.boston_split(config)[4]
    return (ard, one, float(np.mean((Xte @ ard.mean - y_test) ** 2)),
            float(np.mean((Xte @ one.mean - y_test) ** 2)))


def noise_ard(n_noise: int = 3, seed: int = 0) -> NoiseARDState:
    """ARD (one α per input, MacKay (27)) of a linear model on Boston with ``n_noise`` noise inputs.

    A linear model, not the network of the stored study, and its hyperparameters precomputed for
    every setting (``figures/ard_noise_inputs.json``, :mod:`ensemble_lib.studies.noise_inputs`): from
    some starts MacKay's iteration needs thousands of steps, too many for a slider. The weights,
    error bars and test errors at those α_c, β are one Cholesky factorisation each. Beside it the
    same model with one α. ``n_noise`` in [0, 30], ``seed`` (of the noise) in [0, 4].
    """
    from ..studies import noise_inputs as NI

    stored = NI.load_result()
    cfg = stored["config"]
    n_noise = check.integer("n_noise", n_noise, low=0, high=cfg["n_max"])
    seed = check.integer("seed", seed, low=0, high=cfg["n_seeds"] - 1)
    names = NI.boston_split()[0] + tuple(f"n{j + 1}" for j in range(n_noise))
    ard, one, mse, mse1 = _noise_fit(n_noise, seed)
    _, _, mse0, mse01 = _noise_fit(0, seed)
    return NoiseARDState(n_noise=n_noise, seed=seed, names=names, alphas=ard.alphas.copy(),
                         gammas=ard.gammas.copy(), weights=ard.mean.copy(), weight_sd=np.sqrt(np.diag(ard.cov)),
                         one_alpha_weights=one.mean.copy(), test_mse=mse, one_alpha_test_mse=mse1,
                         clean_test_mse=mse0, clean_one_alpha_test_mse=mse01)


#: the most noise inputs the panel appends (the stored table's n_max)
NOISE_MAX = 30


def _feature_names() -> tuple:
    from ..studies.noise_inputs import boston_split

    return boston_split()[0]


def noise_summary(ns: tuple = (1, 3, 5, 10, 20, 30)) -> list[dict]:
    """Per number of noise inputs, over the stored noise seeds: the share of noise inputs switched off,
    how many seeds have every noise α_c above every real α_c (strictly), ARD's test MSE beside one α's."""
    from ..studies.noise_inputs import load_result

    seeds = range(load_result()["config"]["n_seeds"])
    out = []
    for n in ns:
        rows = [noise_ard(n, s) for s in seeds]
        out.append({"n_noise": n, "n_seeds": len(rows),
                    "off": [float(np.mean(r.switched_off[r.n_real:])) for r in rows],
                    "every_noise_above_every_real": sum(bool(r.alphas[r.n_real:].min() > r.alphas[:r.n_real].max())
                                                        for r in rows),
                    "real_off": sorted({nm for r in rows for nm, o in zip(r.names, r.switched_off[: r.n_real]) if o}),
                    "ard_mse": [r.test_mse for r in rows], "one_alpha_mse": [r.one_alpha_test_mse for r in rows]})
    return out


def format_noise_summary(rows) -> str:
    lines = [f"{'noise':>5} {'switched off':>13} {'all noise > all real':>21} {'ARD better':>10} "
             f"{'test MSE ARD':>14} {'test MSE one α':>15}"]
    for r in rows:
        better = sum(a < b for a, b in zip(r["ard_mse"], r["one_alpha_mse"]))
        lines.append(f"{r['n_noise']:>5} {min(r['off']):6.0%}–{max(r['off']):<5.0%} "
                     f"{r['every_noise_above_every_real']:>12} of {r['n_seeds']:<5} {better:>3} of {r['n_seeds']:<3} "
                     f"{min(r['ard_mse']):.3f}–{max(r['ard_mse']):.3f} {min(r['one_alpha_mse']):8.3f}–"
                     f"{max(r['one_alpha_mse']):.3f}")
    real_off = sorted({n for r in rows for n in r["real_off"]})
    lines.append("real inputs switched off in some seed: " + ", ".join(real_off))
    return "\n".join(lines)


class NoiseInputsPanel(FigurePanel):
    """ARD on Boston with a slider for the number of pure-noise inputs appended (MacKay §7).

    Top: each input's α_c (log scale; red: noise; the dashed line is the limit where an input is
    switched off); bottom: its weight w_MP ± 2 s.d. with ARD (dots), and with one α (crosses). The
    axes, ticks and labels never change (a slot per possible input), so only the bars and points
    are redrawn (:attr:`~ensemble_lib.ui.panel.FigurePanel.blit`)."""

    blit = True

    def __init__(self):
        from matplotlib.collections import LineCollection

        fig, (ax1, ax2) = new_figure(8.8, 4.0, nrows=2, sharex=True)
        self.ax1, self.ax2 = ax1, ax2
        n_real = len(_feature_names())
        n_all = n_real + NOISE_MAX
        x = np.arange(n_all)
        self._bars = list(ax1.bar(x, np.ones(n_all), color="C0", width=0.7))
        ax1.axhline(ARD_LIMIT, color="0.4", ls="--", lw=1)
        ax1.text(n_all - 0.5, ARD_LIMIT * 2.5, "limit: switched off", ha="right", va="bottom", fontsize=7,
                 color="0.3")
        ax1.set_yscale("log")
        ax1.set_ylim(1e-1, 1e10)
        ax1.set_ylabel("α_c")
        ax1.set_title("ARD of a linear model on Boston: one α per input (red: pure noise)")
        self._errs = ax2.add_collection(LineCollection(np.zeros((n_all, 2, 2)), colors="C0", linewidths=1))
        self._pts = ax2.plot(x, np.zeros(n_all), "o", ms=3, color="C0", label="w_MP ± 2 s.d., ARD")[0]
        self._one = ax2.plot(x, np.zeros(n_all), "kx", ms=4, label="w_MP, one α")[0]
        ax2.axhline(0.0, color="0.6", lw=0.8)
        ax2.set_ylim(-0.8, 0.8)
        ax2.set_ylabel("weight")
        ax2.legend(fontsize=7, loc="upper right", ncol=2)
        ax2.set_xticks(x, list(_feature_names()) + [f"n{j + 1}" for j in range(NOISE_MAX)], rotation=90,
                       fontsize=7)
        ax2.set_xlim(-0.6, n_all - 0.4)
        s = FigurePanel.slider
        controls = {
            "n_noise": s("pure-noise inputs", 3, 1, NOISE_MAX),
            "seed": s("noise seed", 0, 0, 4),
        }
        super().__init__(controls, fig)

    def animated_artists(self) -> list:
        """The bars, the error bars and the two sets of points."""
        return [*self._bars, self._errs, self._pts, self._one]

    def compute(self, n_noise, seed):
        return noise_ard(n_noise, seed)

    def draw(self, state: NoiseARDState) -> None:
        n = len(state.names)
        for j, bar in enumerate(self._bars):
            bar.set_visible(j < n)
            if j < n:
                bar.set_height(state.alphas[j])
                bar.set_color("C3" if j >= state.n_real else "C0")
        x = np.arange(n)
        lo, hi = state.weights - 2 * state.weight_sd, state.weights + 2 * state.weight_sd
        self._errs.set_segments(np.stack([np.column_stack([x, lo]), np.column_stack([x, hi])], axis=1))
        self._pts.set_data(x, state.weights)
        self._one.set_data(x, state.one_alpha_weights)

    def format_readout(self, state: NoiseARDState) -> str:
        off = state.switched_off
        real_off = [nm for nm, o in zip(state.names[: state.n_real], off[: state.n_real]) if o]
        noise_on = state.alphas[state.n_real:][~off[state.n_real:]]
        kept = (f"; the others have α_c = {', '.join(f'{a:.4g}' for a in np.sort(noise_on))}"
                if noise_on.size else "")
        return (f"{int(np.sum(off[state.n_real:]))} of {state.n_noise} noise inputs switched off "
                f"(α_c at the limit 1e8){kept}; real inputs switched off too: "
                f"{', '.join(real_off) or 'none'}. Test MSE: ARD {state.test_mse:.4f}, one α "
                f"{state.one_alpha_test_mse:.4f} (without noise inputs: {state.clean_test_mse:.4f}, "
                f"{state.clean_one_alpha_test_mse:.4f}).")


# ---------------------------------------------------------------------------
# 5. Pruning by evidence (§6)
# ---------------------------------------------------------------------------


@lru_cache(maxsize=1)
def pruning_demo(seed: int = 7, n: int = 100):
    """An H = 1 network on inputs x0, x1 (relevant) and x2 (pure noise), α = 1, β = 100.

    Returns rows (weight, OBD ½A_ss w_s², OBS saliency, Occam term, §6 change, refit change): the
    change ln P(D|H) − ln P(D|H_s̄) predicted by §6 and found by refitting the reduced network.
    """
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    t = np.tanh(X[:, 0] - 0.5 * X[:, 1] + 0.3) + 0.1 * rng.normal(size=n)
    net = NetworkPosterior(add_bias(X), t, 1, alpha=1.0, beta=100.0)
    st = laplace_evidence(net, start=rng.normal(size=net.dim))
    names = ["u (x0)", "u (x1)", "u (x2, noise)", "u (bias)", "v (output)"]
    rows = []
    for s in range(net.dim):
        d = deletion_evidence(st.mean, st.cov, 1.0 / net.alpha, s, hessian=st.hessian)
        keep = [i for i in range(net.dim) if i != s]
        refit = laplace_fit(SubsetPosterior(net, keep), start=d.new_mean[keep], compute_kl=False)
        rows.append((names[s], d.obd, d.saliency, d.occam, d.evidence_change,
                     st.log_evidence - refit.log_evidence_laplace))
    return tuple(rows)


def format_pruning(rows) -> str:
    lines = [f"{'weight':<14} {'OBD':>9} {'saliency':>9} {'Occam':>7} {'§6 change':>10} {'refit':>9}"]
    for r in rows:
        lines.append(f"{r[0]:<14} {r[1]:9.3f} {r[2]:9.3f} {r[3]:7.3f} {r[4]:10.3f} {r[5]:9.3f}")
    return "\n".join(lines)


def pruning_study_rows(result: dict) -> list[dict]:
    """Per split of the stored Boston pruning study (``figures/pruning_evidence.json``): where §6 says
    stop (``stop``: deletions made), and there, for the evidence's order and OBD's, the refitted log
    evidence and test MSE; the full network's; §6's predicted total change beside the refits'."""
    rows = []
    for s in result["splits"]:
        ev, ob = s["sequences"]["evidence"], s["sequences"]["obd"]
        k = ev["stop_step"]
        if not k:
            continue
        e, o = ev["steps"][k - 1], ob["steps"][k - 1]
        rows.append({"split": s["index"], "k": s["k"], "stop": k, "full_log_evidence": s["log_evidence"],
                     "full_mse": s["test_mse"], "evidence_log_evidence": e["log_evidence"],
                     "evidence_mse": e["test_mse"], "obd_log_evidence": o["log_evidence"], "obd_mse": o["test_mse"],
                     "predicted_total": float(sum(x["predicted_change"] for x in ev["steps"][:k])),
                     "refit_total": float(sum(x["refit_change"] for x in ev["steps"][:k])),
                     "median_step_error": float(np.median([abs(x["predicted_change"] - x["refit_change"])
                                                          for x in ev["steps"][:k]])),
                     "output_weights_deleted": sum(s["weights"][x["weight"]].startswith("v")
                                                   for x in ev["steps"][:k])})
    return rows


def format_pruning_study(rows) -> str:
    lines = [f"{'split':>5} {'deleted':>9} {'ln ev: full':>11} {'evidence':>9} {'OBD':>8} {'MSE: full':>10} "
             f"{'evidence':>9} {'OBD':>7} {'§6 predicted':>13} {'refits':>7}"]
    for r in rows:
        lines.append(f"{r['split']:>5} {r['stop']:>4} of {r['k']:<2} {r['full_log_evidence']:11.2f} "
                     f"{r['evidence_log_evidence']:9.2f} {r['obd_log_evidence']:8.2f} {r['full_mse']:10.3f} "
                     f"{r['evidence_mse']:9.3f} {r['obd_mse']:7.3f} {-r['predicted_total']:+13.2f} "
                     f"{-r['refit_total']:+7.2f}")
    return "\n".join(lines)


def plot_pruning_study(axes, result: dict) -> None:
    """Left: refitted ln evidence against deletions (both orders, every split; ◆ where §6 says stop);
    right: test MSE against deletions."""
    ax1, ax2 = axes
    for s in result["splits"]:
        c = f"C{s['index']}"
        for m, ls in (("evidence", "-"), ("obd", ":")):
            seq = [x for x in s["sequences"][m]["steps"] if "weight" in x]
            n = np.arange(len(seq) + 1)
            ax1.plot(n, [s["log_evidence"]] + [x["log_evidence"] for x in seq], ls, color=c,
                     label=f"split {s['index']}, {'by evidence (§6)' if m == 'evidence' else 'by OBD saliency'}")
            ax2.plot(n, [s["test_mse"]] + [x["test_mse"] for x in seq], ls, color=c)
        k = s["sequences"]["evidence"]["stop_step"]
        if k:
            ax1.plot(k, s["sequences"]["evidence"]["steps"][k - 1]["log_evidence"], "D", color=c, ms=6)
            ax2.plot(k, s["sequences"]["evidence"]["steps"][k - 1]["test_mse"], "D", color=c, ms=6)
    ax1.set_xlabel("weights deleted")
    ax1.set_ylabel("ln P(D|α,β) of the refitted network")
    ax1.set_title("Boston, H = 4: pruning by evidence (—) and by OBD (···)")
    ax1.legend(fontsize=6, ncol=2, loc="lower center")
    ax2.set_xlabel("weights deleted")
    ax2.set_ylabel("test MSE")
    ax2.set_title("test error (◆: §6 says stop)")


def pruning_study_figure(result: dict):
    fig, axes = new_figure(11.0, 4.0, ncols=2)
    plot_pruning_study(axes, result)
    return fig, axes


# ---------------------------------------------------------------------------
# 6. Priors over functions (§8)
# ---------------------------------------------------------------------------

X_PRIOR = np.linspace(-5.0, 5.0, 201)
N_FUNCTIONS = 6


def prior_output_sd(x, sd_in: float, sd_bias: float, sd_out_scaled: float) -> np.ndarray:
    """The prior s.d. of f(x): √(σ_out² H · (2/π) arcsin(s²/(1+s²))), s² = x²σ_in² + σ_bias²,
    with σ_out² H = ``sd_out_scaled``² (independent of H; erf(a/√2) units)."""
    s2 = np.asarray(x, dtype=float) ** 2 * sd_in**2 + sd_bias**2
    return sd_out_scaled * np.sqrt(2.0 / math.pi * np.arcsin(s2 / (1.0 + s2)))


@dataclass(frozen=True)
class PriorState:
    x: np.ndarray
    f: np.ndarray
    sd: np.ndarray
    H: int
    sd_in: float
    sd_bias: float
    sd_out: float
    scale_out: bool


def prior_functions(H, sd_in, sd_bias, sd_out, scale_out: bool = True, seed: int = 0) -> PriorState:
    """``N_FUNCTIONS`` functions of a 1-input network drawn from the prior (26) (layer classes).

    ``sd_out`` is σ_out·√H if ``scale_out`` (MacKay §8: the output scale stays fixed as H grows),
    else σ_out itself (the output grows like √H).
    """
    H = check.integer("H", H, low=1, high=2000)
    sd_in = check.positive("sd_in", sd_in)
    sd_bias = check.positive("sd_bias", sd_bias)
    sd_out = check.positive("sd_out", sd_out)
    scale_out = check.flag("scale_out", scale_out)
    sigma_out = sd_out / math.sqrt(H) if scale_out else sd_out
    alphas = [1.0 / sd_in**2, 1.0 / sd_bias**2, 1.0 / sigma_out**2]
    X = add_bias(X_PRIOR[:, None])
    f = sample_prior_functions(X, H, network_classes(2, H, "layers"), alphas, N_FUNCTIONS,
                               np.random.default_rng(check.integer("seed", seed, low=0)))
    sd = prior_output_sd(X_PRIOR, sd_in, sd_bias, sigma_out * math.sqrt(H))
    return PriorState(X_PRIOR, f, sd, H, sd_in, sd_bias, sd_out, scale_out)


class PriorFunctionsPanel(FigurePanel):
    """Sliders for H and each class's prior s.d. (input weights, hidden biases, output weights):
    functions drawn from the prior, and the ±2 s.d. band of the prior over functions."""

    #: a step redraws the functions, the band and the title; the frame and ticks only when the range
    #: (which follows the functions in nice steps: :meth:`follow_range`) changes
    blit = True

    def __init__(self):
        fig, ax = new_figure(8.0, 4.0)
        self.ax = ax
        self._lines = [ax.plot([], [], lw=1.2)[0] for _ in range(N_FUNCTIONS)]
        self._band = []
        ax.set_xlim(X_PRIOR[0], X_PRIOR[-1])
        ax.set_xlabel("input x")
        ax.set_ylabel("f(x)")
        ax.set_title("H = 1000: functions from the prior")
        # the panel lays its figure out once: lay it out for the widest y tick labels it will show
        # (the smallest output scale, ticks like −0.10), so that f(x) stays inside at every setting
        ax.set_ylim(-0.11, 0.11)
        s = FigurePanel.slider
        controls = {
            "H": s("hidden units H", 10, 1, 400),
            "sd_in": s("σ_in (input weights)", 2.0, 0.1, 40.0, step=0.05, log=True),
            "sd_bias": s("σ_bias (hidden biases)", 2.0, 0.1, 40.0, step=0.05, log=True),
            "sd_out": s("output scale (σ_out √H if scaled)", 1.0, 0.05, 10.0, step=0.05, log=True),
            "scale_out": __import__("ipywidgets").Checkbox(value=True, description="σ_out ∝ 1/√H"),
            "seed": s("seed", 0, 0, 99),
        }
        super().__init__(controls, fig)

    def animated_artists(self) -> list:
        return [*self._band, *self._lines, self.ax.title]

    def background_key(self):
        """The static parts (frame, ticks, labels) follow the y range alone."""
        return self.ax.get_ylim()

    def compute(self, H, sd_in, sd_bias, sd_out, scale_out, seed):
        return prior_functions(H, sd_in, sd_bias, sd_out, scale_out, seed)

    def draw(self, state: PriorState) -> None:
        for line, f in zip(self._lines, state.f):
            line.set_data(state.x, f)
        self._band = self.replace_artists(self._band, lambda: [self.ax.fill_between(
            state.x, -2 * state.sd, 2 * state.sd, color="0.85", zorder=0, label="±2 s.d. of the prior")])
        lim = 1.05 * max(float(np.max(np.abs(state.f))), float(2 * state.sd.max()))
        self.follow_range(self.ax, y=(-lim, lim))
        self.ax.set_title(f"H = {state.H}: functions from the prior")

    def format_readout(self, state: PriorState) -> str:
        mid, at3 = len(state.x) // 2, int(np.argmin(np.abs(state.x - 3.0)))
        mc = float(np.std(state.f[:, mid]))
        return (f"prior s.d. of f(0) = {state.sd[mid]:.4f}, of f(3) = {state.sd[at3]:.4f} (arcsine kernel); "
                f"the {N_FUNCTIONS} draws' s.d. at x = 0: {mc:.4f}. "
                f"σ_out = {state.sd_out / math.sqrt(state.H) if state.scale_out else state.sd_out:.4g}")


# ---------------------------------------------------------------------------
# figures
# ---------------------------------------------------------------------------


def model_size_figure(result: dict):
    fig, axes = new_figure(11.0, 7.0, nrows=2, ncols=2)
    for row, name in zip(axes, [d for d in ("boston", "diabetes") if d in result["datasets"]]):
        plot_model_size(row, result, name)
    return fig, axes


def ard_figure(result: dict):
    fig, ax = new_figure(8.0, 4.0)
    plot_ard(ax, result)
    return fig, ax


def occam_figure():
    fig, axes = new_figure(10.0, 3.8, ncols=2)
    plot_occam(axes[0], polynomial_occam(), "polynomial degree (linear model, N = 20)")
    plot_occam(axes[1], toy_occam(), "toy at fixed α (β = 100)", fixed=True)
    axes[1].set_xlabel("prior precision α")
    axes[0].set_xlabel("degree")
    return fig, axes


def write_figures(outdir) -> list[Path]:
    """``occam_polynomial.png``, ``hyper_error_bars.png``, and from the stored studies ``model_size.png``,
    ``ard_boston.png``, ``pruning_evidence.png``."""
    from ..studies.model_size import load_result

    outdir = Path(outdir)
    out = [save_figure(occam_figure()[0], outdir / "occam_polynomial.png")]
    try:
        result = load_result()
    except FileNotFoundError:
        return out
    out.append(save_figure(hyper_error_bar_figure()[0], outdir / "hyper_error_bars.png"))
    out.append(save_figure(model_size_figure(result)[0], outdir / "model_size.png"))
    if any("ard" in s for s in result["datasets"].get("boston", {}).get("splits", [])):
        out.append(save_figure(ard_figure(result)[0], outdir / "ard_boston.png"))
    try:
        from ..studies.pruning_evidence import load_result as load_pruning

        out.append(save_figure(pruning_study_figure(load_pruning())[0], outdir / "pruning_evidence.png"))
    except FileNotFoundError:
        pass
    return out


__all__ = ["HyperErrorBarDemo", "NOISE_MAX", "NoiseARDState", "NoiseInputsPanel", "OCCAM_PRIOR", "OccamRow",
           "PriorFunctionsPanel", "PriorState", "X_ERRORBARS", "ard_arrays", "ard_figure", "committee_rows",
           "format_committees", "format_hyper_error_bars", "format_noise_summary", "format_occam",
           "format_pruning", "format_pruning_study", "format_size", "hyper_error_bar_demo",
           "hyper_error_bar_figure", "integrated_predictive", "model_size_figure", "noise_ard",
           "noise_summary", "occam_figure", "plot_ard", "plot_hyper_error_bars", "plot_model_size",
           "plot_occam", "plot_pruning_study", "polynomial_data", "polynomial_design", "polynomial_occam",
           "prior_functions", "prior_output_sd", "pruning_demo", "pruning_study_figure", "pruning_study_rows",
           "size_rows", "toy_occam", "write_figures"]
