"""Laplace and KL fits of every covariance family to one toy posterior (B&B Fig. 2).

:func:`fit_all` fits Laplace (B&B (9)–(12)), the diagonal and the full KL Gaussians
(B&B §2.1) and a factor-analysis Gaussian (B&B (26)) to one
:class:`~ensemble_lib.models.toy.ToyPosterior`. The posterior is symmetric
under (u, v) → (−u, −v): a fit and its mirror image have the same KL, and
fits are reported in the quadrant of the generating parameters.

A slider step fits a posterior close to the previous one: ``fit_all(post, previous=fits)``
starts every optimisation where the same optimisation ended for ``fits`` (a warm start) and
gives the result of the cold path whenever its guard (:func:`warm_guard`) holds; else it runs
the cold path. One Laplace mode search per call is shared by every family.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from ..core import validation as check
from ..models.erf_network import TOY_U_TRUE
from ..models.toy import ToyPosterior
from ..core.gaussian import CovarianceFamily
from .kl_fit import KLFit, centred_fit_start, fit_from_starts, kl_objective, start_thetas
from .laplace import LaplaceFit, laplace_fit

#: a mean within this many of Q's standard deviations of the origin is "centred" (a fit from the
#: centred start stays at the origin to round-off; one at a mode is far from it)
_CENTRED_SD = 1e-3
#: points of the profile ln p̃(u, v̂(u)) checked between the previous and the new mode
_PROFILE_POINTS = 64


def _to_quadrant(fit, sign_u: float):
    """Mirror a fit through the origin so that its mean's u has sign ``sign_u`` (KL unchanged)."""
    if fit.mean[0] * sign_u >= 0:
        return fit
    changes = {"mean": -fit.mean}
    if isinstance(fit, KLFit):
        changes["theta"] = _mirror_theta(fit.family, fit.theta)
    return dataclasses.replace(fit, **changes)


def _mirror_signs(family: str, n: int) -> np.ndarray:
    """±1 per parameter: the mirror image N(−w̄, C) negates the mean (and factor columns S; C unchanged)."""
    signs = np.ones(n)
    signs[:2] = -1.0
    if family != "full":
        signs[4:] = -1.0
    return signs


def _mirror_theta(family: str, theta) -> np.ndarray:
    """Parameters of the mirror image N(−w̄, C) (:func:`_mirror_signs`)."""
    theta = np.asarray(theta, dtype=float)
    return theta * _mirror_signs(family, theta.size)


@dataclass(frozen=True)
class _Branches:
    """Where each optimisation of one :func:`fit_all` call ended (its warm starts), unmirrored.

    ``ends[family]`` lists, per start of that family's fit, ``(theta, hess_inv)`` where its run ended;
    ``winner[family]`` is the index of the start that won; ``raw[family]`` the fit as found.
    """

    x: np.ndarray
    mode: np.ndarray
    rank: int
    ends: dict
    winner: dict
    raw: dict


@dataclass(frozen=True)
class ToyFits:
    """Laplace and KL fits to one toy posterior (means in the generating quadrant).

    ``started`` says how :func:`fit_all` found them: ``"cold"`` (every default start) or
    ``"warm"`` (from the previous fits' solutions, the guard having held).
    """

    posterior: ToyPosterior
    laplace: LaplaceFit
    diagonal: KLFit
    full: KLFit
    factor: KLFit
    started: str = field(default="cold", compare=False)
    _branches: _Branches | None = field(default=None, repr=False, compare=False)

    def kl_values(self) -> dict:
        return {"laplace": self.laplace.kl, "diagonal": self.diagonal.kl, "full": self.full.kl}


def _kind(theta, fam: CovarianceFamily) -> str:
    """``"centred"`` if the mean is at the origin (to ``_CENTRED_SD`` of Q's s.d.), else ``"mode"``."""
    if theta is None:
        return "failed"
    mean, cov = fam.unpack(theta)
    return "centred" if np.all(np.abs(mean) <= _CENTRED_SD * np.sqrt(np.diag(cov))) else "mode"


