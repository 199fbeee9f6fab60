"""Automatic relevance determination with weight classes (MacKay §3.2, §7): ensemble_lib.inference.ard.

The module re-exports its three parts, each tested on its own (tests/inference/test_class_prior.py,
test_class_evidence.py, test_class_ensemble.py); here, ARD itself through the names it exports: a pure
noise input switched off, the network's classes as MacKay §7 draws them, and bad classes refused by
every part.
"""


import numpy as np
import pytest

from ensemble_lib import LinearGaussianPosterior, make_posterior
from ensemble_lib.inference.ard import (ClassCollapsedBound, check_classes, class_evidence_reestimation,
                                        network_classes)



def test_ard_switches_off_a_pure_noise_input_of_a_linear_model():
    """A column of pure noise gets α_c at least 10x every real column's and the smallest γ_c."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(80, 4))
    y = X[:, :3] @ np.array([1.0, -0.7, 0.5]) + 0.3 * rng.normal(size=80)
    run = class_evidence_reestimation(LinearGaussianPosterior(X, y, 1.0, 1.0), [[0], [1], [2], [3]],
                                      tol=1e-9, max_iter=5000)
    a = run.alphas_final
    assert a[3] > 10 * a[:3].max()
    assert run.gammas_final[3] < run.gammas_final[:3].min()


def test_network_classes_partition_the_weights_as_mackay_section_7():
    d, H = 4, 3  # 3 real inputs + bias
    ard = network_classes(d, H, "ard")
    assert len(ard) == 5
    check_classes(ard, H * d + H)
    np.testing.assert_array_equal(ard[0], [0, 4, 8])      # input 0 into every unit
    np.testing.assert_array_equal(ard[3], [3, 7, 11])     # the hidden biases
    np.testing.assert_array_equal(ard[4], [12, 13, 14])   # the output weights
    layers = network_classes(d, H, "layers")
    assert [c.size for c in layers] == [9, 3, 3]
    assert [c.size for c in network_classes(d, H, "single")] == [15]


@pytest.mark.parametrize("classes, match", [
    ([[0, 1], []], r"classes\[1\] is empty"),
    ([[0, 1], [1, 2, 3, 4, 5]], r"classes overlap"),
    ([[0, 1, 2], [3, 4, 9]], r"classes\[1\] has index 9 out of range \[0, 5\]"),
    ([[0, 1, 2], [3, 4, -1]], r"out of range"),
    ([[0, 1, 2], [3, 4]], r"classes must cover every weight"),
    ([], r"classes must hold at least one class"),
    ("abc", r"classes must be a sequence"),
    ([[0, 1, 2], [3, 4, 5.0]], r"classes\[1\] must hold integer indices"),
])
def test_bad_classes_are_refused_naming_the_argument(classes, match):
    with pytest.raises(ValueError, match=match):
        check_classes(classes, 6)
    post = make_posterior(seed=0, alpha=1.0)
    with pytest.raises(ValueError, match="classes"):
        class_evidence_reestimation(post, [[0], [0]])
    with pytest.raises(ValueError, match="classes"):
        ClassCollapsedBound(post, [[0, 1], [2]])
