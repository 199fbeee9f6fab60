"""Lesson 9's tables (text for nbval, HTML in the notebook) and figures."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from matplotlib.axes import Axes

from ...core import validation as check
from ...ui.plotting import new_figure, plot_posterior_contours, save_figure
from ...ui.tables import Table
from .estimates import N_OPTIONS, ToyRuns, draws_needed, fold, folded_marginals, toy_runs

_STORE = "the stored runs (load_store())"
_TRACES = ("draw_mse", "alpha", "beta", "f_train_0", "w_0")


def _runs(runs) -> ToyRuns:
    return toy_runs() if runs is None else check.instance("runs", runs, ToyRuns, "a ToyRuns (toy_runs()) or None")


def _axes(axes, n: int):
    """``axes``: ``n`` matplotlib Axes (a row of a figure), flattened."""
    flat = np.ravel(np.asarray(axes, dtype=object))
    if isinstance(axes, Axes) or flat.size != n or not all(isinstance(a, Axes) for a in flat):
        raise ValueError(f"axes must be {n} matplotlib Axes (new_figure(..., ncols={n})), got {type(axes).__name__}")
    return list(flat)

# ---------------------------------------------------------------------------
# Tables (text for nbval, HTML in the notebook)
# ---------------------------------------------------------------------------


def estimate_table(runs: ToyRuns | None = None) -> Table:
    """The running Monte Carlo estimate of ⟨f(x*)⟩ at each n, its standard error and its error."""
    r = _runs(runs)
    C = r.f_chains.shape[0]
    rows = [(f"{n}", f"{n * C}", f"{e:.4f}", f"{s:.4f}", f"{s * np.sqrt(n * C):.3f}", f"{e - r.exact:+.4f}")
            for n, e, s in zip(N_OPTIONS, r.estimate, r.se)]
    return Table(("n per chain", "draws", "estimate", "s.e.", "s.e. × √draws", "error"), rows,
                 caption=f"exact {r.exact:.4f}; KL full Gaussian {r.kl_full:.4f}")


def cost_summary(runs: ToyRuns, kl_seconds: float, kl_iterations: int) -> dict:
    """What the KL fit and NUTS cost to reach an error: the KL fit's own, and a tenth of it.

    NUTS needs ``n`` draws for 2 standard errors ≤ the target, with the standard error per draw
    ``s.e.(all) · √(all draws)``; its cost is n times the stored run's leapfrog steps (gradient
    evaluations) and seconds (compilation included) per kept draw.
    """
    runs = check.instance("runs", runs, ToyRuns, "a ToyRuns (toy_runs())")
    kl_seconds = check.positive("kl_seconds", kl_seconds)
    kl_iterations = check.integer("kl_iterations", kl_iterations, low=0)
    st = runs.store
    n_all = runs.f_chains.size
    se_one = float(runs.se[-1]) * np.sqrt(n_all)
    kl_error = abs(runs.kl_full - runs.exact)
    leap_per_draw = float(np.sum(st["main_n_leapfrog"])) / n_all
    sec_per_draw = float(st["seconds_main"]) / n_all
    out = {"kl_error": kl_error, "kl_seconds": float(kl_seconds), "kl_iterations": int(kl_iterations),
           "se_per_draw": se_one, "leapfrog_per_draw": leap_per_draw, "seconds_per_draw": sec_per_draw}
    for key, target in (("same", kl_error), ("tenth", kl_error / 10)):
        n = draws_needed(2 * se_one, target)
        out[key] = {"target": target, "draws": n, "leapfrog": n * leap_per_draw, "seconds": n * sec_per_draw}
    return out


def cost_table(cost: dict) -> Table:
    check.mapping("cost", cost, ("kl_error", "kl_iterations", "kl_seconds", "same", "tenth"), "cost_summary()'s dict")
    rows = [("KL, full Gaussian", f"{cost['kl_error']:.4f} (its bias)", f"{cost['kl_iterations']} iterations",
             f"{cost['kl_seconds']:.2f}")]
    for key in ("same", "tenth"):
        c = cost[key]
        rows.append((f"NUTS, 2 s.e. ≤ {c['target']:.4f}", f"{c['draws']} draws",
                     f"{c['leapfrog']:.0f} gradient evaluations", f"{c['seconds']:.2f}"))
    return Table(("method", "error / draws", "work", "seconds"), rows)


def sweep_table(store: dict) -> Table:
    """The library's fixed-step HMC runs: mean acceptance and divergent transitions per (ε, L)."""
    check.mapping("store", store, ("sweep_eps", "sweep_lengths", "sweep_accept_prob", "sweep_divergent_fraction"),
                  _STORE)
    Ls = [int(L) for L in store["sweep_lengths"]]
    rows = []
    for i, eps in enumerate(store["sweep_eps"]):
        rows.append((f"{eps:g}", *(f"{store['sweep_accept_prob'][i, j]:.3f}" for j in range(len(Ls))),
                     *(f"{100 * store['sweep_divergent_fraction'][i, j]:.1f} %" for j in range(len(Ls)))))
    return Table(("ε", *(f"accept, L={L}" for L in Ls), *(f"divergent, L={L}" for L in Ls)), rows)


