"""Lesson 6, §4: committees of optima (MacKay §5.3) — the stored study's test errors side by side.

:func:`committee_rows`, :func:`format_committees`, from ``figures/model_size.json``
(:mod:`ensemble_lib.studies.model_size`) and the stored HMC reference.
"""

from __future__ import annotations

from ...ui.tables import Table
from ...core import validation as check


def committee_rows(result: dict, hmc: dict | None = None) -> list[dict]:
    """Per split, test MSEs side by side: at the HMC reference's size (H = ``committee_hidden``) the
    best single optimum, the committee of the distinct optima, the ensemble (B&B's diagonal Q) and the
    HMC reference (where stored, same splits); over every H, the best single optimum and the committee."""
    check.mapping("result", result, ("config", "datasets"), "the stored size study (load_result())")
    if hmc is not None:
        check.mapping("hmc", hmc, (), "a dict of data set -> stored HMC reference, or None")
    H = result["config"].get("committee_hidden", 4)
    rows = []
    for name, entry in result["datasets"].items():
        ref = {s["index"]: s["test_mse"] for s in (hmc or {}).get(name, {}).get("splits", [])}
        if hmc and name in hmc and hmc[name]["config"]["n_hidden"] != H:
            ref = {}
        for s in entry["splits"]:
            c, f = s.get("committee"), s.get("committee_fixed_size")
            if not (c and f):
                continue
            ens = next(r["ensemble"] for r in s["sizes"] if r["n_hidden"] == H) \
                if H in [r["n_hidden"] for r in s["sizes"]] else None
            rows.append({"dataset": name, "split": s["index"], "H": H,
                         "fixed_best_single": f["best_single"]["test_mse"], "fixed_committee": f["test_mse"],
                         "fixed_members": len(f["members"]), "fixed_runs": f["n_runs"],
                         "ensemble": ens["test_mse"] if ens else None, "hmc": ref.get(s["index"]),
                         "best_single": c["best_single"]["test_mse"], "best_H": c["best_single"]["n_hidden"],
                         "committee": c["test_mse"], "members": len(c["members"])})
    return rows


def format_committees(rows) -> Table:
    """The table of :func:`committee_rows` (text; an HTML table in a notebook): test MSE; (m/n) counts
    the distinct optima of n restarts; a dash where the size study has no such run."""
    rows = check.records("rows", rows, ("dataset", "H", "ensemble", "fixed_best_single", "hmc"))
    H = rows[0]["H"] if rows else 4

    def mse(x):
        return "—" if x is None else f"{x:.3f}"

    cells = [(r["dataset"], f"{r['split']}", mse(r["fixed_best_single"]),
              f"{mse(r['fixed_committee'])} ({r['fixed_members']:>2}/{r['fixed_runs']})", mse(r["ensemble"]),
              mse(r["hmc"]), f"{mse(r['best_single'])} ({r['best_H']})",
              f"{mse(r['committee'])} ({r['members']:>2} optima)") for r in rows]
    return Table(("data", "split", f"H = {H}: best", "committee", "ensemble", "HMC", "every H: best (H)",
                  "committee"), cells, widths=(-8, 5, 11, 13, 8, 5, 17, 17),
                 caption=f"Test MSE per split. One size, H = {H}: the best single optimum, the committee of "
                         "its distinct optima (m of n restarts), the ensemble and HMC; every H = 1…8: the "
                         "best single optimum (its H) and the committee of every optimum")


#: what lesson 6's notebook uses from here (issue 31)
__all__ = ["committee_rows", "format_committees"]
