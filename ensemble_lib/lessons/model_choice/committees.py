"""Lesson 6, §4: committees of optima (MacKay §5.3) — the stored study's test errors side by side.

:func:`committee_rows`, :func:`format_committees`, from ``figures/model_size.json``
(:mod:`ensemble_lib.studies.model_size`) and the stored HMC reference.
"""

from __future__ import annotations

def committee_rows(result: dict, hmc: dict | None = None) -> list[dict]:
    """Per split, test MSEs side by side: at the HMC reference's size (H = ``committee_hidden``) the
    best single optimum, the committee of the distinct optima, the ensemble (B&B's diagonal Q) and the
    HMC reference (where stored, same splits); over every H, the best single optimum and the committee."""
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


def format_committees(rows) -> str:
    """The table of :func:`committee_rows`: test MSE; members = distinct optima of the restarts."""
    H = rows[0]["H"] if rows else 4

    def cell(x, width):
        return f"{x:{width}.3f}" if x is not None else f"{'—':>{width}}"

    lines = [f"{'':15} {f'one size, H = {H}':^46}   {'every H = 1…8':^30}",
             f"{'data':<9} {'split':>5} {'best':>7} {'committee':>13} {'ensemble':>9} {'HMC':>7}   "
             f"{'best (H)':>10} {'committee':>16}"]
    for r in rows:
        lines.append(f"{r['dataset']:<9} {r['split']:>5} {cell(r['fixed_best_single'], 7)} "
                     f"{cell(r['fixed_committee'], 6)} ({r['fixed_members']:>2}/{r['fixed_runs']:<2}) "
                     f"{cell(r['ensemble'], 9)} {cell(r['hmc'], 7)}   "
                     f"{cell(r['best_single'], 6)} ({r['best_H']}) {cell(r['committee'], 6)} "
                     f"({r['members']:>2} optima)")
    return "\n".join(lines)
