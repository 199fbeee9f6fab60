"""Kernel step of every lesson panel over a drag, and lesson 1's toy fits against a plain BFGS.

``python -m benchmarks.live_steps OUT.json`` measures, in this process:

* per panel of lessons 1–5 (:data:`DRAGS`): one control moved through ``n`` new values in
  order, as a drag across part of its range delivers them; each step is the whole
  callback the kernel runs (compute, draw, render, encode, readout), timed from
  setting ``control.value`` in code (which updates synchronously). Values are new at
  every step, so no remembered result is timed; lesson 4's panel, whose step is a
  network fit of about a second, moves between two remembered settings instead
  (its cold step is timed on a few new settings);
* lesson 1's fits on the paper-like preset, side by side in the same rounds: per family
  (diagonal, factor s = 1, full) the library's ``kl_fit`` from a cold start (its default
  starts) against a plain BFGS with the exact gradient on a 20 × 20 Gauss–Hermite rule
  (:func:`plain_bfgs_full`, :func:`plain_bfgs_family`, the issue's reference) from the
  Laplace diagonal start, the Laplace search included in both, with the KL each reaches;
  ``fit_all`` (one explorer step's four fits) cold, and warm-started from the fits at an
  α 10^0.05 lower (a slider step).

``python -m benchmarks.live_steps --compare BEFORE.json AFTER.json`` prints a Markdown
table of the two side by side. Run both in one session (the machine is shared: see
the report for the load). It works on older commits too (it only uses the panel
registry, ``compute``/``controls`` and the fits), so "before" can be measured from an
unpacked older tree with ``PYTHONPATH``. Timings are reported, never asserted.
"""

from __future__ import annotations

import json
import math
import sys
import time

import numpy as np

#: per panel: (control, values of a drag); for lesson 4 two remembered settings
DRAGS = {
    "ToyExplorer": ("alpha", list(np.geomspace(0.2, 2.0, 60))),
    "EnsemblePanel": ("xbar", list(np.linspace(-1.5, 1.5, 60))),
    "BoundPanel": ("rho", list(np.linspace(-0.5, 0.5, 60))),
    "HyperIterationPanel": ("iteration", None),  # every iteration, back and forth
    "Network1DPanel": ("rank", [1, 2] * 30),
    "SVIExplorer": ("step_size", list(np.geomspace(0.01, 0.1, 60))),
}


def _values(panel, name, values):
    if values is not None:
        return values
    ctl = panel.controls[name]
    up = list(range(ctl.min, ctl.max + 1))
    seq = []
    while len(seq) < 60:
        seq += up[1:] + up[::-1][1:]
    return seq[:60]


def panel_steps() -> dict:
    from ensemble_lib.lessons import PANELS

    out = {}
    for name, (control, values) in DRAGS.items():
        if name not in PANELS:
            continue
        panel = PANELS[name][0]()
        panel.update()
        vals = _values(panel, control, values)
        panel.controls[control].value = vals[0]  # warm-up (imports, caches of the first state)
        times = []
        for v in vals[1:]:
            t0 = time.perf_counter()
            panel.controls[control].value = v
            times.append(time.perf_counter() - t0)
        errors = getattr(panel, "last_error", None)
        size = panel.fig.canvas.get_width_height()
        img = panel.image.value
        out[name] = {"control": control, "n": len(times), "median_ms": 1e3 * float(np.median(times)),
                     "p90_ms": 1e3 * float(np.percentile(times, 90)), "error": errors,
                     "pixels": list(size), "image_kb": len(img) / 1024,
                     "format": getattr(panel, "image_format", "png")}
    return out


