"""Weight classes and the prior with one precision α_c per class: MacKay (1995), "Probable networks", MacKay (26).

.. math::
    P(\\mathbf w\\mid\\{\\alpha_c\\}) = \\prod_c Z_{W(c)}^{-1}\\exp(-\\alpha_c E_{W(c)}),\\qquad
    E_{W(c)} = \\tfrac12\\textstyle\\sum_{i\\in c} w_i^2                                   \\quad (26)

Classes are given as a sequence of index sequences, a partition of ``0 … k−1``
(:func:`check_classes`: an empty, overlapping or out-of-range class, or a weight in no
class, is a ``ValueError`` naming ``classes``); :func:`network_classes` gives the network's
(one per input for automatic relevance determination, MacKay §7; one per layer, §3.2).
:class:`ClassPriorPosterior` is any regression posterior with this prior, and
:func:`sample_prior_functions` draws networks' functions from it (MacKay §8).

The evidence with one α per class is :mod:`ensemble_lib.inference.class_evidence`; the ensemble
bound with one Gamma posterior per class, :mod:`ensemble_lib.inference.class_ensemble`; the whole
story, :mod:`ensemble_lib.inference.ard`.

Symbols → code: α_c → ``alphas``; k_c → class sizes.
"""

from __future__ import annotations

import math

import numpy as np

from ..core import validation as check
from ..core.gaussian import LOG_2PI, GaussianFactor
from ..models.network import network_output
from ..models.posterior import Expectation, RegressionPosterior


# ---------------------------------------------------------------------------
# Class specifications
# ---------------------------------------------------------------------------


def check_classes(classes, dim: int, name: str = "classes") -> tuple[np.ndarray, ...]:
    """``classes`` as a tuple of integer index arrays forming a partition of ``0 … dim−1``.

    Raises ``ValueError`` naming ``name`` for: not a sequence of sequences, no class, an empty
    class, a non-integer or out-of-range index, an index in two classes (or twice in one), a
    weight in no class.
    """
    dim = check.integer("dim", dim, low=1)
    if classes is None or isinstance(classes, (str, bytes, dict)) or not hasattr(classes, "__iter__"):
        raise ValueError(f"{name} must be a sequence of index sequences (a partition of 0..{dim - 1}), "
                         f"got {classes!r}")
    out = []
    for c, cls in enumerate(classes):
        if isinstance(cls, (str, bytes, dict)) or not hasattr(cls, "__iter__"):
            raise ValueError(f"{name}[{c}] must be a sequence of weight indices, got {cls!r}")
        items = list(np.asarray(cls).ravel()) if isinstance(cls, np.ndarray) else list(cls)
        if not items:
            raise ValueError(f"{name}[{c}] is empty: every class needs at least one weight")
        idx = []
        for i in items:
            if isinstance(i, (bool, np.bool_)) or not isinstance(i, (int, np.integer)):
                raise ValueError(f"{name}[{c}] must hold integer indices in [0, {dim - 1}], got {i!r}")
            if not 0 <= int(i) < dim:
                raise ValueError(f"{name}[{c}] has index {int(i)} out of range [0, {dim - 1}] "
                                 f"(k = {dim} weights)")
            idx.append(int(i))
        out.append(np.array(idx, dtype=int))
    if not out:
        raise ValueError(f"{name} must hold at least one class, got none")
    allidx = np.concatenate(out)
    counts = np.bincount(allidx, minlength=dim)
    if np.any(counts > 1):
        raise ValueError(f"{name} overlap: weight(s) {np.flatnonzero(counts > 1).tolist()} are in more "
                         f"than one class (or twice in one); the classes must be disjoint")
    if np.any(counts == 0):
        raise ValueError(f"{name} must cover every weight 0..{dim - 1}: weight(s) "
                         f"{np.flatnonzero(counts == 0).tolist()} are in no class")
    return tuple(out)


