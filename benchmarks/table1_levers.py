"""Two levers for the Table-1 study's speed, measured (issue 30): L-BFGS-B's own step and Ψ's nodes.

``python -m benchmarks.table1_levers optimiser`` times the optimiser's own work per evaluation:
L-BFGS-B (SciPy) minimises a convex quadratic of n variables with memory m, and the time of
as many bare evaluations is subtracted from the fit's CPU time. n = 360 is the size of a factor
family s = 4 on Boston (k = 60 weights), n = 1890 of the full family (k + k(k+1)/2). NLopt's
LD_LBFGS is timed the same way when ``nlopt`` is importable (it is not a dependency).

``python -m benchmarks.table1_levers nodes`` asks how many Gauss–Legendre nodes Ψ's angle
integral needs: for each |ρ| (= |sin θ_max|) the fewest nodes that bring all fifteen mean-derivatives
(p + q ≤ 4) within 1e-14 × max(1, their largest value) of an 800-node rule over |h|, |k| ≤ 12,
and the relative error of the library's 48; then the time of one bound-and-gradient evaluation
(``_moments``, Boston's shape N = 128, d = 14, H = 4) with each node count, alternating, the
minimum and the median over repeats.

Both print Markdown; one BLAS thread is wise (``OMP_NUM_THREADS=1``). Results:
``benchmarks/results/table1-optimiser-and-nodes-2026-11-27.md``.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

SIZES = (360, 1890)
MEMORIES = (30, 100)
RHOS = (0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.93, 0.95, 0.97)
NODE_COUNTS = (48, 32, 24, 16, 12, 8)


def _quadratic(n: int, seed: int = 0):
    """f(x) = ½xᵀHx with H = AAᵀ/n + 0.01 I (condition ~400: hundreds of iterations) and its gradient."""
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n)) / np.sqrt(n)
    H = A @ A.T + 0.01 * np.eye(n)

    def f(x):
        g = H @ x
        return 0.5 * float(x @ g), g

    return f


def _bare(f, n: int, count: int) -> float:
    x = np.ones(n)
    t = time.process_time()
    for _ in range(count):
        f(x)
    return time.process_time() - t


def optimiser_cost(n: int, memory: int, iterations: int = 400) -> dict:
    """L-BFGS-B's own CPU time per evaluation (the fit's time less as many bare evaluations)."""
    from scipy.optimize import minimize

    f = _quadratic(n)
    t = time.process_time()
    res = minimize(f, np.ones(n), jac=True, method="L-BFGS-B",
                   options=dict(maxcor=memory, maxiter=iterations, gtol=1e-30, ftol=1e-30))
    total = time.process_time() - t
    own = (total - _bare(f, n, res.nfev)) / res.nfev
    return {"library": "SciPy L-BFGS-B", "n": n, "memory": memory, "evaluations": int(res.nfev),
            "ms_per_evaluation": 1e3 * own}


def nlopt_cost(n: int, memory: int, evaluations: int = 400) -> dict | None:
    """The same for NLopt's LD_LBFGS (None if nlopt is not installed)."""
    try:
        import nlopt
    except ImportError:
        return None
    f = _quadratic(n)
    count = [0]

    def objective(x, grad):
        count[0] += 1
        val, g = f(x)
        if grad.size:
            grad[:] = g
        return val

    opt = nlopt.opt(nlopt.LD_LBFGS, n)
    opt.set_min_objective(objective)
    opt.set_vector_storage(memory)
    opt.set_maxeval(evaluations)
    opt.set_ftol_rel(1e-30)
    opt.set_xtol_rel(1e-30)
    t = time.process_time()
    opt.optimize(np.ones(n))
    total = time.process_time() - t
    own = (total - _bare(f, n, count[0])) / count[0]
    return {"library": f"NLopt {nlopt.__version__} LD_LBFGS", "n": n, "memory": memory,
            "evaluations": count[0], "ms_per_evaluation": 1e3 * own}