def network_sweeps(stored: bool = True) -> dict:
    """Lesson 4's panel moved through settings it has not shown, every step timed (the kernel's
    whole callback): H across 1…4 at each s = 0, 1, 2 (α, β adapted: 12 settings), then α across
    its 17 values (adapt off, H = 2, s = 1). ``stored``: the default data, whose every setting is
    stored (``figures/network_demo_fits.npz``); else the same data passed in, so the panel fits as
    it goes (what each such step cost before the store)."""
    from ensemble_lib.lessons import PANELS
    from ensemble_lib.studies.network_demo import demo_data

    cls = PANELS["Network1DPanel"][0]
    panel = cls() if stored else cls(data=demo_data())
    panel.update()
    c = panel.controls

    def timed(ctl, value):
        t0 = time.perf_counter()
        ctl.value = value
        return time.perf_counter() - t0

    out = {}
    times = []
    for s in range(c["rank"].min, c["rank"].max + 1):
        c["rank"].value = s
        hs = list(range(c["n_hidden"].min, c["n_hidden"].max + 1))
        times += [timed(c["n_hidden"], h) for h in (hs if s % 2 == 0 else hs[::-1])]
    out["H_adapted"] = times
    c["adapt"].value, c["n_hidden"].value, c["rank"].value = False, 2, 1
    a = c["alpha"]
    out["alpha"] = [timed(a, a.base ** e) for e in np.arange(a.min, a.max + a.step / 2, a.step)]
    return {k: {"n": len(v), "median_ms": 1e3 * float(np.median(v)), "max_ms": 1e3 * float(np.max(v))}
            for k, v in out.items()} | {"error": getattr(panel, "last_error", None)}


def network_cold_steps(n: int = 3) -> dict:
    from ensemble_lib.lessons import PANELS

    panel = PANELS["Network1DPanel"][0]()
    panel.update()
    times = []
    for alpha in (0.3, 3.0, 30.0)[:n]:
        panel.controls["adapt"].value = False
        t0 = time.perf_counter()
        panel.controls["alpha"].value = alpha
        times.append(time.perf_counter() - t0)
    return {"n": len(times), "median_ms": 1e3 * float(np.median(times))}


def full_theta_gaussian(theta) -> tuple[np.ndarray, np.ndarray]:
    """:func:`plain_bfgs_full`'s parameters ``(m₁, m₂, ln L₁₁, L₂₁, ln L₂₂)`` as ``(mean, cov)``."""
    L = np.array([[math.exp(theta[2]), 0.0], [theta[3], math.exp(theta[4])]])
    return np.asarray(theta[:2], dtype=float), L @ L.T


def plain_bfgs_full(post, start, n: int = 20):
    """Full-covariance KL(Q‖P) by scipy's BFGS with the exact gradient on an n × n Gauss–Hermite rule.

    Q = N(m, L Lᵀ), L lower triangular with log-diagonal; ⟨ln p̃⟩_Q and its gradient by the
    product rule of ``numpy.polynomial.hermite_e.hermegauss`` (weight e^{−z²/2}); the
    entropy in closed form. The issue's reference for a toy fit's cost.
    """
    from scipy import optimize

    from ensemble_lib.inference.svi import toy_grad_batch

    z, wz = np.polynomial.hermite_e.hermegauss(n)
    wz = wz / math.sqrt(2.0 * math.pi)
    Z = np.stack(np.meshgrid(z, z, indexing="ij"), axis=-1).reshape(-1, 2)
    W = np.outer(wz, wz).ravel()
    const = 1.0 + math.log(2.0 * math.pi)  # entropy = const + Σ ln L_ii (k = 2)
    log_Z = post.log_Z

    def fun(theta):
        m = theta[:2]
        L = np.array([[math.exp(theta[2]), 0.0], [theta[3], math.exp(theta[4])]])
        w = m + Z @ L.T
        f = -(W @ post.log_unnorm(w)) - const - theta[2] - theta[4] + log_Z
        g = toy_grad_batch(post, w)
        gL = -(g.T * W) @ Z
        grad = np.array([-(W @ g[:, 0]), -(W @ g[:, 1]), gL[0, 0] * L[0, 0] - 1.0, gL[1, 0],
                         gL[1, 1] * L[1, 1] - 1.0])
        return f, grad

    m0, c0 = start
    L0 = np.linalg.cholesky(c0)
    theta0 = np.array([m0[0], m0[1], math.log(L0[0, 0]), L0[1, 0], math.log(L0[1, 1])])
    res = optimize.minimize(fun, theta0, jac=True, method="BFGS", options={"gtol": 1e-6})
    return res


