"""The lessons: one module per notebook, each with its panels and figures.

==========================  ======================================================
module                      notebook
==========================  ======================================================
:mod:`.learning_path`       ``00_learning_path`` (the list of lessons, :data:`LESSONS`)
:mod:`.toy_posterior`       ``01_toy_posterior_laplace_vs_kl``
:mod:`.mean_sigma`          ``02_mackay_gaussian_mean_sigma``
:mod:`.bound`               ``03_bound_and_hyperparameters``
:mod:`.networks`            ``04_ensemble_learning_for_networks``
:mod:`.stochastic_vi`       ``05_deterministic_vs_stochastic_vi``
:mod:`.model_choice`        ``06_choosing_the_model``
:mod:`.mixture`             ``07_mixture_of_gaussians``
==========================  ======================================================

Lessons never import each other: what two lessons share lives in the library
(:mod:`ensemble_lib.models`, :mod:`ensemble_lib.inference`, :mod:`ensemble_lib.ui`).

:data:`PANELS` is the one registry of interactive panels: the tests, the
benchmarks and the browser suite take every panel from it, and a test fails if
a :class:`~ensemble_lib.ui.panel.FigurePanel` subclass defined in a lesson is
missing from it.
"""

from .bound import BoundPanel, HyperIterationPanel
from .learning_path import LESSONS, Lesson
from .mean_sigma import EnsemblePanel
from .mixture import MixtureExplorer
from .model_choice import PriorFunctionsPanel
from .model_choice import NoiseInputsPanel
from .networks import Network1DPanel
from .stochastic_vi import SVIExplorer
from .toy_posterior import ToyExplorer

#: every interactive panel, by name → (class, the notebook that shows it)
PANELS = {
    "ToyExplorer": (ToyExplorer, "01_toy_posterior_laplace_vs_kl.ipynb"),
    "EnsemblePanel": (EnsemblePanel, "02_mackay_gaussian_mean_sigma.ipynb"),
    "BoundPanel": (BoundPanel, "03_bound_and_hyperparameters.ipynb"),
    "HyperIterationPanel": (HyperIterationPanel, "03_bound_and_hyperparameters.ipynb"),
    "Network1DPanel": (Network1DPanel, "04_ensemble_learning_for_networks.ipynb"),
    "SVIExplorer": (SVIExplorer, "05_deterministic_vs_stochastic_vi.ipynb"),
    "NoiseInputsPanel": (NoiseInputsPanel, "06_choosing_the_model.ipynb"),
    "PriorFunctionsPanel": (PriorFunctionsPanel, "06_choosing_the_model.ipynb"),
    "MixtureExplorer": (MixtureExplorer, "07_mixture_of_gaussians.ipynb"),
}

__all__ = ["LESSONS", "Lesson", "PANELS", "BoundPanel", "EnsemblePanel", "HyperIterationPanel",
           "MixtureExplorer", "Network1DPanel", "PriorFunctionsPanel", "SVIExplorer", "ToyExplorer"]
__all__ += ["NoiseInputsPanel"]
