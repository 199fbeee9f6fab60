"""Lesson 6, §5: pruning by evidence (MacKay "Probable networks" §6) beside OBD.

:func:`pruning_demo`: §6 on a small network, beside OBD and a refit;
:func:`pruning_study_rows`, :func:`format_pruning_study`, :func:`plot_pruning_study`,
:func:`pruning_study_figure`: the stored Boston pruning study (``figures/pruning_evidence.json``,
:mod:`ensemble_lib.studies.pruning_evidence`).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from ...inference.evidence import laplace_evidence
from ...inference.laplace import laplace_fit
from ...inference.model_comparison import SubsetPosterior, deletion_evidence
from ...models.network import NetworkPosterior, add_bias
from ...ui.plotting import OKABE_ITO, new_figure, style
from ...ui.tables import Table
from ...core import validation as check

@lru_cache(maxsize=2)
def pruning_network(seed: int = 7, n: int = 100):
    """The network of :func:`pruning_demo` and its Laplace fit: ``(net, state)``.

    An H = 1 network on inputs x0, x1 (relevant) and x2 (pure noise), α = 1, β = 100; ``state`` is
    :func:`~ensemble_lib.inference.evidence.laplace_evidence`'s (``.mean`` w_MP, ``.cov`` A⁻¹,
    ``.hessian`` A). Weights in the order u (x0), u (x1), u (x2), u (bias), v (output).
    """
    seed = check.integer("seed", seed, low=0)
    n = check.integer("n", n, low=10, high=100_000)
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    t = np.tanh(X[:, 0] - 0.5 * X[:, 1] + 0.3) + 0.1 * rng.normal(size=n)
    net = NetworkPosterior(add_bias(X), t, 1, alpha=1.0, beta=100.0)
    return net, laplace_evidence(net, start=rng.normal(size=net.dim))


@lru_cache(maxsize=1)
def pruning_demo(seed: int = 7, n: int = 100):
    """§6 on :func:`pruning_network`: deleting each weight in turn.

    Returns rows (weight, OBD ½A_ss w_s², OBS saliency, Occam term, §6 change, refit change): the
    change ln P(D|H) − ln P(D|H_s̄) predicted by §6 and found by refitting the reduced network.
    """
    seed = check.integer("seed", seed, low=0)
    n = check.integer("n", n, low=10, high=100_000)
    net, st = pruning_network(seed, n)
    names = ["u (x0)", "u (x1)", "u (x2, noise)", "u (bias)", "v (output)"]
    rows = []
    for s in range(net.dim):
        d = deletion_evidence(st.mean, st.cov, 1.0 / net.alpha, s, hessian=st.hessian)
        keep = [i for i in range(net.dim) if i != s]
        refit = laplace_fit(SubsetPosterior(net, keep), start=d.new_mean[keep], compute_kl=False)
        rows.append((names[s], d.obd, d.saliency, d.occam, d.evidence_change,
                     st.log_evidence - refit.log_evidence_laplace))
    return tuple(rows)


def format_pruning(rows) -> Table:
    """The table of :func:`pruning_demo` (text; an HTML table in a notebook)."""
    rows = check.sequence("rows", rows)
    if not rows or not all(not isinstance(r, (str, dict)) and hasattr(r, "__len__") and len(r) == 6 for r in rows):
        raise ValueError(f"rows must be a non-empty sequence of pruning_demo()'s rows (6 cells each), got {rows!r:.80}")
    cells = [(r[0], *(f"{x:.3f}" for x in r[1:])) for r in rows]
    return Table(("weight", "OBD", "saliency", "Occam", "§6 change", "refit"), cells, widths=(-14, 9, 9, 7, 10, 9))


def pruning_study_rows(result: dict) -> list[dict]:
    """Per split of the stored Boston pruning study (``figures/pruning_evidence.json``): where §6 says
    stop (``stop``: deletions made), and there, for the evidence's order and OBD's, the refitted log
    evidence and test MSE; the full network's; §6's predicted total change beside the refits'."""
    check.mapping("result", result, ("config", "splits"), "the stored pruning study")
    rows = []
    for s in result["splits"]:
        ev, ob = s["sequences"]["evidence"], s["sequences"]["obd"]
        k = ev["stop_step"]
        if not k:
            continue
        e, o = ev["steps"][k - 1], ob["steps"][k - 1]
        rows.append({"split": s["index"], "k": s["k"], "stop": k, "full_log_evidence": s["log_evidence"],
                     "full_mse": s["test_mse"], "evidence_log_evidence": e["log_evidence"],
                     "evidence_mse": e["test_mse"], "obd_log_evidence": o["log_evidence"], "obd_mse": o["test_mse"],
                     "predicted_total": float(sum(x["predicted_change"] for x in ev["steps"][:k])),
                     "refit_total": float(sum(x["refit_change"] for x in ev["steps"][:k])),
                     "median_step_error": float(np.median([abs(x["predicted_change"] - x["refit_change"])
                                                          for x in ev["steps"][:k]])),
                     "output_weights_deleted": sum(s["weights"][x["weight"]].startswith("v")
                                                   for x in ev["steps"][:k])})
    return rows