def _median_ms(f, n):
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return 1e3 * float(np.median(times))


def plain_bfgs_family(post, start, family: str, rank=None, n: int = 20):
    """:func:`plain_bfgs_full` for any covariance family: the same rule, objective and optimiser.

    With ``w = m + L z`` (C = L Lᵀ, Cholesky) on the n × n Gauss–Hermite product rule,
    ``∂⟨ln p̃⟩/∂L = ⟨∇ln p̃ zᵀ⟩ = 2 G L`` gives the symmetric ``G = ∂⟨ln p̃⟩/∂C``, which the
    family's chain rule maps to its parameters (with the entropy's ``½ C⁻¹``). The reference for
    the diagonal and factor fits.
    """
    from scipy import optimize

    from ensemble_lib.core.gaussian import CovarianceFamily
    from ensemble_lib.inference.svi import toy_grad_batch

    fam = CovarianceFamily.make(family, 2, rank)
    z, wz = np.polynomial.hermite_e.hermegauss(n)
    wz = wz / math.sqrt(2.0 * math.pi)
    Z = np.stack(np.meshgrid(z, z, indexing="ij"), axis=-1).reshape(-1, 2)
    W = np.outer(wz, wz).ravel()
    const = 1.0 + math.log(2.0 * math.pi)
    log_Z = post.log_Z

    def fun(theta):
        m, C = fam.unpack(theta)
        try:
            L = np.linalg.cholesky(C)
        except np.linalg.LinAlgError:
            return np.inf, np.zeros_like(theta)
        w = m + Z @ L.T
        f = -(W @ post.log_unnorm(w)) - const - float(np.log(np.diag(L)).sum()) + log_Z
        g = toy_grad_batch(post, w)
        M = (g.T * W) @ Z  # ⟨∇ln p̃ zᵀ⟩
        G = 0.5 * np.linalg.solve(L.T, M.T).T  # ½ M L⁻¹
        G = 0.5 * (G + G.T)
        Cinv = np.linalg.inv(C)
        return f, fam.chain(theta, -(W @ g), -G - 0.5 * Cinv)

    res = optimize.minimize(fun, fam.pack(*start), jac=True, method="BFGS", options={"gtol": 1e-6})
    return res


def plain_bfgs_same_starts(post, family: str, rank=None, n: int = 20):
    """The plain-BFGS reference given the library's starts, budget and selection rule (issue 14).

    ``kl_fit`` runs BFGS from several starts and keeps the best; a fair reference does the same
    with its own optimiser: :func:`plain_bfgs_full` / :func:`plain_bfgs_family` (exact gradient,
    n × n Gauss–Hermite rule) from each of the library's default starts of ``family`` (the Laplace
    mode with variances 1/H_ii and the best centred Gaussian, :func:`start_thetas`, after one Laplace
    search), and for a richer family also from the reference's own fit of the next poorer family
    (the toy's chain: diagonal → full → factor s = 1, which for k = 2 is the full family in other
    coordinates and starts from the full fit alone, as ``kl_fit``'s does); the lowest objective
    (the rule's KL) wins. Returns ``(kl_on_the_rule, (mean, cov))``.
    """
    from ensemble_lib.core.gaussian import CovarianceFamily
    from ensemble_lib.inference.kl_fit import start_thetas
    from ensemble_lib.inference.laplace import laplace_fit

    if post.dim != 2:
        raise ValueError(f"post must be a 2-parameter (toy) posterior, got dim = {post.dim}")
    lap = laplace_fit(post, compute_kl=False)

    def own_starts(name, r):
        fam = CovarianceFamily.make(name, 2, r)
        return [fam.unpack(t) for t in start_thetas(post, fam, None, True, lap)]

    def best_of(name, r, starts):
        best = None
        for start in starts:
            if name == "full":
                res = plain_bfgs_full(post, start, n)
                found = full_theta_gaussian(res.x)
            else:
                res = plain_bfgs_family(post, start, name, r, n)
                found = CovarianceFamily.make(name, 2, r).unpack(res.x)
            if np.isfinite(res.fun) and (best is None or res.fun < best[0]):
                best = (float(res.fun), found)
        return best

    diagonal = best_of("diagonal", None, own_starts("diagonal", None))
    if family == "diagonal":
        return diagonal
    full = best_of("full", None, own_starts("full", None) + [diagonal[1]])
    if family == "full":
        return full
    if family == "factor" and rank in (None, 1):
        return best_of("factor", 1, [full[1]])
    raise ValueError(f"family must be 'diagonal', 'full' or 'factor' with rank 1, got {family!r}, {rank!r}")