def _profile(post: ToyPosterior, u) -> np.ndarray:
    """max over v of ln p̃(u, v) = −βE_D − (α/2)(u² + v²) (v enters quadratically: v̂ = βB/(βA + α))."""
    A, B, _, _ = post._AB(u)
    u = np.asarray(u, dtype=float)
    return -0.5 * post.alpha * u * u - 0.5 * post.beta * post._T + 0.5 * (post.beta * B) ** 2 / (
        post.beta * A + post.alpha)


def warm_guard(post: ToyPosterior, mode, previous_mode) -> int:
    """Whether the cold path's start at the new mode continues the previous one: the mirror sign, or 0.

    The cold path starts at the Laplace mode found from the fixed start of :func:`laplace_fit`.
    Its mode has moved continuously from ``previous_mode`` (or from that mode's mirror image:
    returned sign −1) if, in the new posterior, the profile ``max_v ln p̃(u, v)`` rises
    monotonically from the previous mode's u to the new mode's (64 points; a rise of less
    than 10⁻¹⁰ of the profile's scale counts as level). Otherwise the search has jumped to
    another mode (a mode switch) and 0 is returned: the fits must start cold.
    """
    mode, previous_mode = (check.finite_array(name, m) for name, m in (("mode", mode),
                                                                     ("previous_mode", previous_mode)))
    for name, m in (("mode", mode), ("previous_mode", previous_mode)):
        if m.shape != (2,) or not np.all(np.isfinite(m)):
            raise ValueError(f"{name} must be a finite point (u, v) of shape (2,), got shape {m.shape}")
    sign = 1 if np.linalg.norm(previous_mode - mode) <= np.linalg.norm(previous_mode + mode) else -1
    u = np.linspace(sign * previous_mode[0], mode[0], _PROFILE_POINTS)
    prof = _profile(post, u)
    if not np.all(np.isfinite(prof)):
        return 0
    tol = 1e-10 * max(1.0, float(np.max(np.abs(prof))))
    return sign if bool(np.all(np.diff(prof) >= -tol)) else 0


def _cold(post: ToyPosterior, lap: LaplaceFit, rank: int, parts: dict | None = None):
    """The cold path: every family from the default starts of ``fit_all`` (``parts``: fits to reuse)."""
    parts = {} if parts is None else parts
    ends, winner, raw = {}, {}, {}
    for name, r in (("diagonal", 0), ("full", None)):
        if name in parts:
            raw[name], ends[name], winner[name] = parts[name]
            continue
        fam = CovarianceFamily.make(name, 2, r)
        raw[name], ends[name], winner[name] = fit_from_starts(
            post, fam, start_thetas(post, fam, _cold_inits(name, lap, raw, rank), True))
    base = raw["diagonal"] if rank == 0 else raw["full"]
    fam = CovarianceFamily.make("factor", 2, rank)
    raw["factor"], ends["factor"], winner["factor"] = fit_from_starts(
        post, fam, start_thetas(post, fam, [(base.mean, base.cov)], False))
    return raw, ends, winner


def _warm_start(post: ToyPosterior, fam: CovarianceFamily, theta) -> np.ndarray:
    """A run's warm start: its last end, or for a centred solution, the centred fit from its covariance.

    The origin is a saddle point for a Gaussian centred between the modes; the cold path
    reaches it by optimising the covariance alone with the mean held at the origin
    (:func:`~ensemble_lib.inference.kl_fit.centred_fit_start`), which the warm start repeats
    (a full run from last time's centred solution could slide off the saddle).
    """
    if _kind(theta, fam) != "centred":
        return theta
    return fam.pack(*centred_fit_start(post, fam, fam.unpack(theta)[1]))


def _cold_inits(name: str, lap: LaplaceFit, raw: dict, rank: int) -> list:
    """The (mean, cov) starts the cold path gives family ``name`` (besides the centred one).

    The diagonal fit starts from the narrow Gaussian at the Laplace mode; the full fit from the
    diagonal solution *and* from that narrow Gaussian (the starts of :func:`kl_fit`'s default:
    from the diagonal solution alone, the full fit can end in a worse optimum — α = 0.1, seed 5
    of lesson 1's KL table: KL 2.3636 where the start at the mode reaches 2.0269); the factor
    fit from the diagonal (s = 0) or full (s = 1) solution.
    """
    if name == "diagonal":
        return [lap.diagonal_start()]
    if name == "full":
        return [(raw["diagonal"].mean, raw["diagonal"].cov), lap.diagonal_start()]
    base = raw["full"] if rank == 1 else raw["diagonal"]
    return [(base.mean, base.cov)]


