"""The approximations to a posterior and how they are fitted.

The Gaussian algebra they share (quadrature, factorisations, covariance families) is
:mod:`ensemble_lib.core.gaussian`, one floor below the models.

* :mod:`.laplace` — Laplace's method (B&B (9)–(12));
* :mod:`.kl_fit` — minimising KL(Q‖P) over diagonal / factor / full Gaussians;
* :mod:`.toy_objective` — the toy's KL(Q‖P) and gradient in closed form over u, its spread and
  v given u, straight from each family's parameters (what :mod:`.kl_fit` minimises for the toy);
* :mod:`.toy_fits` — every family fitted to one toy posterior (B&B Fig. 2), warm-started between
  slider steps with a guard;
* :mod:`.reestimation` — the fixed-point iteration every α, β re-estimation shares (its
  convergence test, cap, warning and history); the modules below supply only their update steps;
* :mod:`.hyperparameters` — Gamma hyperpriors and the ensemble's α, β updates (B&B (27)–(38));
* :mod:`.evidence` — MacKay's evidence framework (MacKay (18)–(25)) and his cheap re-estimation (MacKay §9.1);
* :mod:`.ard` — one α per weight class (MacKay (26)–(27), ARD §7) in the evidence and in the
  ensemble bound, and functions drawn from the prior (§8), re-exporting its parts:
  :mod:`.class_prior` (the classes, the prior, functions drawn from it), :mod:`.class_evidence`
  (the evidence with one α per class) and :mod:`.class_ensemble` (the bound with one Gamma per class);
* :mod:`.function_prior` — the prior s.d. of an erf network's output (the arcsine kernel, §8);
* :mod:`.model_comparison` — the model evidence (MacKay (30)), pruning by evidence (§6),
  committees (§5.3), the exact ln P(D) with Gamma hyperpriors, re-exporting its parts:
  :mod:`.model_evidence`, :mod:`.deletion_evidence`, :mod:`.hyperparameter_error_bars`, :mod:`.committee`;
* :mod:`.network_fits` — the collapsed bound for networks, fits with warm starts, evidence
  restarts, Laplace error bars;
* :mod:`.svi` — reparameterisation-gradient SVI on the same KL(Q‖P);
* :mod:`.mixture` — a mixture of Gaussians as Q (B&B (39)), re-exporting its parts:
  :mod:`.mixture_entropy` (its parameters; the entropy by quadrature or a lower bound),
  :mod:`.mixture_fit` (KL(Q‖P) and one fit) and :mod:`.mixture_ladder` (K = 1, 2, … warm-started).
"""

#: the sub-package re-exports nothing: its modules declare their own public names
__all__: list[str] = []
