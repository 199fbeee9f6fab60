"""The ground floor: what every other sub-package may use, and which uses none of them.

* :mod:`.gaussian` — Gauss–Hermite rules, :class:`~.gaussian.GaussianFactor` (one Cholesky for
  log-determinant, solves and entropy), the entropy of and KL between Gaussians, ellipse geometry,
  and the covariance families of Barber & Bishop (1998), eq. (26): pure Gaussian algebra that
  both the models (their expectations under Q) and the approximations build on;
* :mod:`.validation` — the checks every public function runs on its arguments at the boundary
  (a ``ValueError`` that names the argument and the allowed range);
* :mod:`.progress` — the library's one progress-callback shape.
"""

#: the sub-package re-exports nothing: its modules declare their own public names
__all__: list[str] = []