def _side_by_side(fns: dict, rounds: int) -> dict:
    """Median ms of each function, the functions called in turn in every round (same load for each)."""
    times = {k: [] for k in fns}
    for _ in range(rounds):
        for k, f in fns.items():
            t0 = time.perf_counter()
            f()
            times[k].append(time.perf_counter() - t0)
    return {k: 1e3 * float(np.median(v)) for k, v in times.items()}


def toy_fits(rounds: int = 30) -> dict:
    """Lesson 1's fits against the plain-BFGS reference, per family, side by side (same rounds).

    Reference: ``laplace_fit`` (the Laplace search, from which it starts) + :func:`plain_bfgs_full`
    or :func:`plain_bfgs_family`; and the fair one, :func:`plain_bfgs_same_starts` (the library's
    starts, the best kept). Ours: ``kl_fit(post, family)`` from a cold start (its default
    starts); ``fit_all`` cold; one explorer step's ``fit_all`` warm-started from the previous α
    (10^0.05 lower), per fit (three fits and one Laplace search per step).
    """
    from ensemble_lib.inference.kl_fit import kl_fit
    from ensemble_lib.inference.laplace import laplace_fit
    from ensemble_lib.inference.toy_fits import fit_all
    from ensemble_lib.models.toy import PAPER_PRESET, make_posterior

    post = make_posterior(**PAPER_PRESET)
    _ = post.log_Z  # the exact normaliser is computed once per posterior by both
    lap = laplace_fit(post, compute_kl=False)
    start = lap.diagonal_start()
    fams = {"diagonal": ("diagonal", None), "factor_s1": ("factor", 1), "full": ("full", None)}

    def reference(family, rank):
        if family == "full":
            return lambda: plain_bfgs_full(post, laplace_fit(post, compute_kl=False).diagonal_start())
        return lambda: plain_bfgs_family(post, laplace_fit(post, compute_kl=False).diagonal_start(),
                                         family, rank)

    prev_post = make_posterior(**dict(PAPER_PRESET, alpha=PAPER_PRESET["alpha"] * 10**-0.05))
    previous = fit_all(prev_post)
    try:  # (an older tree, measured as "before", has no warm starts)
        warm = fit_all(post, previous=previous).started
    except TypeError:
        warm = None
    fns = {}
    out = {}
    for key, (family, rank) in fams.items():
        ref = (plain_bfgs_full(post, start) if family == "full"
               else plain_bfgs_family(post, start, family, rank))
        out[f"kl_{key}_library"] = float(kl_fit(post, family, rank).kl)
        out[f"kl_{key}_plain_bfgs"] = float(ref.fun)
        fns[f"plain_bfgs_{key}_with_laplace_ms"] = reference(family, rank)
        fns[f"plain_bfgs_{key}_same_starts_ms"] = (lambda f=family, r=rank: plain_bfgs_same_starts(post, f, r))
        out[f"kl_{key}_plain_bfgs_same_starts"] = float(post.kl(*plain_bfgs_same_starts(post, family, rank)[1]))
        fns[f"kl_fit_{key}_default_ms"] = (lambda f=family, r=rank: kl_fit(post, f, r))
    fns["fit_all_ms"] = lambda: fit_all(post)
    if warm is not None:
        fns["fit_all_warm_step_ms"] = lambda: fit_all(post, previous=previous)
    fns["plain_bfgs_full_ms"] = lambda: plain_bfgs_full(post, start)  # without the Laplace search
    fns["laplace_fit_ms"] = lambda: laplace_fit(post)  # the one mode search of a fit_all step
    out["warm_step_started"] = warm
    out.update(_side_by_side(fns, rounds))
    out["warm_ms_per_fit"] = out.get("fit_all_warm_step_ms", float("nan")) / 3.0
    out["warm_ms_per_fit_besides_laplace"] = (out.get("fit_all_warm_step_ms", float("nan"))
                                              - out["laplace_fit_ms"]) / 3.0
    return out