def _class_vector(name: str, values, n_classes: int, kind=check.precision) -> np.ndarray:
    """A scalar (the same for every class) or one value per class, each checked by ``kind``."""
    arr = check.finite_array(name, values)
    if arr.ndim == 0:
        arr = np.full(n_classes, float(arr))
    if arr.shape != (n_classes,):
        raise ValueError(f"{name} must be a number or have one entry per class ({n_classes}), "
                         f"got shape {arr.shape}")
    return np.array([kind(f"{name}[{c}]", float(a)) for c, a in enumerate(arr)])


def network_classes(n_inputs: int, n_hidden: int, kind: str = "ard", bias: bool = True) -> list:
    """Weight classes of the one-hidden-layer network (packing of :mod:`~ensemble_lib.models.network`).

    ``w = [u_1 (d), …, u_H (d), v_1 … v_H]``; with ``bias`` the last of the d inputs is the
    constant 1 of :func:`~ensemble_lib.models.network.add_bias`.

    * ``kind="ard"`` (MacKay §7): one class per real input (the weights from that input to every
      hidden unit), one for the hidden biases (if ``bias``), one for the output weights;
    * ``kind="layers"`` (MacKay §3.2's dimensional classes): input weights, hidden biases (if
      ``bias``), output weights;
    * ``kind="single"``: one class.
    """
    d = check.integer("n_inputs", n_inputs, low=1)
    H = check.integer("n_hidden", n_hidden, low=1, high=1000)
    kind = check.choice("kind", kind, ("ard", "layers", "single"))
    bias = check.flag("bias", bias)
    if bias and d < 2 and kind != "single":
        raise ValueError(f"n_inputs must be >= 2 with bias=True (a real input and the bias), got {d}")
    n_real = d - 1 if bias else d
    rows = np.arange(H) * d
    out = np.arange(H * d, H * d + H)
    if kind == "single":
        return [np.arange(H * d + H)]
    inputs = [rows + j for j in range(n_real)]
    classes = inputs if kind == "ard" else [np.sort(np.concatenate(inputs))]
    if bias:
        classes.append(rows + (d - 1))
    classes.append(out)
    return classes


# ---------------------------------------------------------------------------
# The posterior with one α per class (MacKay (26))
# ---------------------------------------------------------------------------


