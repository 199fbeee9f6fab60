"""The README's Table 1 and its HMC paragraph say what the stored tables and references hold.

Each row of the README's Table-1 Markdown table is rebuilt from ``figures/boston_table1.json``,
``figures/diabetes_table.json`` and the HMC references (``hmc_comparison``), formatted as the README
writes it, and compared cell by cell; the HMC paragraph's numbers likewise.
"""

from pathlib import Path

import pytest

from ensemble_lib.studies.hmc_reference import load_reference, load_replicate, replicate_agreement
from ensemble_lib.studies.table1 import hmc_comparison, load_table

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
ROWS = {"Laplace / MacKay evidence": ("laplace_evidence",), "ensemble, diagonal": ("ensemble_diagonal",),
        "ensemble, s = 1": ("ensemble_s1",), "ensemble, s = 2 / s = 4": ("ensemble_s2", "ensemble_s4"),
        "ensemble, full covariance": ("ensemble_full",)}


def _pm(d, sign=""):
    return f"{d['mean']:{sign}.3f} ± {d['se']:.3f}"


def _cells(label):
    line = next((x for x in README.splitlines() if x.strip().startswith(f"| {label} |")), None)
    assert line is not None, f"the README's Table 1 has no row {label!r}"
    return [c.strip() for c in line.strip().strip("|").split("|")][1:]


@pytest.fixture(scope="module")
def tables():
    out = {}
    for name in ("boston", "diabetes"):
        table = load_table(name)
        out[name] = (table, hmc_comparison(table, load_reference(name)))
    return out


@pytest.mark.parametrize("label", sorted(ROWS))
def test_a_table1_row_is_the_stored_numbers(label, tables):
    keys = ROWS[label]
    expected = []
    for name in ("boston", "diabetes"):
        table, cmp = tables[name]
        m = [table["methods"][k] for k in keys]
        if len(keys) == 1:
            mse, excess = _pm(m[0]["test_mse"]), _pm(cmp[keys[0]], "+")
        else:
            mse = " / ".join(f"{x['test_mse']['mean']:.3f}" for x in m)
            excess = " / ".join(f"{cmp[k]['mean']:+.3f}" for k in keys)
        if cmp["marked"]:
            excess += " †"
        expected += [mse, excess]
        if name == "boston":
            expected.append(" / ".join(f"{x['active_units']['mean']:.1f}" for x in m))
    assert _cells(label) == expected


def test_the_hmc_row_and_paragraph(tables):
    boston, diabetes = (tables[n][1]["hmc"] for n in ("boston", "diabetes"))
    assert _cells("HMC (NUTS)") == [_pm(boston), "—", "—", _pm(diabetes), "—"]
    ref = {n: load_reference(n) for n in ("boston", "diabetes")}
    s = ref["boston"]["sampler"]
    text = " ".join(README.split())
    assert (f"{s['num_chains']} chains × {s['num_samples']} draws after {s['num_warmup']} warm-up: Boston "
            f"predictive test MSE {_pm(boston)}, diabetes {_pm(diabetes)}") in text
    n_ok = {n: sum(sp["converged"] for sp in r["splits"]) for n, r in ref.items()}
    assert f"Diabetes has converged on all {len(ref['diabetes']['splits'])} splits, Boston on" in text
    assert n_ok["diabetes"] == len(ref["diabetes"]["splits"])
    assert f"Boston on {n_ok['boston']} of {len(ref['boston']['splits'])}:" in text
    mc = [sp["test_mse_mc_se"] for sp in ref["boston"]["splits"]]
    assert f"up to {max(mc):.3f}" in text
    z = max(replicate_agreement(ref[n], load_replicate(n, 1))["z_max"] for n in ref)
    assert f"largest |z| {z:.1f}" in text and z <= 3
