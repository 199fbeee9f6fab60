"""How often the issue-14 reference (one plain BFGS from the Laplace start) misses the best toy fit.

``python -m benchmarks.single_start`` fits the full-covariance Q on a grid of lesson 1's slider
settings (α, noise s.d., data seed; N = 6) twice: with the library's ``kl_fit`` (BFGS from the
Laplace mode, the best centred Gaussian and the diagonal fit, the best polished) and with the
reference of ``benchmarks/live_steps.py`` (:func:`~benchmarks.live_steps.plain_bfgs_full`: scipy's
BFGS with the exact gradient on a 20 × 20 Gauss–Hermite rule, from the Laplace diagonal start).
Both solutions are scored by the posterior's exact KL(Q‖P) (closed form in v, quadrature in u),
and the settings where the reference ends worse are counted, by how much; where it does, the
reference is started again at the library's optimum, to tell another local optimum from the
rule's error. The same is done for the fair reference (the same plain BFGS from the library's
starts, the best kept: :func:`~benchmarks.live_steps.plain_bfgs_same_starts`). Prints Markdown.
"""

from __future__ import annotations

import warnings

import numpy as np

ALPHAS = np.geomspace(0.01, 10.0, 9)
NOISE_SDS = (0.05, 0.1, 0.3, 1.0)
SEEDS = range(8)


def compare() -> list[dict]:
    from ensemble_lib.inference.kl_fit import kl_fit
    from ensemble_lib.inference.laplace import laplace_fit
    from ensemble_lib.models.toy import make_posterior

    from .live_steps import plain_bfgs_full, plain_bfgs_same_starts

    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for alpha in ALPHAS:
            for noise in NOISE_SDS:
                for seed in SEEDS:
                    post = make_posterior(seed, float(alpha), noise, 6)
                    lap = laplace_fit(post, compute_kl=False)
                    fit = kl_fit(post, "full")
                    ref = _exact_kl(post, plain_bfgs_full(post, (lap.mean, np.diag(np.diag(lap.cov)))).x)
                    # the reference's objective started at the library's optimum: where it stays, the
                    # two objectives share that optimum, and a miss above is another local optimum
                    there = _exact_kl(post, plain_bfgs_full(post, (fit.mean, fit.cov)).x)
                    # the fair reference: the same plain BFGS from the library's starts, the best kept
                    same = float(post.kl(*plain_bfgs_same_starts(post, "full")[1]))
                    rows.append({"alpha": float(alpha), "noise_sd": noise, "seed": seed,
                                 "reference": ref, "library": float(fit.kl), "reference_from_library": there,
                                 "same_starts": same})
    return rows


def _gap_table(what: str, gap) -> list[str]:
    """A Markdown table counting the settings whose KL gap falls in each bin."""
    lines = [f"| {what} | settings |", "|---|---:|"]
    for lo, hi in ((-np.inf, -1e-4), (-1e-4, 1e-4), (1e-4, 0.05), (0.05, 1.0), (1.0, np.inf)):
        lines.append(f"| [{lo:g}, {hi:g}) | {int(np.sum((gap >= lo) & (gap < hi)))} |")
    return lines


def _exact_kl(post, theta) -> float:
    from .live_steps import full_theta_gaussian

    return float(post.kl(*full_theta_gaussian(theta)))


def report(rows) -> str:
    gap = np.array([r["reference"] - r["library"] for r in rows])
    lines = [f"{len(rows)} settings (α in {ALPHAS[0]:g}…{ALPHAS[-1]:g}, 9 values; noise s.d. "
             f"{', '.join(map(str, NOISE_SDS))}; seeds 0–{max(SEEDS)}; N = 6), full-covariance Q.", ""]
    lines += _gap_table("the reference's exact KL minus the library's", gap)
    missed = [r for r in rows if r["reference"] - r["library"] >= 0.05]
    kept = sum(abs(r["reference_from_library"] - r["library"]) < 1e-3 for r in missed)
    lines += ["", f"Of the {len(missed)} misses by 0.05 nats or more, the reference started at the library's "
              f"optimum stays there (within 1e-3 nats) in {kept}: there the miss is another local optimum "
              "of the same objective, not the 20 × 20 rule's error."]
    same = np.array([r["same_starts"] - r["library"] for r in rows])
    lines += ["", "The same reference given the library's starts and selection rule (plain BFGS on the "
              "20 × 20 rule from the Laplace start, the best centred Gaussian and its own diagonal fit; "
              "the lowest objective kept: `plain_bfgs_same_starts`):", ""]
    lines += _gap_table("the same-starts reference's exact KL minus the library's", same)
    worst = sorted(rows, key=lambda r: r["library"] - r["reference"])[:5]
    lines += ["", "Largest misses (α, noise s.d., seed: reference KL / library KL): "
              + "; ".join(f"{r['alpha']:.3g}, {r['noise_sd']}, {r['seed']}: {r['reference']:.4f} / "
                          f"{r['library']:.4f}" for r in worst)]
    return "\n".join(lines)


if __name__ == "__main__":
    print(report(compare()))
