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
    alt: str  # what the main figure shows, for a reader who cannot see it (its alt text)
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
        "Fig. 2 reproduced: contours of the two-weight toy posterior's curved ridge with Laplace's "
        "Gaussian pointing out of it and the diagonal and full KL-fitted Gaussians lying inside it",
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
        "The likelihood of a Gaussian's mean and sigma peaking at sigma_N, beside the evidence for sigma "
        "peaking at the larger sigma_(N-1)",
        module="mean_sigma",
        panels=('EnsemblePanel',),
    ),
    Lesson(
        "03_bound_and_hyperparameters.ipynb",
        "The lower bound and hyperparameters",
        "ln P(D) = F[Q] + KL(Q‖P) live (Fig. 1); Gamma hyperpriors and the ensemble's α, β "
        "updates vs MacKay's evidence re-estimation vs the exact maximiser; MacKay's cheap-and-cheerful "
        "re-estimation (§9.1) and the error bars on ln α (MacKay eq. 25) against the exact evidence",
        "Barber & Bishop §2 (eqs 15–16), §2.2 (eqs 27–38); MacKay (1995) 'Probable networks' §3, §5, §9.1",
        "bound_fig1.png",
        "ln P(D) split into the bound F and the KL divergence of Q from the posterior for a family of "
        "Gaussians Q: the bound rises as the KL falls, their sum constant",
        module="bound",
        panels=('BoundPanel', 'HyperIterationPanel'),
    ),
    Lesson(
        "04_ensemble_learning_for_networks.ipynb",
        "Ensemble learning for real networks",
        "the exact bound for erf networks with H hidden units, full / factor / diagonal "
        "covariance, predictions with error bars, and the Boston Table 1; cheap predictive distributions "
        "by retraining on noisy targets (MacKay §9.2) beside Laplace, the ensemble and HMC",
        "Barber & Bishop §2.1 (eqs 17–26), §2.2–2.3, Appendix A; MacKay 'Probable networks' §3–5, §9.2",
        "network_1d_demo.png",
        "A one-input network's predictions with error bars: the ensemble's and Laplace's bands over the "
        "data, with Hamiltonian Monte Carlo's band for reference",
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
        "The KL divergence of Q from the posterior against iteration: the exact-quadrature fit falling "
        "smoothly to its optimum, stochastic"
        " VI stalling at a noise floor above it unless its step size decays",
        module="stochastic_vi",
        panels=('SVIExplorer',),
    ),
    Lesson(
        "06_choosing_the_model.ipynb",
        "Choosing the model: evidence, the strict lower bound, ARD, pruning and committees",
        "Occam's razor where everything is exact (exact ln P(D), Laplace's eq. (30), the bound F*); Laplace's "
        "evidence as the mass of one mode's basin (§4.1) against the exact mass; which "
        "network size on Boston and diabetes; ARD with pure-noise inputs; pruning by evidence vs OBD; "
        "committees of optima; priors over functions",
        "MacKay 'Probable networks' §1.5–1.8, §3.2, §4–8; Barber & Bishop §2.2 and the NIPS paper's Fig. 1",
        "model_size.png",
        "The evidence and the bound against the number of hidden units H, for Boston and diabetes "
        "networks, beside their test errors",
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
        "Mixtures of K = 1 to 4 Gaussians fitted to the toy's two curved modes: one Gaussian covers one "
        "mode, two cover both, more follow the banana",
        module="mixture",
        panels=('MixtureExplorer',),
    ),
    Lesson(
        "08_classification.ipynb",
        "Classification with an exact answer: MacKay's single neuron",
        "the exact posterior of a two-weight logistic neuron as data arrive (Fig. 7), Laplace vs the diagonal and "
        "full KL Gaussians with KL(Q‖P) and F live, and moderated outputs (Fig. 9): best fit vs exact predictive vs "
        "MacKay's ψ vs the KL Gaussian away from the data; the softmax for several classes",
        "MacKay 'Probable networks' §2.3–2.5 (eqs 16–17, Figs 5–7) and §5.4 (Fig. 9); Barber & Bishop §2–2.1",
        "classification_fig7.png",
        "The exact posterior of MacKay's single neuron after 1, 2, 5, 10 and 30 data points, concentrating around "
        "the generating weights, with the full KL Gaussian's one-sigma ellipse on each",
        module="classification",
        panels=('NeuronPanel', 'ModeratedPanel'),
    ),
    Lesson(
        "09_monte_carlo.ipynb",
        "Monte Carlo as an inference method",
        "the third way of B&B §1.3: NUTS draws on the toy against the exact posterior, a Monte Carlo estimate whose "
        "standard error shrinks as 1/√n beside the ensemble's biased answer and what each costs; leapfrog "
        "trajectories, acceptance and divergences; ArviZ diagnostics on invariant quantities, and Boston chains "
        "stuck in different modes",
        "Barber & Bishop §1.3 (eq. 14); MacKay 'Probable networks' §4.1, §5.1, §5.4",
        "monte_carlo_draws.png",
        "NUTS draws from four chains over the toy posterior's contours, each chain in one of the two mirror modes, "
        "and histograms of the folded draws lying on the exact marginals",
        module="monte_carlo",
        panels=('MonteCarloPanel', 'LeapfrogPanel'),
    ),
]


#: the lessons in order
__all__ = ["LESSONS", "Lesson"]
