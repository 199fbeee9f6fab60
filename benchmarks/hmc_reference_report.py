"""The HMC reference's cost and convergence, split by split, as a Markdown report.

``python -m benchmarks.hmc_reference_report [TIMES.json ...] > benchmarks/results/hmc-reference-DATE.md``

Reads the stored references (``figures/hmc_reference_*.json``), their replicates
(``figures/hmc_replicate1_*.json``, where stored) and the wall times that
``python -m ensemble_lib.studies.hmc_reference --times FILE`` wrote (default
``benchmarks/results/hmc-reference-times.json``; several files: the first is the reference's, the
second the replicate's). Per split: seconds, largest R-hat and smallest bulk ESS over the
invariant quantities, ESS per second, converged or not, the test MSE with its Monte Carlo s.e.,
and the replicate's z (difference over the combined s.e.).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from ensemble_lib.studies.hmc_reference import load_reference, load_replicate, replicate_agreement

DEFAULT_TIMES = Path(__file__).parent / "results" / "hmc-reference-times.json"


def _seconds(path):
    return json.loads(Path(path).read_text())["split_seconds"]


def report(times_files) -> str:
    times = [_seconds(p) for p in times_files]
    out = []
    for dataset in ("boston", "diabetes"):
        ref = load_reference(dataset)
        try:
            agree = {r["index"]: r for r in replicate_agreement(ref, load_replicate(dataset, 1))["splits"]}
        except FileNotFoundError:
            agree = {}
        secs = times[0].get(dataset, [])
        s = ref["sampler"]
        out += [f"## {dataset}: {s['num_chains']} chains × ({s['num_warmup']} warm-up + {s['num_samples']} draws), "
                f"target acceptance {s['target_accept_prob']}", "",
                "| split | seconds | R-hat max | bulk ESS min | ESS / s | converged | test MSE ± MC s.e. "
                "| replicate's test MSE | z |",
                "|---:|---:|---:|---:|---:|:---:|---:|---:|---:|"]
        for sp in ref["splits"]:
            i = sp["index"]
            sec = secs[i] if i < len(secs) else None
            a = agree.get(i)
            cells = [f"{i}", f"{sec:.0f}" if sec else "-", f"{sp['r_hat_max']:.3f}", f"{sp['ess_min']:.0f}",
                     f"{sp['ess_min'] / sec:.1f}" if sec else "-", "yes" if sp["converged"] else "no",
                     f"{sp['test_mse']:.4f} ± {sp['test_mse_mc_se']:.4f}",
                     f"{a['test_mse'][1]:.4f}" if a else "-", f"{a['z']:+.2f}" if a else "-"]
            out.append("| " + " | ".join(cells) + " |")
        total = sum(secs)
        n_ok = sum(sp["converged"] for sp in ref["splits"])
        line = f"{n_ok} of {len(ref['splits'])} splits converged; {total / 60:.1f} minutes"
        if len(times) > 1 and dataset in times[1]:
            line += f" (the replicate: {sum(times[1][dataset]) / 60:.1f} minutes)"
        if agree:
            line += f"; largest |z| between the two runs {max(abs(r['z']) for r in agree.values()):.2f}"
        out += ["", line + ".", ""]
    return "\n".join(out)


if __name__ == "__main__":
    print(report(sys.argv[1:] or [DEFAULT_TIMES]))