class ClassPriorPosterior(RegressionPosterior):
    """A regression posterior with prior MacKay (26): precision α_c for the weights of class c.

    Wraps any :class:`~ensemble_lib.models.posterior.RegressionPosterior` (it supplies E_D, its
    derivatives and ⟨E_D⟩); only the prior terms change. With one class covering every weight it
    computes exactly (bit for bit) what the base posterior computes at α = α_1.

    Parameters
    ----------
    base : RegressionPosterior
    classes : sequence of index sequences
        A partition of the weights (:func:`check_classes`).
    alphas : float or array_like (n_classes,)
        α_c, each in [1e-8, 1e8].
    beta : float, optional
        Noise precision (default the base posterior's).
    """

    def __init__(self, base, classes, alphas, beta=None):
        base = check.posterior("base", base)
        self.base = base
        self.classes = check_classes(classes, base.dim)
        self.alphas = _class_vector("alphas", alphas, len(self.classes))
        super().__init__(float(self.alphas[0]), base.beta if beta is None else beta)
        self.dim, self.n_data = base.dim, base.n_data
        self.sizes = np.array([c.size for c in self.classes])
        self.alpha_vector = np.empty(self.dim)
        for c, idx in enumerate(self.classes):
            self.alpha_vector[idx] = self.alphas[c]

    def __repr__(self) -> str:
        return f"ClassPriorPosterior({self.base!r}, {len(self.classes)} classes)"

    def with_hyperparameters(self, alpha=None, beta=None):
        """A copy with new α_c (``alpha``: a number or one per class) and/or β."""
        return ClassPriorPosterior(self.base, self.classes,
                                   self.alphas if alpha is None else alpha,
                                   self.beta if beta is None else beta)

    # the data term is the base model's
    def data_error(self, w):
        return self.base.data_error(w)

    def data_error_grad(self, w):
        return self.base.data_error_grad(w)

    def data_error_hessian(self, w):
        return self.base.data_error_hessian(w)

    def expected_data_error(self, mean, cov):
        return self.base.expected_data_error(mean, cov)

    def _prior_energy(self, w):
        total = 0.0
        for a, idx in zip(self.alphas, self.classes):
            wc = w[..., idx]
            total = total + 0.5 * a * np.sum(wc * wc, axis=-1)
        return total

    def log_unnorm(self, w):
        w = self._w(w)
        return -self.beta * self.data_error(w) - self._prior_energy(w)

    def grad(self, w):
        w = self._w(w, single=True)
        return -self.beta * self.data_error_grad(w) - self.alpha_vector * w

    def hessian(self, w):
        w = self._w(w, single=True)
        return -self.beta * self.data_error_hessian(w) - np.diag(self.alpha_vector)

    def expected_energy(self, mean, cov) -> Expectation:
        """⟨βE_D + Σ_c α_c E_W(c)⟩_Q with gradients."""
        mean, cov = check.mean_cov_shapes(mean, cov, self.dim)
        ed = self.expected_data_error(mean, cov)
        prior = 0.0
        for a, idx in zip(self.alphas, self.classes):
            mc = mean[idx]
            prior = prior + 0.5 * a * (mc @ mc + np.trace(cov[np.ix_(idx, idx)]))
        value = self.beta * ed.value + prior
        d_mean = self.beta * ed.d_mean + self.alpha_vector * mean
        d_cov = self.beta * ed.d_cov + 0.5 * np.diag(self.alpha_vector)
        return Expectation(float(value), d_mean, d_cov)

    @property
    def log_normalisers(self) -> float:
        """``(N/2) ln(2π/β) + Σ_c (k_c/2) ln(2π/α_c)``."""
        total = 0.5 * self.n_data * (LOG_2PI - np.log(self.beta))
        for a, k_c in zip(self.alphas, self.sizes):
            total = total + 0.5 * k_c * (LOG_2PI - np.log(a))
        return total

    @property
    def log_Z(self) -> float:
        """Exact for a linear base model (``Phi``): completing the square with A = diag(α) + βΦᵀΦ."""
        Phi = getattr(self.base, "Phi", None)
        if Phi is None:
            raise NotImplementedError("ln Z is exact only for a linear base model")
        A = np.diag(self.alpha_vector) + self.beta * Phi.T @ Phi
        fac = GaussianFactor(A, "precision")
        m = fac.solve(self.beta * Phi.T @ self.base.t)
        phi_min = self.beta * float(self.base.data_error(m)) + float(self._prior_energy(m))
        return float(-phi_min + 0.5 * self.dim * LOG_2PI - 0.5 * fac.log_det)


# ---------------------------------------------------------------------------
# Priors over functions (MacKay §8)
# ---------------------------------------------------------------------------


def sample_prior_functions(X, n_hidden: int, classes, alphas, n_samples: int,
                           rng: np.random.Generator) -> np.ndarray:
    """Network outputs f(x_n; w) for ``n_samples`` weights drawn from the prior MacKay (26) (MacKay §8).

    Parameters
    ----------
    X : (N, d) array_like
        Inputs (with the bias column if the network has one).
    n_hidden : int
        H ≥ 1.
    classes : sequence of index sequences
        Partition of the k = H(d + 1) weights (e.g. :func:`network_classes`).
    alphas : float or array_like (n_classes,)
        α_c: the weights of class c are drawn from N(0, 1/α_c).
    n_samples : int
        Number of functions (1 to 100 000).
    rng : numpy.random.Generator

    Returns
    -------
    ndarray (n_samples, N)
    """
    X = check.finite_matrix("X", X)
    H = check.integer("n_hidden", n_hidden, low=1, high=10_000)
    n_samples = check.integer("n_samples", n_samples, low=1, high=100_000)
    rng = check.generator("rng", rng)
    k = H * (X.shape[1] + 1)
    classes = check_classes(classes, k)
    alphas = _class_vector("alphas", alphas, len(classes))
    sd = np.empty(k)
    for a, idx in zip(alphas, classes):
        sd[idx] = 1.0 / math.sqrt(a)
    w = rng.standard_normal((n_samples, k)) * sd
    return network_output(w, X, H)


__all__ = ["ClassPriorPosterior", "network_classes", "sample_prior_functions"]
