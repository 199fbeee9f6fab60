"""Lesson 4's sentences and tables, written from the computed values when the lesson runs (issue 29)."""


import numpy as np

from ...core import validation as check
from ...studies.hmc_reference import R_HAT_TARGET
from ...studies.network_demo import DemoState
from ...studies.table1 import format_table
from ...ui.tables import TextTable


# ---------------------------------------------------------------------------
# The lesson's sentences and tables, written from the computed values (issue 29)
# ---------------------------------------------------------------------------

#: R-hat at or below which a split's HMC chains count as converged (the usual rule of thumb)
R_HAT_CONVERGED = R_HAT_TARGET
#: the column widths of :func:`~ensemble_lib.studies.table1.format_table`'s lines
_TABLE1_WIDTHS = (28, 15, 6, 17, 5, 16, 13, 8, 8)


def opening_sentence(state: DemoState) -> str:
    """The "Where it opens" paragraph (Markdown) for the panel's default setting ``state``."""
    check.instance("state", state, DemoState, "a DemoState (demo_fit())")
    mid = state.x_grid.size // 2
    fam = "diagonal" if state.rank == 0 else f"factor s = {state.rank}"
    how = "α and β adapted" if state.adapt else f"α = {state.ens_alpha:.3g} and β = {state.ens_beta:.3g} fixed"
    text = (f"**Where it opens.** H = {state.n_hidden}, Q {fam}, with {how}: the ensemble reaches "
            f"α = {state.ens_alpha:.4g}, β = {state.ens_beta:.4g} and bound F = {state.bound:.3f}, MacKay's "
            f"Laplace α = {state.lap_alpha:.4g} and β = {state.lap_beta:.4g}; in the gap (x = 0) the error "
            f"bars are {state.ens_sd[mid]:.3f} (ensemble) and {state.lap_sd[mid]:.3f} (Laplace). The ensemble "
            f"uses {state.ens_active} of the {state.n_hidden} hidden units, Laplace {state.lap_active}.")
    return text.replace("-", "−")


def hmc_convergence_note(hmc: dict, name: str, threshold: float = R_HAT_CONVERGED) -> str:
    """What the stored HMC reference's convergence says about its "minus HMC" column (Markdown).

    A split counts as converged when its stored ``converged`` is true (R-hat ≤ 1.05 and bulk ESS ≥
    400 on the invariant quantities), or, in a reference that predates that field, when its R-hat is
    at most ``threshold``.
    """
    check.mapping("hmc", hmc, (), "a dict of data set -> stored HMC reference (stored_hmc())")
    if not isinstance(name, str):
        raise ValueError(f"name must be a data set's name (a str), got {name!r}")
    threshold = check.positive("threshold", threshold, lower=1.0)
    splits = hmc["splits"]
    r = [float(s["r_hat_max"]) for s in splits]
    ok = [bool(s.get("converged", float(s["r_hat_max"]) <= threshold)) for s in splits]
    if all(ok):
        return (f"**The HMC reference on {name}** has converged on all {len(r)} splits (R-hat ≤ {threshold}, "
                f"largest {max(r):.2f}): its test error stands for the exact Bayesian answer, and "
                f"\"minus HMC\" measures how far each approximation is from it.")
    chains = hmc.get("sampler", {}).get("num_chains")
    mc = [float(s.get("test_mse_mc_se") or 0.0) for s in splits]
    carried = (f" Each value marked † carries HMC's own Monte Carlo error: the spread between its "
               f"{chains} chains gives its test error on a split a standard error of up to {max(mc):.3f} "
               f"({np.sqrt(np.sum(np.square(mc))) / len(mc):.3f} on the average over splits), and that "
               f"is added to the table's standard error." if any(mc) else "")
    return (f"**The HMC reference on {name} has not converged** on {len(r) - sum(ok)} of its {len(r)} splits "
            f"(R-hat above {threshold} or bulk ESS below 400 on the quantities the symmetries leave "
            f"alone; largest R-hat {max(r):.2f}): there its chains settle in different modes and disagree, "
            f"and each chain counts equally, so the modes are weighted by how many chains reach them, not "
            f"by their posterior mass. Its test error is therefore not yet the exact Bayesian answer, and "
            f"the \"minus HMC\" column measures the distance to that sampler's predictions: a yardstick "
            f"on {name}, not a verdict.{carried}")


def table1_text(result: dict, hmc: dict | None = None) -> TextTable:
    """:func:`~ensemble_lib.studies.table1.format_table` as a :class:`~ensemble_lib.ui.tables.TextTable`:
    the same text (``print``, nbval), an HTML table in a notebook."""
    check.mapping("result", result, ("methods", "splits", "config"), "a stored Table 1 result (load_table())")
    if hmc is not None:
        check.mapping("hmc", hmc, (), "a stored HMC reference or None")
    return TextTable.from_columns(format_table(result, hmc), _TABLE1_WIDTHS)


__all__ = ["R_HAT_CONVERGED", "hmc_convergence_note", "opening_sentence", "table1_text"]