def _warm(post: ToyPosterior, lap: LaplaceFit, prev: _Branches, sign: int, rank: int,
          guarded: bool = True):
    """Each run started where it ended last time, if that is of the same kind as its cold start.

    Runs per family, as in the cold path (:func:`_cold`): the diagonal fit from the narrow
    Gaussian at the Laplace mode and from the centred start; the full fit from the diagonal
    solution, from that narrow Gaussian and from the centred start; the factor fit from its base. A run whose solution
    last time was of the same kind as its cold start this time (both at a mode, or both
    centred) starts from that solution (:func:`_warm_start`); else — a run from a mode that had
    collapsed to the centred solution, a start taken from a poorer family whose winner changed
    kind — from its cold start. Returns None (the caller runs the cold path) if a warm-started
    run ends in a solution of another kind than it started from. (``guarded=False``: every run
    from last time's solution, unchecked — what the guard prevents, for the tests.)
    """
    ends, winner, raw = {}, {}, {}
    for name, r in (("diagonal", 0), ("full", None), ("factor", rank)):
        fam = CovarianceFamily.make(name, 2, r)
        old = prev.ends[name]
        if any(end is None for end in old):
            return None
        inits = _cold_inits(name, lap, raw, rank)
        thetas, h0s, warm = [], [], []
        if name == "factor" and rank != prev.rank:  # another family than last time: cold
            old = []
            thetas, h0s, warm = start_thetas(post, fam, inits, False), [None], [None]
        for i, (th, h0) in enumerate(old):
            if sign < 0:
                signs = _mirror_signs(name, th.size)
                th, h0 = th * signs, h0 * np.outer(signs, signs)
            cold_kind = "centred" if i == len(inits) else _kind(fam.pack(*inits[i]), fam)
            if _kind(th, fam) == cold_kind or not guarded:
                thetas.append(th)  # made a warm start below (if it is run)
                h0s.append(h0)  # last time's curvature: a few quasi-Newton steps reach the optimum
                warm.append(cold_kind)
            else:  # the cold path's own start for this run
                thetas.append(start_thetas(post, fam, inits, name != "factor")[i])
                h0s.append(None)
                warm.append(None)
        run = list(range(len(thetas)))
        if guarded and len(warm) > 1 and warm[-1] == "centred" and all(k == "mode" for k in warm[:-1]) \
                and _centred_cannot_win(post, fam, thetas[0], old[-1][0], sign):
            run = run[:-1]  # the centred run keeps last time's end (it is not the best; see the helper)
        thetas = [_warm_start(post, fam, th) if k is not None and i in run else th
                  for i, (th, k) in enumerate(zip(thetas, warm))]
        fit, run_ends, best = fit_from_starts(post, fam, [thetas[i] for i in run],
                                              hess_inv0=[h0s[i] for i in run])
        ends[name] = [run_ends[run.index(i)] if i in run else _mirrored_end(name, old[i], sign)
                      for i in range(len(thetas))]
        raw[name], winner[name] = fit, run[best]
        if guarded and (any(end is None for end in ends[name]) or any(
                k is not None and i in run and _kind(ends[name][i][0], fam) != k
                for i, k in enumerate(warm))):
            return None
    return raw, ends, winner


#: the centred run is skipped if its last solution, at the new setting, is worse than the mode
#: run's start by more than this (nats) plus ``_DECREASE_FACTOR`` × ‖gradient‖² there
_SKIP_MARGIN = 1.0
_DECREASE_FACTOR = 10.0


def _mirrored_end(name: str, end, sign: int):
    """A run's (theta, hess_inv) end as the mirror image if ``sign`` < 0."""
    th, h0 = end
    if sign > 0:
        return th, h0
    signs = _mirror_signs(name, th.size)
    return th * signs, h0 * np.outer(signs, signs)