def format_pruning_study(rows) -> Table:
    """The table of :func:`pruning_study_rows` (text; an HTML table in a notebook): at the stop, the
    refitted ln evidence and test MSE of the full network, the evidence's order and OBD's; §6's
    predicted total gain in ln evidence beside the refits'."""
    rows = check.records("rows", rows, ("split", "stop", "k", "full_log_evidence", "evidence_log_evidence",
                                    "obd_log_evidence", "full_mse", "evidence_mse", "obd_mse",
                                    "predicted_total", "refit_total"))
    cells = [(f"{r['split']}", f"{r['stop']} of {r['k']}", f"{r['full_log_evidence']:.2f}",
              f"{r['evidence_log_evidence']:.2f}", f"{r['obd_log_evidence']:.2f}", f"{r['full_mse']:.3f}",
              f"{r['evidence_mse']:.3f}", f"{r['obd_mse']:.3f}", f"{-r['predicted_total']:+.2f}",
              f"{-r['refit_total']:+.2f}") for r in rows]
    return Table(("split", "deleted", "ln ev: full", "evidence", "OBD", "MSE: full", "evidence", "OBD",
                  "§6 predicted", "refits"), cells, widths=(5, 10, 11, 9, 8, 10, 9, 7, 13, 7),
                 caption="At §6's stop: ln evidence and test MSE of the full network and of the refitted "
                         "networks pruned in the evidence's order and in OBD's; the gain in ln evidence "
                         "§6 predicted and the refits found")


#: one colour per split (Okabe–Ito); the pruning order is told by line style and marker (:data:`STYLES`)
_SPLIT_COLORS = tuple(OKABE_ITO[k] for k in ("blue", "orange", "bluish green", "vermillion", "reddish purple",
                                              "sky blue", "black"))


def plot_pruning_study(axes, result: dict) -> None:
    """Left: refitted ln evidence against deletions (both orders, every split; ◆ where §6 says stop);
    right: test MSE against deletions."""
    ax1, ax2 = axes
    for s in result["splits"]:
        c = _SPLIT_COLORS[s["index"] % len(_SPLIT_COLORS)]
        for m in ("evidence", "obd"):
            seq = [x for x in s["sequences"][m]["steps"] if "weight" in x]
            n = np.arange(len(seq) + 1)
            ax1.plot(n, [s["log_evidence"]] + [x["log_evidence"] for x in seq], **style(m, color=c),
                     label=f"split {s['index']}, {'by evidence (§6)' if m == 'evidence' else 'by OBD saliency'}")
            ax2.plot(n, [s["test_mse"]] + [x["test_mse"] for x in seq], **style(m, color=c))
        k = s["sequences"]["evidence"]["stop_step"]
        if k:
            ax1.plot(k, s["sequences"]["evidence"]["steps"][k - 1]["log_evidence"], "D", color=c, ms=6)
            ax2.plot(k, s["sequences"]["evidence"]["steps"][k - 1]["test_mse"], "D", color=c, ms=6)
    ax1.set_xlabel("weights deleted")
    ax1.set_ylabel("ln P(D|α,β) of the refitted network")
    ax1.set_title("Boston, H = 4: pruning by evidence (– – ⬟) and by OBD (··· ◀)")
    ax1.legend(fontsize=6, ncol=2, loc="lower center")
    ax2.set_xlabel("weights deleted")
    ax2.set_ylabel("test MSE")
    ax2.set_title("test error (◆: §6 says stop)")


def pruning_study_figure(result: dict):
    check.mapping("result", result, ("config", "splits"), "the stored pruning study")
    fig, axes = new_figure(11.0, 4.0, ncols=2)
    plot_pruning_study(axes, result)
    return fig, axes


#: what lesson 6's notebook uses from here (issue 31)
__all__ = ["format_pruning", "format_pruning_study", "pruning_demo", "pruning_network",
           "pruning_study_figure", "pruning_study_rows"]
