# ruff: noqa: F401
"""The 2-parameter toy posterior of Barber & Bishop (1998), §2.1 and Fig. 2.

Model ``f(x; u, v) = v σ(u x)`` with ``w = (u, v)``, noise precision β and prior
precision α. The posterior (B&B (6))

.. math:: P(u, v \\mid D) = \\frac{1}{Z}\\exp\\{-\\beta E_D(u, v) - \\tfrac{\\alpha}{2}(u^2 + v^2)\\}

is symmetric under ``(u, v) → (−u, −v)`` (σ is odd), so it has two modes.

Because f is linear in v, ``E_D = ½A(u)v² − B(u)v + ½T`` with
``A(u) = Σ σ(u x_n)²``, ``B(u) = Σ t_n σ(u x_n)``, ``T = Σ t_n²``. Two exact
reductions follow (the idea of the paper's eqs 22–23 and Appendix A.1):

* ``ln Z``: v is integrated in closed form, leaving the even 1-D integrand
  ``g(u) = √(2π/(βA+α)) exp{−αu²/2 − βT/2 + (βB)²/(2(βA+α))}``, integrated by
  adaptive quadrature over the range where it is not negligible. A rigorous
  bound, ``ln g(u) ≤ ½ ln(2π/α) − αu²/2`` (Cauchy–Schwarz), fixes that range.
* ``⟨E_D⟩`` under ``Q = N(w̄, C)``: given u, v is Gaussian with mean
  ``v̄ + (C_uv/C_uu)(u − ū)`` and variance ``C_vv − C_uv²/C_uu``, so only a 1-D
  rule over ``u = ū + √C_uu z`` (z ~ N(0, 1)) is needed (:func:`u_rule`). The
  integrand steps from one plateau of σ(u x) to the other within
  ``|u| ≲ 1/|x|``, a width ``w = 1/(√C_uu max|x_n|)`` in z. A Gauss–Hermite rule
  of n nodes resolves that only while ``w`` is not small (``√C_uu max|x| ≤
  0.1 √n``, where its error is below 1e-14); a broader Q — a flat prior, small β —
  gets a composite Gauss–Legendre rule instead, with panels graded
  geometrically towards the step at ``z = −ū/√C_uu``. So ⟨E_D⟩ is accurate for
  any Gaussian, not just the narrow ones (a fixed rule underestimates KL(Q‖P)
  for a broad Q, even below zero, and the optimiser then seeks that error out).

Code names: ``x``, ``t`` = data, ``alpha`` = α, ``beta`` = β, ``n_quad`` =
Gauss–Hermite nodes over u.

One module per part: :mod:`.exact` (:class:`ToyPosterior`, its quadratures and grid),
:mod:`.presets` (the lessons' data sets), :mod:`.kl_quadrature` (the brute-force reference for
KL(Q‖P)). Every name stays importable from here.
"""

# every name stays importable from here (ruff F401 is off for this file)
from .exact import BETA_T_MAX, PosteriorGrid, ToyPosterior, u_rule
from .kl_quadrature import kl_by_quadrature
from .presets import PAPER_PRESET, make_posterior

__all__ = ["BETA_T_MAX", "PAPER_PRESET", "PosteriorGrid", "ToyPosterior", "kl_by_quadrature", "make_posterior"]
