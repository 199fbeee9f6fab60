"""Deleting parameters by evidence (MacKay "Probable networks" §6): ensemble_lib.inference.deletion_evidence.

References: refitting the model with the parameter(s) removed (linear: exact marginal; network: a new
Laplace fit of the reduced network).
"""


import numpy as np
import pytest
from scipy import stats

from ensemble_lib import LinearGaussianPosterior, NetworkPosterior, add_bias
from ensemble_lib.inference.ard import ClassPriorPosterior
from ensemble_lib.inference.evidence import laplace_evidence
from ensemble_lib.inference.laplace import laplace_fit
from ensemble_lib.inference.deletion_evidence import SubsetPosterior, deletion_evidence

from _comparison_data import linear_data as _linear


@pytest.mark.parametrize("indices", [[2], [0, 4], [1, 2, 3]])
def test_deletion_evidence_is_exact_on_a_linear_model(indices):
    """§6 (saliency + Occam term) = ln P(D|H) − ln P(D|H_s̄), both exact marginals, at fixed α_c, β."""
    X, y = _linear(21, 40, k=5)
    classes, alphas = [[0, 1], [2], [3, 4]], [0.5, 3.0, 8.0]
    p = ClassPriorPosterior(LinearGaussianPosterior(X, y, 1.0, 1.0), classes, alphas, beta=4.0)
    lap = laplace_fit(p, compute_kl=False)
    d = deletion_evidence(lap.mean, lap.cov, 1.0 / p.alpha_vector, indices)
    keep = [i for i in range(5) if i not in indices]
    lam = p.alpha_vector[keep]
    cov = X[:, keep] @ np.diag(1.0 / lam) @ X[:, keep].T + np.eye(40) / 4.0
    reduced = stats.multivariate_normal(np.zeros(40), cov).logpdf(y)
    assert d.evidence_change == pytest.approx(p.log_evidence - reduced, abs=1e-9)
    # the predicted optimum of the reduced model is its exact posterior mean
    sub = SubsetPosterior(p, keep)
    np.testing.assert_allclose(d.new_mean[keep], laplace_fit(sub, compute_kl=False).mean, atol=1e-9)
    # OBD uses the diagonal of A only; it equals the saliency when A is diagonal
    dd = deletion_evidence(lap.mean, np.diag(np.diag(lap.cov)), 1.0, indices,
                           hessian=np.diag(1 / np.diag(lap.cov)))
    assert dd.obd == pytest.approx(dd.saliency, rel=1e-12)


def test_deletion_evidence_on_a_network_agrees_with_refitting_for_an_irrelevant_weight():
    """H = 1 network, inputs x0, x1 relevant and x2 pure noise (N = 100, β = 100, α = 1).

    Deleting x2's weight: §6 predicts −3.7087, refitting the reduced network by Laplace gives
    −3.7066 (within 0.01: the posterior is nearly quadratic along that weight). Deleting a relevant
    weight: both say it must stay (change > +50), but §6's quadratic extrapolation is 2–4x smaller
    than the refit (the Laplace approximation is only local) — the stated error of the method.
    """
    rng = np.random.default_rng(7)
    X = rng.normal(size=(100, 3))
    t = np.tanh(X[:, 0] - 0.5 * X[:, 1] + 0.3) + 0.1 * rng.normal(size=100)
    net = NetworkPosterior(add_bias(X), t, 1, alpha=1.0, beta=100.0)
    st = laplace_evidence(net, start=rng.normal(size=net.dim))
    for s in range(net.dim):
        d = deletion_evidence(st.mean, st.cov, 1.0 / net.alpha, s)
        keep = [i for i in range(net.dim) if i != s]
        refit = laplace_evidence(SubsetPosterior(net, keep), start=d.new_mean[keep]).log_evidence
        change = st.log_evidence - refit
        if s == 2:
            assert d.evidence_change == pytest.approx(change, abs=0.01)
            assert d.evidence_change < 0  # deleting the noise input's weight makes the model more probable
        else:
            assert d.evidence_change > 50 and change > d.evidence_change