def diagnostics_table(diag: dict) -> Table:
    if not isinstance(diag, dict) or not diag or not all(
            isinstance(d, dict) and {"r_hat", "ess_bulk", "ess_tail"} <= set(d) for d in diag.values()):
        raise ValueError(f"diag must be diagnostics()'s non-empty dict of name -> r_hat, ess_bulk, ess_tail, "
                         f"got {diag!r:.60}")
    return Table(("quantity", "R-hat", "bulk ESS", "tail ESS"),
                 [(k, f"{d['r_hat']:.3f}", f"{d['ess_bulk']:.0f}", f"{d['ess_tail']:.0f}") for k, d in diag.items()])


def replicate_table(store: dict) -> Table:
    """Stated standard errors of the replicate runs beside the spread of their estimates over seeds."""
    check.mapping("store", store, ("rep_estimate", "rep_se"), _STORE)
    est = check.finite_array("store['rep_estimate']", store["rep_estimate"], ndim=1, min_size=2)
    se = check.finite_array("store['rep_se']", store["rep_se"], ndim=1, min_size=2)
    return Table(("runs", "mean estimate", "s.d. over seeds", "mean stated s.e."),
                 [(f"{est.size}", f"{est.mean():.4f}", f"{est.std(ddof=1):.4f}", f"{se.mean():.4f}")])


def chain_table(reference: dict) -> Table:
    """Per split of a stored HMC reference: pooled test MSE, each chain's, their spread and R̂."""
    check.mapping("reference", reference, ("splits",), "a stored HMC reference (load_reference())")
    check.records("reference['splits']", reference["splits"],
                  ("index", "test_mse", "chain_test_mse", "chain_mse_spread", "r_hat_max"))
    rows = [(f"{s['index']}", f"{s['test_mse']:.3f}", " ".join(f"{m:.3f}" for m in s["chain_test_mse"]),
             f"{s['chain_mse_spread']:.3f}", f"{s['r_hat_max']:.2f}") for s in reference["splits"]]
    return Table(("split", "pooled", "chains", "spread", "R-hat max"), rows)


# ---------------------------------------------------------------------------
# Figures
# ---------------------------------------------------------------------------


def plot_draws(axes, runs: ToyRuns | None = None, thin: int = 4) -> list:
    """Draws over the exact contours (left) and folded marginals against the exact ones (right two)."""
    ax, bx, cx = _axes(axes, 3)
    runs = _runs(runs)
    thin = check.integer("thin", thin, low=1, high=1000)
    post, wd = runs.post, runs.store["main_w"]
    u0, u1, v0, v1 = post.extent()
    arts = plot_posterior_contours(ax, post.grid(n=121, extent=(u0, u1, v0, v1)))
    for c in range(wd.shape[0]):
        arts += ax.plot(wd[c, ::thin, 0], wd[c, ::thin, 1], ".", ms=2, color=f"C{c}", label=f"chain {c + 1}")
    ax.legend(fontsize=7, markerscale=3, loc="lower right")
    f = fold(wd.reshape(-1, 2))
    u, pu, v, pv = folded_marginals(post)
    for a, x, grid, p, name in ((bx, f[:, 0], u, pu, "|u|"), (cx, f[:, 1], v, pv, "sign(u) v")):
        top = np.quantile(x, 0.995)
        arts.append(a.hist(x, bins=np.linspace(0.0, top, 50), density=True, color="C0", alpha=0.5,
                           label="NUTS draws")[2])
        arts += a.plot(grid, p, "k", lw=1.2, label="exact")
        a.set_xlabel(name)
        a.set_ylabel("density")
        a.legend(fontsize=7)
    keep = p > 1e-4 * p.max()
    cx.set_xlim(v[keep][0], v[keep][-1])
    return arts


def plot_boston_traces(axes, chains: dict) -> list:
    """Per-chain traces of a Boston split's invariant quantities (and one weight, which is not)."""
    names = (("draw_mse", "test MSE of the draw"), ("alpha", "ln α"), ("beta", "ln β"),
             ("f_train_0", "f at a training input"), ("w_0", "one weight u₁,₁ (not invariant)"))
    axes = _axes(axes, len(names))
    check.mapping("chains", chains, ("traces",), "a stored chains file (load_chains())")
    check.mapping("chains['traces']", chains["traces"], _TRACES, "a dict of name -> (chains, draws) trace")
    arts = []
    for ax, (key, label) in zip(axes, names):
        x = check.finite_matrix(f"chains['traces'][{key!r}]", chains["traces"][key], shape="(chains, draws)")
        if key in ("alpha", "beta"):
            x = np.log(x)
        for c in range(x.shape[0]):
            arts += ax.plot(x[c], lw=0.6, color=f"C{c}", label=f"chain {c + 1}")
        ax.set_title(label, fontsize=9)
        ax.set_xlabel("kept draw")
    axes[0].legend(fontsize=6, ncol=2)
    return arts


def write_figures(outdir) -> list[Path]:
    """Write the lesson's main figure, ``monte_carlo_draws.png`` (:func:`plot_draws`), into ``outdir``."""
    outdir = check.instance("outdir", outdir, (str, Path), "a str or pathlib.Path")
    fig, axes = new_figure(10.5, 3.4, ncols=3)
    plot_draws(axes)
    return [save_figure(fig, Path(outdir) / "monte_carlo_draws.png")]


__all__ = ["chain_table", "cost_summary", "cost_table", "diagnostics_table", "estimate_table", "plot_boston_traces",
           "plot_draws", "replicate_table", "sweep_table"]
