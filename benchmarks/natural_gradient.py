"""A lever for Table 1 measured, not adopted (issue 30): natural-gradient steps for a Gaussian Q.

``python -m benchmarks.natural_gradient [--out OUT.jsonl]`` fits Boston split 0's network (H = 4,
k = 60, the collapsed bound F* with B&B's Gamma hyperpriors) from MacKay's evidence Gaussian
N(w_MP, A⁻¹) twice per family, full and diagonal covariance:

* with the library's fit (``fit_ensemble``: L-BFGS-B, memory 100 as the Table-1 study uses, gtol 1e-5);
* with natural-gradient steps on Q's mean and precision, a prototype written here.

By Price's theorem ∂⟨E⟩/∂C = ½⟨∇∇E⟩, so the gradient the library already computes, G = ∂energy/∂C,
gives the natural-gradient step for a Gaussian at the cost of one evaluation. The step is

    Λ ← (1 − r)Λ + r·2G,      w̄ ← w̄ − r·Λ⁻¹ ∂energy/∂w̄

(for the diagonal family only diag G is used). Its fixed point Λ = 2G is F*'s stationarity in C. The
step size r starts at 1. It is halved while Λ is not positive definite or F* would fall, and doubled
(up to 1) after each accepted step. The run stops when a step raises F* by less than 1e-11.

For each fit the script prints (and with ``--out`` appends as JSON rows) the bound, the evaluations
of the bound and its gradient, the process CPU time, and the largest component of the gradient in
the family's parameters θ at the end (the library's ``kl_objective``).

``python -m benchmarks.natural_gradient --split DATASET --steps lbfgs|natural [--out OUT.jsonl]`` runs
split 0 of the Table-1 study (``table1.fit_split``, the published configuration). With ``natural``,
every full-covariance fit of the family search takes the prototype's steps from its start (a
poorer family's solution as it is) and is then finished by the library's own fit from that end
point, so it stops by the study's rule (gtol) and returns the study's kind of result. One row gives
the split's CPU, each family's CPU and each family's best bound.

Times are reported, never asserted; one BLAS thread is wise (``OMP_NUM_THREADS=1``). Results:
``benchmarks/results/natural-gradient-2026-12-08.md``.
"""

from __future__ import annotations

import argparse
import json
import time
import warnings

import numpy as np

#: stop when an accepted step raises F* by less than this
STEP_TOL = 1e-11
#: at most this many steps (the L-BFGS-B fits have maxiter 3000)
MAX_STEPS = 3000


def natural_gradient_fit(cb, mean, cov, family: str = "full", max_steps: int = MAX_STEPS,
                         step_tol: float = STEP_TOL) -> dict:
    """The prototype's fit from N(mean, cov): the end point's ``bound``, ``mean``, ``cov`` and the
    ``evaluations`` of the bound and its gradient (every trial step counts); it stops when a step raises
    F* by less than ``step_tol``."""
    from ensemble_lib.core.gaussian import gaussian_entropy

    diagonal = family == "diagonal"

    def value(m, C):
        e = cb.expected_energy(m, C)
        return gaussian_entropy(C) - e.value - cb.log_normalisers, e

    m, C = np.array(mean, dtype=float), np.array(cov, dtype=float)
    lam = 1.0 / np.diag(C) if diagonal else np.linalg.inv(C)
    f, e = value(m, C)
    evaluations, r = 1, 1.0
    for _ in range(max_steps):
        G = np.diag(e.d_cov) if diagonal else 0.5 * (e.d_cov + e.d_cov.T)
        while True:
            lam_new = (1.0 - r) * lam + r * 2.0 * G
            proper = bool(np.all(lam_new > 0)) if diagonal else _positive_definite(lam_new)
            if proper:
                if diagonal:
                    C_new = np.diag(1.0 / lam_new)
                    m_new = m - r * e.d_mean / lam_new
                else:
                    C_new = np.linalg.inv(lam_new)
                    C_new = 0.5 * (C_new + C_new.T)
                    m_new = m - r * (C_new @ e.d_mean)
                f_new, e_new = value(m_new, C_new)
                evaluations += 1
                if f_new >= f:
                    break
            r *= 0.5
            if r < 1e-12:
                return {"bound": f, "mean": m, "cov": C, "evaluations": evaluations, "stopped": "step size"}
        rise = f_new - f
        m, C, lam, f, e = m_new, C_new, lam_new, f_new, e_new
        r = min(1.0, 2.0 * r)
        if rise < step_tol:
            return {"bound": f, "mean": m, "cov": C, "evaluations": evaluations, "stopped": f"rise < {step_tol:g}"}
    return {"bound": f, "mean": m, "cov": C, "evaluations": evaluations, "stopped": "max_steps"}


def _positive_definite(A) -> bool:
    try:
        np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        return False
    return True


