"""The models and their posteriors (no approximation here).

* :mod:`.erf_network` — σ(a) = erf(a/√2) (B&B (2)), the toy model v σ(u x) and its data;
* :mod:`.posterior` — the regression posterior, the bound F[Q] and KL(Q‖P) for any model (B&B (15)–(20));
* :mod:`.toy` — the exact 2-parameter posterior of B&B Fig. 2, and the lessons' preset data;
* :mod:`.linear` — an exactly Gaussian posterior (linear model): the reference case;
* :mod:`.network` — the erf network with H hidden units (B&B (1)) and its posterior, re-exporting
  :mod:`.network_function` (f(x, w), packing, Jacobian), :mod:`.psi_integral` (Ψ and its
  mean-derivatives, B&B (46)–(50)) and :mod:`.network_moments` (⟨E_D⟩, ⟨f⟩, ⟨f²⟩ under Q);
* :mod:`.mackay_gaussian` — MacKay's Gaussian mean/σ ensemble example.
"""

#: the sub-package re-exports nothing: its modules declare their own public names
__all__: list[str] = []
