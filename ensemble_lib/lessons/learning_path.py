"""The learning path: which lesson teaches what, in what order, and what to read first.

One list, :data:`LESSONS`, feeds the index notebook (``notebooks/00_learning_path.ipynb``)
and is checked against the README's table and the ``notebooks/`` folder by the tests,
so a lesson cannot be added without appearing in both. It is also the registry of the
lessons' code: each record names its lesson module (under :mod:`ensemble_lib.lessons`) and
the interactive panels that module defines, which :func:`ensemble_lib.lessons.panels`
imports only when asked. This module holds no lesson code and imports none.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Lesson:
    notebook: str  # file name in notebooks/
    title: str
    teaches: str
    read: str  # what to read in the papers first
    figure: str  # main figure, in figures/
    module: str = ""  # the lesson module (or package) under ensemble_lib.lessons
    panels: tuple[str, ...] = ()  # names of the FigurePanel subclasses it defines


LESSONS = [
    Lesson(
        "01_toy_posterior_laplace_vs_kl.ipynb",
        "The toy posterior: Laplace vs ensemble learning",
        "the exact posterior of a 2-weight erf network; Laplace's Gaussian vs the diagonal, "
        "factor and full Gaussians minimising KL(Q‖P); Fig. 2 and a KL table over many data sets",
        "Barber & Bishop (1998) §1.1–2.1 and Fig. 2",
        "toy_fig2.png",
        module="toy_posterior",
        panels=('ToyExplorer',),
    ),
    Lesson(
        "02_mackay_gaussian_mean_sigma.ipynb",
        "A Gaussian's mean and σ: dividing by N or N − 1, and the separable ensemble",
        "the exact posterior of (μ, σ), the evidence for σ peaking at the N − 1 estimate, the Student-t "
        "marginal, and MacKay's Q_μ Q_σ iterations converging to S/(N−1)",
        "MacKay (1995), ensemble learning example, §2–3",
        "mackay_fig1a.png",
        module="mean_sigma",
        panels=('EnsemblePanel',),
    ),
    Lesson(
        "03_bound_and_hyperparameters.ipynb",
        "The lower bound and hyperparameters",
        "ln P(D) = F[Q] + KL(Q‖P) live (Fig. 1); Gamma hyperpriors and the ensemble's α, β "
        "updates vs MacKay's evidence re-estimation vs the exact maximiser",
        "Barber & Bishop §2 (eqs 15–16), §2.2 (eqs 27–38); MacKay (1995) 'Probable networks' §3",
        "bound_fig1.png",
        module="bound",
        panels=('BoundPanel', 'HyperIterationPanel'),
    ),
    Lesson(
        "04_ensemble_learning_for_networks.ipynb",
        "Ensemble learning for real networks",
        "the exact bound for erf networks with H hidden units, full / factor / diagonal "
        "covariance, predictions with error bars, and the Boston Table 1",
        "Barber & Bishop §2.1 (eqs 17–26), §2.2–2.3, Appendix A; MacKay 'Probable networks' §3–5",
        "network_1d_demo.png",
        module="networks",
        panels=('Network1DPanel',),
    ),
    Lesson(
        "05_deterministic_vs_stochastic_vi.ipynb",
        "Deterministic vs stochastic variational inference",
        "the same KL(Q‖P) fitted by exact quadrature and by reparameterisation-gradient SVI; "
        "the noise floor and why the step size must decay",
        "Barber & Bishop §2–2.1 (the objective); any ADVI / SVI tutorial for contrast",
        "svi_kl_vs_iteration.png",
        module="stochastic_vi",
        panels=('SVIExplorer',),
    ),
    Lesson(
        "06_choosing_the_model.ipynb",
        "Choosing the model: evidence, the strict lower bound, ARD, pruning and committees",
        "Occam's razor where everything is exact (exact ln P(D), Laplace's eq. (30), the bound F*); which "
        "network size on Boston and diabetes; ARD with pure-noise inputs; pruning by evidence vs OBD; "
        "committees of optima; priors over functions",
        "MacKay 'Probable networks' §1.5–1.8, §3.2, §4–8; Barber & Bishop §2.2",
        "model_size.png",
        module="model_choice",
        panels=('NoiseInputsPanel', 'PriorFunctionsPanel'),
    ),
    Lesson(
        "07_mixture_of_gaussians.ipynb",
        "A mixture of Gaussians as Q: closing the two-mode gap",
        "Q as a mixture of K full-covariance Gaussians (B&B (39)): the ln 2 a single Gaussian pays for "
        "the mirror mode, what K > 2 buys along the banana, and the entropy by quadrature vs a lower bound",
        "Barber & Bishop §3 (eq. 39); Kolchinsky & Tracey (2017) for the entropy bound",
        "mixture_fits.png",
        module="mixture",
        panels=('MixtureExplorer',),
    ),
]
