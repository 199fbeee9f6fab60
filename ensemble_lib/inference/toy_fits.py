"""Laplace and KL fits of every covariance family to one toy posterior (B&B Fig. 2).

:func:`fit_all` fits Laplace (B&B (9)–(12)), the diagonal and the full KL Gaussians
(B&B §2.1) and a factor-analysis Gaussian (B&B (26)) to one
:class:`~ensemble_lib.models.toy.ToyPosterior`. The posterior is symmetric
under (u, v) → (−u, −v): a fit and its mirror image have the same KL, and
fits are reported in the quadrant of the generating parameters.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

from .. import _validation as check
from ..models.erf_network import TOY_U_TRUE
from ..models.toy import ToyPosterior
from .kl_fit import KLFit, kl_fit
from .laplace import LaplaceFit, laplace_fit

def _to_quadrant(fit, sign_u: float):
    """Mirror a fit through the origin so that its mean's u has sign ``sign_u`` (KL unchanged)."""
    if fit.mean[0] * sign_u >= 0:
        return fit
    changes = {"mean": -fit.mean}
    if isinstance(fit, KLFit):
        theta = fit.theta.copy()
        theta[:2] = -theta[:2]
        if fit.family != "full":  # factor columns S flip sign too (C unchanged either way)
            theta[4:] = -theta[4:]
        changes["theta"] = theta
    return dataclasses.replace(fit, **changes)


@dataclass(frozen=True)
class ToyFits:
    """Laplace and KL fits to one toy posterior (means in the generating quadrant)."""

    posterior: ToyPosterior
    laplace: LaplaceFit
    diagonal: KLFit
    full: KLFit
    factor: KLFit

    def kl_values(self) -> dict:
        return {"laplace": self.laplace.kl, "diagonal": self.diagonal.kl, "full": self.full.kl}


def fit_all(post: ToyPosterior, rank: int = 1) -> ToyFits:
    """Laplace, diagonal-KL, full-KL and factor-KL (rank ``rank``) fits to ``post``.

    Starts: the diagonal fit from a narrow Gaussian at the Laplace mode; the
    full fit from the diagonal solution; the factor fit from the diagonal
    (s = 0) or full (s = 1) solution; the diagonal and full fits also from
    the best Gaussian centred at the origin (the posterior is symmetric).
    """
    if not isinstance(post, ToyPosterior):
        raise ValueError(f"post must be a ToyPosterior, got {type(post).__name__}")
    rank = check.integer("rank", rank, low=0, high=post.dim - 1)
    lap = laplace_fit(post)
    narrow = [lap.diagonal_start()]
    diag = kl_fit(post, "diagonal", init=narrow, symmetric=True)
    full = kl_fit(post, "full", init=[(diag.mean, diag.cov)], symmetric=True)
    base = diag if rank == 0 else full
    factor = kl_fit(post, "factor", rank=rank, init=[(base.mean, base.cov)], symmetric=False)
    sign = np.sign(TOY_U_TRUE)
    return ToyFits(
        post,
        _to_quadrant(lap, sign),
        _to_quadrant(diag, sign),
        _to_quadrant(full, sign),
        _to_quadrant(factor, sign),
    )


