"""The fixed-point iteration behind every α, β re-estimation in the package.

Three re-estimations share one shape: fit the weights at the current hyperparameters h, compute
new hyperparameters h' = U(h) from that fit, and repeat until h settles.

* MacKay (1995), "Probable networks", eqs (22)–(24): a Laplace fit at (α, β), then
  ``α = γ / Σ w²``, ``β = (N − γ) / 2E_D`` with ``γ = k − α Tr A⁻¹`` (23)
  (:func:`~ensemble_lib.inference.evidence.evidence_reestimation`);
* MacKay (1995) eq. (27): the same with one α_c per weight class, ``α_c = γ_c / Σ_{i∈c} w_i²``
  (:func:`~ensemble_lib.inference.ard.class_evidence_reestimation`,
  :func:`~ensemble_lib.inference.ard.linear_class_evidence`);
* Barber & Bishop (1998) eqs (35)–(38): a KL fit of Q at (ᾱ, β̄), then the Gamma posteriors'
  means ``ᾱ = r s`` (37), ``β̄ = u v`` (38)
  (:func:`~ensemble_lib.inference.hyperparameters.fit_hyperparameters`).

:func:`reestimate` owns what they have in common: the iteration, its convergence test

.. math::
    \\max_j \\lvert \\ln h'_j - \\ln h_j \\rvert < \\mathrm{tol}

(over every α or α_c and β, except entries the step holds at a limit), the iteration cap, the
:class:`HyperparameterConvergenceWarning` when the cap is reached or a step stops the run, and the
history of what each step recorded. Each caller supplies only its update step U, as a function
that makes the fit at h and returns a :class:`ReestimationStep`.

Symbols → code: h → ``hyper`` (a tuple of positive components, each a float such as α or β, or an
array such as the α_c); U → ``update``; h' → ``ReestimationStep.new``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from ..core import validation as check


class HyperparameterConvergenceWarning(UserWarning):
    """An iterative hyperparameter re-estimation stopped before reaching its tolerance."""


@dataclass(frozen=True)
class ReestimationStep:
    """What one update step U(h) returns to :func:`reestimate`.

    Attributes
    ----------
    new : tuple
        The re-estimated hyperparameters h', one component per component of h (a positive float
        or an array of the same shape). Not used if ``notes`` stop the run.
    record : object
        Whatever the step wants kept in the run's ``history`` (e.g. a dict of the fit's numbers).
    notes : tuple of str
        Non-empty: the re-estimate left the allowed range. The run stops here with a
        :class:`HyperparameterConvergenceWarning` made of these notes (the step's record is kept).
    held : tuple, optional
        One entry per component: ``None``, or a boolean mask of the array component's entries
        that are held at a limit and left out of the convergence test.
    """

    new: tuple
    record: object = None
    notes: tuple = ()
    held: tuple | None = None


@dataclass(frozen=True)
class Reestimation:
    """Result of :func:`reestimate`.

    Attributes
    ----------
    hyper : tuple
        The last re-estimate h' (the hyperparameters the next fit would use); the start if the
        first step stopped the run.
    history : tuple
        The ``record`` of every step, in order (``history[i]`` is the fit at the i-th h).
    converged : bool
        The last change was below ``tol``.
    tol_reached : float
        The last change ``max_j |ln h'_j − ln h_j|`` (inf if no step completed).
    notes : tuple of str
        The notes of the step that stopped the run (empty otherwise).
    """

    hyper: tuple
    history: tuple
    converged: bool
    tol_reached: float
    notes: tuple = ()

    @property
    def n_iter(self) -> int:
        """Number of update steps made (fits)."""
        return len(self.history)

    @property
    def stopped(self) -> bool:
        """A step's notes stopped the run (a re-estimate left the allowed range)."""
        return bool(self.notes)

    def column(self, key) -> np.ndarray:
        """``history[i][key]`` for every step, as one float array (records must be mappings)."""
        return np.asarray([record[key] for record in self.history], dtype=float)


def log_change(old, new, held=None) -> float:
    """``max_j |ln new_j − ln old_j|`` over every component, leaving out the ``held`` entries.

    Parameters
    ----------
    old, new : tuple
        Hyperparameters: positive floats or arrays, component by component.
    held : tuple, optional
        ``None`` or, per component, ``None`` or a boolean mask of entries to leave out.

    Notes
    -----
    A float component contributes ``abs(math.log(new / old))``, an array component
    ``max(|np.log(new / old)|)`` over its entries not held (0 if all are held).
    """
    changes = []
    for j, (a, b) in enumerate(zip(old, new)):
        mask = None if held is None else held[j]
        if isinstance(a, np.ndarray):
            if mask is not None:
                free = ~mask
                a, b = a[free], b[free]
            changes.append(float(np.max(np.abs(np.log(b / a)), initial=0.0)))
        else:
            changes.append(abs(math.log(b / a)))
    return max(changes)


def _check_start(start) -> tuple:
    if isinstance(start, (str, bytes, dict)) or not isinstance(start, (tuple, list)) or not start:
        raise ValueError(f"start must be a non-empty tuple of positive hyperparameters (floats or arrays), "
                         f"got {start!r}")
    out = []
    for j, value in enumerate(start):
        if isinstance(value, np.ndarray):
            if value.size == 0 or not np.all(np.isfinite(value)) or not np.all(value > 0):
                raise ValueError(f"start[{j}] must hold finite numbers > 0, got {value!r}")
            out.append(value)
        else:
            out.append(check.positive(f"start[{j}]", value))
    return tuple(out)


def _describe(labels, hyper) -> str:
    parts = []
    for label, value in zip(labels, hyper):
        if isinstance(value, np.ndarray):
            parts.append(f"{label} in [{float(np.min(value)):.6g}, {float(np.max(value)):.6g}]")
        else:
            parts.append(f"{label} = {value:.6g}")
    return ", ".join(parts)


def reestimate(update, start, tol: float, max_iter: int, *, name: str,
               labels: tuple = ("alpha", "beta"), stacklevel: int = 2) -> Reestimation:
    """Iterate h ← U(h) from ``start`` until ``max_j |Δ ln h_j| < tol`` or ``max_iter`` steps.

    Parameters
    ----------
    update : callable
        U: ``update(hyper) -> ReestimationStep``. Makes the fit at ``hyper`` and returns the
        re-estimate (e.g. MacKay (22)–(24), MacKay (27) or Barber & Bishop (37)–(38)).
    start : tuple
        The first h: positive finite floats or arrays (e.g. ``(alpha, beta)``).
    tol : float
        Converged when the change :func:`log_change` of a step is below ``tol`` (> 0).
    max_iter : int
        At most this many steps (≥ 1); reaching it gives a :class:`HyperparameterConvergenceWarning`
        stating the change reached and the last h.
    name : str
        The public function's name, for the warning.
    labels : tuple of str
        One name per component of h, for the warning (``"alpha"``, ``"beta"``).
    stacklevel : int
        The warnings' stack level as seen from the caller of :func:`reestimate` (2: the caller's caller).

    Returns
    -------
    Reestimation

    Notes
    -----
    Each step: ``s = update(h)``; its record joins the history; if ``s.notes`` the run stops with a
    warning "<notes> Stopped at the last finite state."; else the change is
    ``log_change(h, s.new, s.held)``, h becomes ``s.new``, and the run is converged if the change
    is below ``tol``. The fixed point is where U(h) = h: for MacKay's updates, the stationary
    point of the evidence (20) in (ln α, ln β).
    """
    if not callable(update):
        raise ValueError(f"update must be callable (hyper -> ReestimationStep), got {update!r}")
    hyper = _check_start(start)
    tol = check.positive("tol", tol)
    max_iter = check.integer("max_iter", max_iter, low=1)
    if not isinstance(name, str) or not name:
        raise ValueError(f"name must be a non-empty string, got {name!r}")
    if (isinstance(labels, str) or not isinstance(labels, (tuple, list)) or len(labels) != len(hyper)
            or not all(isinstance(label, str) for label in labels)):
        raise ValueError(f"labels must be {len(hyper)} strings, one per component of start, got {labels!r}")
    stacklevel = check.integer("stacklevel", stacklevel, low=1)
    history: list = []
    notes: tuple = ()
    converged, change = False, math.inf
    for _ in range(max_iter):
        step = update(hyper)
        if not isinstance(step, ReestimationStep):
            raise ValueError(f"update must return a ReestimationStep, got {type(step).__name__}")
        history.append(step.record)
        if step.notes:
            notes = tuple(step.notes)
            warnings.warn(" ".join(notes) + " Stopped at the last finite state.",
                          HyperparameterConvergenceWarning, stacklevel=stacklevel + 1)
            break
        if len(step.new) != len(hyper):
            raise ValueError(f"update returned {len(step.new)} hyperparameters, expected {len(hyper)}")
        change = log_change(hyper, step.new, step.held)
        hyper = tuple(step.new)
        if change < tol:
            converged = True
            break
    else:
        changes = ", ".join(f"|d ln {label}|" for label in labels)
        warnings.warn(
            f"{name} did not converge in max_iter = {max_iter} iterations: the last change "
            f"max({changes}) was {change:.3g} > tol = {tol:g} ({_describe(labels, hyper)}). "
            "Increase max_iter or tol.",
            HyperparameterConvergenceWarning,
            stacklevel=stacklevel + 1,
        )
    return Reestimation(hyper=hyper, history=tuple(history), converged=converged,
                        tol_reached=float(change), notes=notes)


__all__ = ["HyperparameterConvergenceWarning"]