def run() -> list[dict]:
    """Both fits of both families from split 0's evidence Gaussian; one row each."""
    from benchmarks.bench_network_fits import _boston_setup
    from ensemble_lib.core.gaussian import CovarianceFamily
    from ensemble_lib.inference.hyperparameters import GammaHyperprior
    from ensemble_lib.inference.kl_fit import KLFitWarning, kl_objective
    from ensemble_lib.inference.laplace import laplace_diagonal_start
    from ensemble_lib.inference.network_fits import CollapsedBound, fit_ensemble

    post, st = _boston_setup()
    cb = CollapsedBound(post, GammaHyperprior())
    rows = []
    for family in ("full", "diagonal"):
        fam = CovarianceFamily.make(family, post.dim)
        if family == "full":
            start = (st.mean, st.cov)
        else:  # the diagonal family's Laplace start, diag(1/A_ii), as the Table-1 search offers it
            A = np.linalg.inv(st.cov)
            start = laplace_diagonal_start(st.mean, 0.5 * (A + A.T))
        calls = [0]
        original = CollapsedBound.expected_energy

        def counted(self, m, C):  # every bound + gradient evaluation of the library's fit
            calls[0] += 1
            return original(self, m, C)

        CollapsedBound.expected_energy = counted
        try:
            t = time.process_time()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", KLFitWarning)
                fit = fit_ensemble(post, GammaHyperprior(), family, None, init=[start], maxcor=100, gtol=1e-5)
            lbfgs_cpu = time.process_time() - t
        finally:
            CollapsedBound.expected_energy = original
        lbfgs_calls = calls[0]
        g_lbfgs = float(np.max(np.abs(kl_objective(cb, fam, fam.pack(fit.mean, fit.cov))[1])))
        t = time.process_time()
        ng = natural_gradient_fit(cb, *start, family=family)
        ng_cpu = time.process_time() - t
        g_ng = float(np.max(np.abs(kl_objective(cb, fam, fam.pack(ng["mean"], ng["cov"]))[1])))
        rows.append({"family": family, "method": "L-BFGS-B (memory 100)", "bound": float(fit.bound),
                     "evaluations": lbfgs_calls, "cpu_s": lbfgs_cpu, "max_grad_theta": g_lbfgs,
                     "iterations": int(fit.n_iter), "converged": bool(fit.converged)})
        rows.append({"family": family, "method": "natural gradient (prototype)", "bound": float(ng["bound"]),
                     "evaluations": ng["evaluations"], "cpu_s": ng_cpu, "max_grad_theta": g_ng,
                     "stopped": ng["stopped"]})
    return rows


def split_run(dataset: str, steps: str, step_tol: float = STEP_TOL) -> dict:
    """Split 0 of the Table-1 study with the full family's fits by ``steps`` ("lbfgs": the library's,
    "natural": the prototype's, then the library's fit from its end point); CPU per family and bests."""
    from collections import defaultdict

    import ensemble_lib.inference.family_search as fs
    from ensemble_lib.inference.hyperparameters import GammaHyperprior
    from ensemble_lib.inference.network_fits import CollapsedBound, fit_ensemble
    from ensemble_lib.studies import table1

    cpu = defaultdict(float)
    library_fit = fs._fit

    def timed_fit(post, prior, fam, start, **kw):
        t = time.process_time()
        if steps == "natural" and fam.name == "full":
            mean, cov = (start[1].mean, start[1].cov) if start[0] == "warm" else (start[1], start[2])
            cb = CollapsedBound(post, prior if prior is not None else GammaHyperprior())
            try:
                ng = natural_gradient_fit(cb, mean, cov, "full", step_tol=step_tol)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    fit = fit_ensemble(post, prior, "full", None, init=[(ng["mean"], ng["cov"])],
                                       gtol=kw["gtol"], maxiter=kw["maxiter"], maxcor=kw["maxcor"])
            except (RuntimeError, ValueError, np.linalg.LinAlgError):
                fit = None
        else:
            fit = library_fit(post, prior, fam, start, **kw)
        cpu[fam.key] += time.process_time() - t
        return fit

    data = table1.load_dataset(dataset)
    fs._fit = timed_fit
    try:
        t = time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = table1.fit_split(data.X, data.y, table1.TableConfig(), 0)
        total = time.process_time() - t
    finally:
        fs._fit = library_fit
    return {"dataset": dataset, "steps": steps, "step_tol": step_tol, "split_cpu_s": total, "family_cpu_s": dict(cpu),
            "best_bound": {k: float(v.bound) for k, v in result.search.best.items()}}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=None, help="append the rows as JSON lines to this file")
    parser.add_argument("--split", choices=("boston", "diabetes"), default=None,
                        help="run split 0 of the Table-1 study on this data set instead of the two fits")
    parser.add_argument("--steps", choices=("lbfgs", "natural"), default="natural",
                        help="with --split: how the full family's fits step")
    parser.add_argument("--step-tol", type=float, default=STEP_TOL,
                        help="with --split --steps natural: the library's fit takes over once a step gains less")
    args = parser.parse_args(argv)
    if args.split:
        row = split_run(args.split, args.steps, args.step_tol)
        print(json.dumps(row))
        if args.out:
            with open(args.out, "a") as fh:
                fh.write(json.dumps(row) + "\n")
        return
    rows = run()
    print("| family | method | F* | evaluations | CPU | max abs gradient in theta |")
    print("|---|---|---:|---:|---:|---:|")
    for r in rows:
        print(f"| {r['family']} | {r['method']} | {r['bound']:.9f} | {r['evaluations']} | {r['cpu_s']:.2f} s | "
              f"{r['max_grad_theta']:.1e} |")
    if args.out:
        with open(args.out, "a") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")


if __name__ == "__main__":
    main()