def _centred_cannot_win(post, fam, mode_start, centred_end, sign) -> bool:
    """The centred run cannot beat the mode run at this step: it need not be repeated.

    The mode run ends at or below the objective ``f_m`` at its start. The centred run starts
    at last time's centred solution, where the objective is ``f_c`` with gradient ``g``; a
    step from there lowers it by about ½ gᵀH⁻¹g, at most ``_DECREASE_FACTOR``‖g‖² for the
    curvatures of a Gaussian's log-scales (≥ 0.05). So if
    ``f_c − f_m > _SKIP_MARGIN + _DECREASE_FACTOR‖g‖²`` the cold path's centred run (from a
    start no better than this solution's neighbourhood) ends above the mode run and loses: the
    selection is the same without it. The sweep tests check this against the cold path.
    """
    th = centred_end * (_mirror_signs(fam.name, centred_end.size) if sign < 0 else 1.0)
    f_m = kl_objective(post, fam, mode_start)[0]
    f_c, g = kl_objective(post, fam, th)
    if not (np.isfinite(f_m) and np.isfinite(f_c)):
        return False
    return bool(f_c - f_m > _SKIP_MARGIN + _DECREASE_FACTOR * float(g @ g))


def fit_all(post: ToyPosterior, rank: int = 1, previous: ToyFits | None = None) -> ToyFits:
    """Laplace, diagonal-KL, full-KL and factor-KL (rank ``rank``) fits to ``post``.

    Starts (the cold path): the diagonal fit from a narrow Gaussian at the Laplace mode; the
    full fit from the diagonal solution and from that narrow Gaussian; the factor fit from the diagonal (s = 0) or full
    (s = 1) solution; the diagonal and full fits also from the best Gaussian centred at the
    origin (the posterior is symmetric). One Laplace mode search is shared by every family.

    Parameters
    ----------
    post : ToyPosterior
    rank : int
        Rank s of the factor fit (0 or 1).
    previous : ToyFits, optional
        The fits of a nearby setting with the same inputs x (a slider step). Every run then
        starts where the same run ended for ``previous`` — if the Laplace mode continues the
        previous one (:func:`warm_guard`) and every run ends in a solution of the same kind;
        otherwise the cold path runs. Either way the result is the cold path's (``started``
        says which ran). The same posterior object as ``previous``'s reuses its Laplace,
        diagonal and full fits.
    """
    if not isinstance(post, ToyPosterior):
        raise ValueError(f"post must be a ToyPosterior, got {type(post).__name__}")
    rank = check.integer("rank", rank, low=0, high=post.dim - 1)
    if previous is not None and not isinstance(previous, ToyFits):
        raise ValueError(f"previous must be the ToyFits of an earlier fit_all (or None), "
                         f"got {type(previous).__name__}")
    prev = None if previous is None else previous._branches
    result, started = None, "cold"
    if prev is not None and previous.posterior is post:  # the same posterior: its fits are reused
        lap = prev.raw["laplace"]
        parts = {n: (prev.raw[n], prev.ends[n], prev.winner[n]) for n in ("diagonal", "full")}
        result = (_cold(post, lap, rank, parts) if rank != prev.rank
                  else (dict(prev.raw), dict(prev.ends), dict(prev.winner)))
        started = previous.started
    else:
        lap = laplace_fit(post)
        if prev is not None and prev.x.shape == post.x.shape and np.array_equal(prev.x, post.x):
            sign = warm_guard(post, lap.mean, prev.mode)
            if sign:
                result = _warm(post, lap, prev, sign, rank)
                started = "warm" if result is not None else "cold"
        if result is None:
            result = _cold(post, lap, rank)
    raw, ends, winner = result
    raw = {**raw, "laplace": lap}
    branches = _Branches(post.x, lap.mean, rank, ends, winner, raw)
    sign = np.sign(TOY_U_TRUE)
    return ToyFits(
        post,
        _to_quadrant(lap, sign),
        _to_quadrant(raw["diagonal"], sign),
        _to_quadrant(raw["full"], sign),
        _to_quadrant(raw["factor"], sign),
        started,
        branches,
    )


__all__ = ["ToyFits", "fit_all"]
