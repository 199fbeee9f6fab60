"""The stored Boston pruning study (``figures/pruning_evidence.json``; MacKay §6 beside OBD).

Split 0 is re-derived from the stored configuration (the evidence fit, then the first three deletions
of both orders: the same weights, the same refitted log evidences and test errors); each stored step's
§6 prediction is its saliency plus Occam term; and what lesson 6 says about the table is checked.
"""

import pytest

from ensemble_lib.lessons import model_choice as L
from ensemble_lib.studies import pruning_evidence as P


@pytest.fixture(scope="module")
def stored():
    return P.load_result()


def test_the_stored_config_and_command_are_there(stored):
    config = P.PruningConfig(**stored["config"])
    assert config.as_dict() == stored["config"]
    assert stored["command"] == "python -m ensemble_lib.studies.pruning_evidence --run"
    assert [s["index"] for s in stored["splits"]] == list(range(config.n_splits))
    for s in stored["splits"]:
        assert len(s["weights"]) == s["k"] == config.n_hidden * 15  # 13 inputs + bias, and v
        for seq in s["sequences"].values():
            for x in seq["steps"]:
                assert x["predicted_change"] == pytest.approx(x["saliency"] + x["occam"], abs=1e-9)


def test_split_0_is_re_derived_from_the_stored_configuration(stored):
    config = P.PruningConfig(**stored["config"])
    post, st, Xte, yte, _ = P.fit_network(config, 0)
    old = stored["splits"][0]
    assert post.alpha == pytest.approx(old["alpha"], rel=1e-6) and post.beta == pytest.approx(old["beta"], rel=1e-6)
    full = P.laplace_evidence(post, start=st.mean)
    assert full.log_evidence == pytest.approx(old["log_evidence"], rel=1e-7)
    for method in P.METHODS:
        again = P.prune_sequence(post, full, Xte, yte, method, 3)["steps"]
        for a, b in zip(again, old["sequences"][method]["steps"][:3]):
            assert a["weight"] == b["weight"]
            for key in ("predicted_change", "refit_change", "log_evidence", "test_mse"):
                assert a[key] == pytest.approx(b[key], rel=1e-6, abs=1e-9), key


def test_what_the_lesson_says_about_pruning_boston_networks(stored):
    rows = L.pruning_study_rows(stored)
    assert [r["stop"] for r in rows] == [26, 23, 19]
    for r in rows:
        # §6's summed prediction is within 3 nats of the refits' (measured 0.5–2.9 over 19–26 deletions)
        assert abs(r["predicted_total"] - r["refit_total"]) < 3.0
        assert r["evidence_log_evidence"] - r["full_log_evidence"] > 20
        assert r["output_weights_deleted"] == 0
    # at the same number of deletions, the evidence's order is more probable on 2 of 3 splits
    assert sum(r["evidence_log_evidence"] > r["obd_log_evidence"] for r in rows) == 2
    # and the test error goes either way: better than OBD's order on 1 of 3
    assert sum(r["evidence_mse"] < r["obd_mse"] for r in rows) == 1
    occam = [x["occam"] for s in stored["splits"]
             for x in s["sequences"]["evidence"]["steps"][:s["sequences"]["evidence"]["stop_step"]]]
    assert -2.8 < min(occam) < -2.7 and -0.9 < max(occam) < -0.8
