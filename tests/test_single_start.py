"""``benchmarks/single_start.py`` (the check that the issue-14 reference misses some best toy fits) runs,
and on a known setting it finds what its report says: the reference, one plain BFGS on a 20 × 20
rule from the Laplace start, ends far above the library's fit there (the report's largest miss)."""

import numpy as np

from benchmarks import single_start as S


def test_the_single_start_check_reports_a_known_miss(monkeypatch):
    monkeypatch.setattr(S, "ALPHAS", np.geomspace(0.01, 10.0, 9)[1:2])  # the grid's second α
    monkeypatch.setattr(S, "NOISE_SDS", (0.1,))
    monkeypatch.setattr(S, "SEEDS", [2, 3])
    rows = S.compare()
    assert [r["seed"] for r in rows] == [2, 3]
    miss = rows[0]
    assert miss["reference"] - miss["library"] > 1.0  # 10.64 against 2.17 in the stored report
    assert all(r["reference"] >= r["library"] - 1e-6 for r in rows)  # the library's fit is never worse
    text = S.report(rows)
    assert "| [1, inf) | 1 |" in text and "2 settings" in text