def rule_errors(rho: float, counts, reference: int = 800, hs=None) -> dict:
    """{nodes: max error / max(1, largest value)} of Ψ's fifteen derivatives (p + q ≤ 4) against
    ``reference`` nodes, over the grid h, k ∈ ``hs`` (default: −12..12 by 0.25, and ±20, ±30)."""
    from ensemble_lib.models.psi_integral import _psi_stack, _units

    if hs is None:
        hs = np.concatenate([np.linspace(-12, 12, 97), [-30, -20, 20, 30]])
    h, k = (a.ravel() for a in np.meshgrid(hs, hs))
    ones = np.ones_like(h)
    theta = np.full(h.shape, np.arcsin(rho))

    def stack(n):
        return _psi_stack(h, k, theta, _units(h, ones, 4), _units(k, ones, 4), 4, n)[1].copy()

    ref = stack(reference)
    scale = np.maximum(1.0, np.max(np.abs(ref), axis=1))[:, None]
    return {n: float(np.max(np.abs(stack(n) - ref) / scale)) for n in counts}


def nodes_needed(rho: float, limit: int = 80) -> tuple[int | None, float]:
    """(fewest nodes within 1e-14 of 800 nodes, or None below ``limit``; 48 nodes' error), as :func:`rule_errors`."""
    errors = rule_errors(rho, list(range(4, limit, 2)) + [48])
    need = next((n for n in range(4, limit, 2) if errors[n] <= 1e-14), None)
    return need, errors[48]


def node_timings(counts=NODE_COUNTS, repeats: int = 40, seed: int = 0) -> dict:
    """CPU ms of one ``_moments`` evaluation (value and gradient) per node count: min and median."""
    from ensemble_lib.models.network_moments import _moments

    rng = np.random.default_rng(seed)
    N, d, H = 128, 14, 4
    X = np.hstack([rng.normal(size=(N, d - 1)), np.ones((N, 1))])
    t = rng.normal(size=N)
    k = H * d + H
    mean = np.concatenate([rng.normal(size=H * d) / np.sqrt(d), rng.normal(size=H)])
    A = rng.normal(size=(k, k)) / np.sqrt(k)
    cov = 0.05 * (A @ A.T + 0.3 * np.eye(k))
    times = {n: [] for n in counts}
    for n in counts:  # warm the caches (node series, scratch buffers)
        _moments(mean, cov, X, t, H, n, True)
    for _ in range(repeats):
        for n in counts:
            t0 = time.thread_time()
            for _ in range(10):
                _moments(mean, cov, X, t, H, n, True)
            times[n].append((time.thread_time() - t0) / 10)
    return {n: (1e3 * min(v), 1e3 * float(np.median(v))) for n, v in times.items()}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=("optimiser", "nodes"))
    args = parser.parse_args(argv)
    if args.what == "optimiser":
        print("| optimiser | n | memory | evaluations | own CPU per evaluation |")
        print("|---|---:|---:|---:|---:|")
        for n in SIZES:
            for m in MEMORIES:
                for row in (optimiser_cost(n, m), nlopt_cost(n, m)):
                    if row is not None:
                        print(f"| {row['library']} | {n} | {m} | {row['evaluations']} | "
                              f"{row['ms_per_evaluation']:.3f} ms |")
        return
    print("| abs(rho) | nodes to round-off | 48 nodes' error / scale |")
    print("|---:|---:|---:|")
    for rho in RHOS:
        need, err48 = nodes_needed(rho)
        print(f"| {rho} | {need if need is not None else '> 78'} | {err48:.1e} |")
    print()
    print("| nodes | min CPU per evaluation | median |")
    print("|---:|---:|---:|")
    for n, (lo, med) in node_timings().items():
        print(f"| {n} | {lo:.3f} ms | {med:.3f} ms |")


if __name__ == "__main__":
    main()
