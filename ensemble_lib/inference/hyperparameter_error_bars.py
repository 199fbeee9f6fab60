"""Error bars with uncertain hyperparameters (MacKay §5.2.2), and their exact integration for a linear model.

MacKay (1995), "Probable networks".

**Error bars with uncertain hyperparameters** (§5.2.2). With the output linearised about the mode,
``y(x, w) ≈ y(x, w_MP) + gᵀ(w − w_MP)``, the predictive variance at fixed α, β is
``gᵀA⁻¹g + 1/β`` (§5.2). Integrating over ln α and ln β with the separable Gaussian of (25) moves
the mean ``y(x, w_MP(α, β))`` and, to leading order in 1/γ, adds its spread:

.. math::
    \\sigma_t^2 = \\mathbf g^T\\big(A^{-1} + (\\sigma^2_{\\ln\\alpha} + \\sigma^2_{\\ln\\beta})
        \\mathbf w'_{MP}\\mathbf w'^T_{MP}\\big)\\mathbf g + \\sigma_\\nu^2,\\qquad
    \\mathbf w'_{MP} = \\partial\\mathbf w_{MP}/\\partial\\ln\\alpha = -\\alpha A^{-1}\\mathbf w_{MP}.

The sensitivities follow from the stationarity ``∇M(w_MP) = 0`` (implicit differentiation):
``∂w_MP/∂ln α_c = −α_c A⁻¹ P_c w_MP`` for a class c (P_c keeps the class's weights) and
``∂w_MP/∂ln β = −β A⁻¹ ∇E_D = A⁻¹ (α ∘ w_MP)``, so with one class ``∂w/∂ln β = −∂w/∂ln α`` and the
two variances add as in MacKay's formula; with several classes each ln α_c contributes
``σ²_{ln α_c}(gᵀ w'_c)²`` (:func:`hyperparameter_error_bars`). MacKay's sign ``+αA⁻¹w`` does not
matter (the term is a square). What the formula leaves out — the change of ``gᵀA⁻¹g`` and of
``1/β`` over the spread of ln α, ln β — is of the same order in 1/γ; lesson 6 shows how large it is
where everything is exact.

The exact counterpart where everything is Gaussian — the predictive of a linear model integrated
over (ln α, ln β) on a grid (:func:`integrated_predictive`) — measures what the formula leaves out.

Symbols → code: g → rows of ``G``; w'_MP → ``sensitivities``; σ_ν² = 1/β → ``noise_variance``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from ..core import validation as check
from ..models.linear import LinearGaussianPosterior
from .class_prior import check_classes
from .model_evidence import log_evidence_on_grid


@dataclass(frozen=True)
class HyperErrorBars:
    """Predictive variances at M inputs (MacKay §5.2, §5.2.2), term by term.

    ``variance = weight_variance + hyper_variance + noise_variance``: ``weight_variance`` is
    gᵀA⁻¹g, ``noise_variance`` 1/β, ``hyper_variance`` the extra Σ_h σ_h² (gᵀ w'_h)² of uncertain
    hyperparameters (``per_hyper[h]`` its share from each; ``names[h]`` says which:
    ``"ln alpha"`` or ``"ln alpha_c"``, then ``"ln beta"``). ``sensitivities[h]`` = ∂w_MP/∂h and
    ``log_errors[h]`` = σ_h (MacKay (25)).
    """

    weight_variance: np.ndarray
    hyper_variance: np.ndarray
    noise_variance: float
    variance: np.ndarray
    per_hyper: np.ndarray
    sensitivities: np.ndarray
    log_errors: np.ndarray
    names: tuple


def mode_sensitivities(state, classes=None) -> np.ndarray:
    """∂w_MP/∂ln α_c for each class and ∂w_MP/∂ln β at a mode (MacKay §5.2.2), rows in that order.

    Differentiating the stationarity condition ``β∇E_D(w_MP) + α ∘ w_MP = 0`` (α ∘ w: each weight
    times its class's α) gives ``∂w_MP/∂ln α_c = −α_c A⁻¹ P_c w_MP`` and
    ``∂w_MP/∂ln β = −βA⁻¹∇E_D = A⁻¹(α ∘ w_MP)`` (their sum is zero: scaling α and β together
    leaves the mode where it is).

    Parameters
    ----------
    state : EvidenceState or ClassEvidenceState
        A Laplace evaluation at the mode (``mean`` w_MP, ``cov`` A⁻¹, ``alpha`` or ``alphas``).
    classes : sequence of index sequences, optional
        The weight classes of ``state.alphas`` (required with a ``ClassEvidenceState``).

    Returns
    -------
    ndarray (n_classes + 1, k)
    """
    if not (hasattr(state, "mean") and hasattr(state, "cov") and hasattr(state, "beta")):
        raise ValueError(f"state must be an EvidenceState or ClassEvidenceState, got {type(state).__name__}")
    w = np.asarray(state.mean, dtype=float)
    C = np.asarray(state.cov, dtype=float)
    k = w.size
    if hasattr(state, "alphas"):
        if classes is None:
            raise ValueError("classes must be given with a ClassEvidenceState (the partition of its alphas)")
        classes = check_classes(classes, k)
        alphas = np.asarray(state.alphas, dtype=float)
        if alphas.size != len(classes):
            raise ValueError(f"classes must have one class per alpha ({alphas.size}), got {len(classes)}")
    else:
        classes, alphas = (np.arange(k),), np.array([float(state.alpha)])
    rows = []
    for a, idx in zip(alphas, classes):
        pw = np.zeros(k)
        pw[idx] = w[idx]
        rows.append(-a * (C @ pw))
    rows.append(-np.sum(rows, axis=0))
    return np.array(rows)


def hyperparameter_error_bars(run, G) -> HyperErrorBars:
    """Predictive error bars with the extra variance of uncertain α, β (MacKay §5.2.2).

    .. math::
        \\sigma_t^2 = \\mathbf g^T A^{-1}\\mathbf g
            + \\textstyle\\sum_h \\sigma_h^2 (\\mathbf g^T\\mathbf w'_h)^2 + 1/\\beta,

    h running over ln α (or each ln α_c) and ln β, σ_h from MacKay (25) (``σ²_{ln α_c} = 2/γ_c``,
    ``σ²_{ln β} = 2/(N − γ)``), ``w'_h = ∂w_MP/∂h`` (:func:`mode_sensitivities`). With one α this
    is MacKay's ``gᵀ(A⁻¹ + (σ²_{ln α} + σ²_{ln β}) w'w'ᵀ)g + σ_ν²``.

    Parameters
    ----------
    run : EvidenceRun or ClassEvidenceRun
        A converged evidence run (:func:`~ensemble_lib.inference.evidence.evidence_reestimation`,
        :func:`~ensemble_lib.inference.ard.class_evidence_reestimation`, ``fit_*evidence``) of any
        regression posterior: only its final state (mode, A⁻¹, α, β, γ) is used.
    G : (M, k) array_like
        The sensitivities g = ∂y/∂w of the outputs at M inputs, at w_MP (for a linear model the
        features φ(x); for a network :func:`~ensemble_lib.models.network.network_jacobian`).

    Raises
    ------
    ValueError
        If ``run`` is not an evidence run, some γ_c ≤ 0 or N − γ ≤ 0 (the error bars (25) are
        undefined, e.g. a class ARD switched off), or ``G`` is not a finite (M, k) matrix.
    """
    if not hasattr(run, "final") or not hasattr(run, "log_beta_error"):
        raise ValueError(f"run must be an evidence run (EvidenceRun or ClassEvidenceRun), "
                         f"got {type(run).__name__}")
    st = run.final
    k = np.asarray(st.mean).size
    G = check.real_array("G", G)  # its own check below names G and its range
    if G.ndim == 1:
        G = G[None, :]
    if G.ndim != 2 or G.shape[1] != k or G.shape[0] < 1 or not np.all(np.isfinite(G)):
        raise ValueError(f"G must be a finite (M, {k}) matrix of output sensitivities dy/dw, got shape {G.shape}")
    classes = getattr(run, "classes", None)
    if hasattr(run, "log_alpha_errors"):
        sa = np.asarray(run.log_alpha_errors, dtype=float)
        names = tuple(f"ln alpha_{c}" for c in range(sa.size)) + ("ln beta",)
    else:
        sa = np.array([run.log_alpha_error])
        names = ("ln alpha", "ln beta")
    errors = np.append(sa, float(run.log_beta_error))
    if not np.all(np.isfinite(errors)):
        bad = [names[i] for i in np.flatnonzero(~np.isfinite(errors))]
        raise ValueError(f"run has gamma_c <= 0 or N - gamma <= 0 for {bad}: the error bars (MacKay (25)) "
                         "and the extra variance are undefined (a class or the noise is not determined)")
    S = mode_sensitivities(st, classes)
    per = errors[:, None] ** 2 * (S @ G.T) ** 2  # (n_hyper, M)
    wv = np.einsum("mi,ij,mj->m", G, np.asarray(st.cov, dtype=float), G)
    hv = per.sum(axis=0)
    nv = 1.0 / float(st.beta)
    return HyperErrorBars(weight_variance=wv, hyper_variance=hv, noise_variance=nv, variance=wv + hv + nv,
                          per_hyper=per, sensitivities=S, log_errors=errors, names=names)


class IntegratedPredictive(NamedTuple):
    """The predictive moments of :func:`integrated_predictive`, per output.

    ``mean`` the mean over (ln α, ln β); ``spread`` the variance of the mean ``G w_MP(α, β)`` over
    (ln α, ln β) (what MacKay §5.2.2 approximates); ``expected`` the mean of ``gᵀA⁻¹g + 1/β``. The
    predictive variance is ``spread + expected``.
    """

    mean: np.ndarray
    spread: np.ndarray
    expected: np.ndarray


def integrated_predictive(post, G, half_width: float = 8.0, n_grid: int = 201) -> IntegratedPredictive:
    """The predictive mean and variance of a linear model integrated over ln α, ln β (flat prior).

    The exact counterpart of MacKay's §5.2.2 error bars (:func:`hyperparameter_error_bars`), which
    integrate over the hyperparameters only to leading order in 1/γ.

    Parameters
    ----------
    post : LinearGaussianPosterior
        The linear model at the evidence maximum α_MP, β_MP (the grid is centred on its α, β).
    G : (M, k) array_like
        Features of the M outputs ``y = G w``.
    half_width : float
        Half-width of the grid in each of ln α, ln β, in error bars (25); in (0, 20].
    n_grid : int
        Trapezoid nodes per axis, in [11, 2001].

    Returns
    -------
    IntegratedPredictive
        ``(mean, spread, expected)``: the mixture's mean, the variance of the means and the mean
        of the variances.

    Raises
    ------
    ValueError
        If ``post`` is not a linear model, ``G`` is not a finite (M, k) matrix, or ``half_width``,
        ``n_grid`` are outside their ranges.

    Notes
    -----
    ``p(ln α, ln β | D) ∝ P(D | α, β)`` (MacKay (20), exact for a linear model;
    :func:`log_evidence_on_grid`) on a grid of ± ``half_width`` error bars
    ``σ_{ln α} = √(2/γ)``, ``σ_{ln β} = √(2/(N − γ))`` (MacKay (25)) around the posterior's own
    α, β, trapezoidal rule; at each grid point the exact Gaussian predictive of ``y = Gw``: mean
    ``G w_MP(α, β)``, variance ``G A⁻¹ Gᵀ + 1/β`` with ``A = αI + βΦᵀΦ`` (one eigendecomposition
    of ΦᵀΦ serves every point). MacKay (1995), "Probable networks", §5.2, §5.2.2.
    """
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
    logp = log_evidence_on_grid(post, la, lb)
    p = np.exp(logp - logp.max())
    A, B = np.exp(la)[:, None, None], np.exp(lb)[None, :, None]
    D = A + B * lam  # (na, nb, k): eigenvalues of A(α, β)
    v = (B * b / D).reshape(-1, lam.size)  # w_MP(α, β) in the eigenbasis, one row per grid point
    D = D.reshape(-1, lam.size)
    inv_b = np.broadcast_to(1.0 / B[..., 0], (la.size, lb.size)).ravel()

    # the 2-D trapezoidal rule as one weight per grid point; every integral is taken in the
    # k-dimensional eigenbasis and mapped to the M outputs once (G w = GQ v is linear in v), so no
    # (na, nb, M) array is formed: the mean GQ·E[v], the spread diag(GQ Cov[v] GQᵀ), and the mean
    # variance E[1/D]·(GQ²)ᵀ + E[1/β]
    weights = (p * np.outer(_trapezoid_weights(la), _trapezoid_weights(lb))).ravel()
    weights = weights / weights.sum()
    c = weights @ v
    dv = v - c
    S = (dv * weights[:, None]).T @ dv
    m = GQ @ c
    spread = np.einsum("mk,kl,ml->m", GQ, S, GQ)
    expected = (weights @ (1.0 / D)) @ (GQ**2).T + float(weights @ inv_b)
    return IntegratedPredictive(m, spread, expected)


def _trapezoid_weights(x: np.ndarray) -> np.ndarray:
    """w with ``w @ f == np.trapezoid(f, x)`` for every f on the nodes x."""
    d = np.diff(x)
    w = np.zeros_like(x)
    w[:-1] += 0.5 * d
    w[1:] += 0.5 * d
    return w


__all__ = ["HyperErrorBars", "IntegratedPredictive", "hyperparameter_error_bars", "integrated_predictive",
           "mode_sensitivities"]