def toy_compute_steps() -> dict:
    """Lesson 1's explorer over its drag (:data:`DRAGS`): the median of ``compute`` alone (the fits)."""
    from ensemble_lib.lessons import PANELS

    control, values = DRAGS["ToyExplorer"]
    panel = PANELS["ToyExplorer"][0]()
    settings = {k: c.value for k, c in panel.controls.items()}
    panel.compute(**settings)
    times = []
    for v in values[1:]:
        settings[control] = v
        t0 = time.perf_counter()
        panel.compute(**settings)
        times.append(time.perf_counter() - t0)
    return {"n": len(times), "median_ms": 1e3 * float(np.median(times))}


def _compare(before: dict, after: dict) -> str:
    lines = ["| panel (control) | pixels before → after | format | kernel step median before (ms) "
             "| after (ms) | p90 before → after (ms) |", "|---|---|---|---:|---:|---|"]
    for name, a in after["panels"].items():
        b = before["panels"].get(name, {})
        lines.append(f"| {name} ({a['control']}, {a['n']} steps) | {tuple(b.get('pixels', ()))} → "
                     f"{tuple(a['pixels'])} | {b.get('format', 'png')} → {a['format']} | "
                     f"{b.get('median_ms', float('nan')):.1f} | {a['median_ms']:.1f} | "
                     f"{b.get('p90_ms', float('nan')):.0f} → {a['p90_ms']:.0f} |")
    lines += ["", "| toy fit (paper preset) | before (ms) | after (ms) |", "|---|---:|---:|"]
    keys = ["plain_bfgs_full_ms", "plain_bfgs_full_with_laplace_ms", "kl_fit_full_default_ms",
            "plain_bfgs_diagonal_with_laplace_ms", "kl_fit_diagonal_default_ms",
            "plain_bfgs_factor_s1_with_laplace_ms", "kl_fit_factor_s1_default_ms", "fit_all_ms",
            "fit_all_warm_step_ms", "laplace_fit_ms", "warm_ms_per_fit", "warm_ms_per_fit_besides_laplace"]
    for key in keys:
        b, a = before["fits"].get(key, float("nan")), after["fits"].get(key, float("nan"))
        lines.append(f"| {key} | {b:.1f} | {a:.1f} |")
    lines.append(f"| KL reached: library full / plain BFGS | {before['fits']['kl_full_library']:.10f} / "
                 f"{before['fits']['kl_full_plain_bfgs']:.10f} | {after['fits']['kl_full_library']:.10f} / "
                 f"{after['fits']['kl_full_plain_bfgs']:.10f} |")
    return "\n".join(lines)


def main(argv) -> None:
    if argv and argv[0] == "--compare":
        before, after = (json.loads(open(p).read()) for p in argv[1:3])
        print(_compare(before, after))
        return
    result = {"panels": panel_steps(), "fits": toy_fits(), "toy_compute": toy_compute_steps()}
    if "--network-cold" in argv:
        result["network_cold"] = network_cold_steps()
    if "--network-sweeps" in argv:
        result["network_sweeps"] = {"stored": network_sweeps(True), "fitted_as_it_goes": network_sweeps(False)}
    with open(argv[0], "w") as f:
        json.dump(result, f, indent=1)


if __name__ == "__main__":
    main(sys.argv[1:])
