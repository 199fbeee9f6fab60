"""Lesson 6, §4b: error bars with uncertain α, β (MacKay "Probable networks" §5.2.2).

:func:`hyper_error_bar_demo` stages, on the polynomial models of :mod:`.occam`, MacKay's extra
predictive variance (:func:`~ensemble_lib.inference.model_comparison.hyperparameter_error_bars`)
beside the exact integration over ln α, ln β
(:func:`~ensemble_lib.inference.model_comparison.integrated_predictive`);
:func:`format_hyper_error_bars`, :func:`plot_hyper_error_bars`, :func:`hyper_error_bar_figure`
show them.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ...inference.evidence import evidence_reestimation
from ...inference.hyperparameters import HyperparameterConvergenceWarning
from ...inference.model_comparison import hyperparameter_error_bars, integrated_predictive
from ...inference.network_fits import fit_evidence
from ...models.linear import LinearGaussianPosterior
from ...models.network import NetworkPosterior, network_jacobian
from ...studies.model_size import ModelSizeConfig, load_split
from ...ui.plotting import new_figure, style
from ...ui.tables import Table
from .occam import polynomial_data, polynomial_design
from ...core import validation as check

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


@lru_cache(maxsize=4)
def hyper_error_bar_demo(degree: int = 3, n: int = 20, seed: int = 0) -> HyperErrorBarDemo:
    """§5.2.2 on the polynomial models of section 1: MacKay's error bars beside the exact integration."""
    degree = check.integer("degree", degree, low=0, high=15)
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


def format_hyper_error_bars(demos) -> Table:
    """Per model: γ, the error bars (25), and the variances inside the data and at the ends (text; an
    HTML table in a notebook)."""
    demos = check.sequence("demos", demos)
    if not demos or not all(isinstance(d, HyperErrorBarDemo) for d in demos):
        raise ValueError(f"demos must be a non-empty sequence of HyperErrorBarDemo (hyper_error_bar_demo()), "
                         f"got {demos!r:.80}")
    rows = []
    for d in demos:
        inside = np.abs(d.x) <= 1.0
        for where, sel in (("|x| <= 1", inside), ("x = -1.3", d.x == d.x[0]), ("x = +1.3", d.x == d.x[-1])):
            rows.append((f"degree {d.degree}", f"{d.gamma:.2f}", f"{d.log_alpha_error:.3f}",
                         f"{d.log_beta_error:.3f}", where, f"{np.mean(d.weight_variance[sel]):.4g}",
                         f"{np.mean(d.hyper_variance[sel]):.4g}", f"{d.noise_variance:.4g}",
                         f"{np.mean(d.exact_spread[sel]):.4g}",
                         f"{np.mean(d.exact_variance[sel] / d.variance[sel]):.3f}"))
    return Table(("model", "gamma", "s_lna", "s_lnb", "where", "g^T A^-1 g", "MacKay extra", "1/beta",
                  "exact spread", "exact total/MacKay"), rows, widths=(-9, 6, 6, 6, -11, 11, 12, 8, 12, 18))


def plot_hyper_error_bars(axes, demo: HyperErrorBarDemo) -> None:
    """Left: the data, the mean and ±2 s.d. bands; right: each variance term against x (log scale)."""
    ax1, ax2 = axes
    sd0 = np.sqrt(demo.weight_variance + demo.noise_variance)
    ax1.fill_between(demo.x, demo.exact_mean - 2 * np.sqrt(demo.exact_variance),
                     demo.exact_mean + 2 * np.sqrt(demo.exact_variance), color="0.85",
                     label="±2 s.d., integrated over ln α, ln β")
    ax1.plot(demo.x, demo.mean + 2 * sd0, **style("map", lw=1), label="±2 s.d. at α_MP, β_MP (MacKay §5.2)")
    ax1.plot(demo.x, demo.mean - 2 * sd0, **style("map", lw=1))
    sd = np.sqrt(demo.variance)
    ax1.plot(demo.x, demo.mean + 2 * sd, **style("hyper_term", lw=1), label="±2 s.d. with MacKay §5.2.2's term")
    ax1.plot(demo.x, demo.mean - 2 * sd, **style("hyper_term", lw=1))
    ax1.plot(demo.x, demo.mean, "k-", lw=1)
    ax1.plot(demo.x_data, demo.t_data, **style("data", ms=3, markevery=None))
    ax1.set_xlabel("x")
    ax1.set_ylabel("t")
    ax1.set_title(f"degree {demo.degree}: predictive ±2 s.d.")
    ax1.legend(fontsize=7, loc="upper center")
    ax2.semilogy(demo.x, demo.weight_variance, **style("map"), label="gᵀA⁻¹g")
    ax2.semilogy(demo.x, demo.hyper_variance, **style("hyper_term"), label="MacKay §5.2.2 extra")
    ax2.semilogy(demo.x, demo.exact_spread, **style("exact"), label="exact spread of the mean")
    ax2.semilogy(demo.x, demo.exact_variance - demo.weight_variance - demo.noise_variance, color="0.4", ls="--",
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
    degree = check.integer("degree", degree, low=0, high=15)
    fig, axes = new_figure(11.0, 4.0, ncols=2)
    plot_hyper_error_bars(axes, hyper_error_bar_demo(degree))
    return fig, axes


@dataclass(frozen=True)
class NetworkErrorBars:
    """§5.2.2 on a Boston network fitted by the evidence (exercise 4 of lesson 6).

    ``bars``: :class:`~ensemble_lib.inference.model_comparison.HyperErrorBars` at the test inputs
    (``.weight_variance`` gᵀA⁻¹g, ``.hyper_variance`` MacKay's extra term, ``.variance`` the whole);
    ``leverage``: each test input's xᵀ(XᵀX)⁻¹x on the training inputs (without the bias column), how
    far it lies from them; ``gamma``, ``log_alpha_error``, ``log_beta_error``: the fit's γ and (25).
    """

    n_hidden: int
    split: int
    bars: object
    leverage: np.ndarray
    gamma: float
    log_alpha_error: float
    log_beta_error: float


@lru_cache(maxsize=2)
def boston_network_error_bars(n_hidden: int = 2, split: int = 0) -> NetworkErrorBars:
    """Fit the Boston network with ``n_hidden`` units on ``split`` of the network-size study by the
    evidence (one restart, MacKay's re-estimation) and evaluate §5.2.2's error bars on its test inputs."""
    n_hidden = check.integer("n_hidden", n_hidden, low=1, high=20)
    split = check.integer("split", split, low=0)
    _, sp, Xtr, Xte = load_split("boston", ModelSizeConfig(), split)
    post = NetworkPosterior(Xtr, sp.y_train, n_hidden, alpha=1.0, beta=1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = fit_evidence(post, np.random.default_rng(1), n_restarts=1, tol=1e-6)
    bars = hyperparameter_error_bars(run, network_jacobian(run.final.mean, Xte, n_hidden))
    Z, Ztr = Xte[:, :-1], Xtr[:, :-1]
    leverage = np.einsum("ij,ij->i", Z, np.linalg.solve(Ztr.T @ Ztr, Z.T).T)
    return NetworkErrorBars(n_hidden, split, bars, leverage, float(run.gamma_final), float(run.log_alpha_error),
                            float(run.log_beta_error))


#: what lesson 6's notebook uses from here (issue 31)
__all__ = ["X_ERRORBARS", "boston_network_error_bars", "format_hyper_error_bars", "hyper_error_bar_demo",
           "hyper_error_bar_figure"]
