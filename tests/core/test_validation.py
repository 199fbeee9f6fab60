"""``core.validation``: the argument checkers' contracts, tested directly.

Each checker accepts the edges of its documented range, refuses values just outside with a
``ValueError`` that names the argument and the range, and refuses NaN, inf, masked entries,
strings and bools where a number is meant. (What the public functions refuse through them is
tabled in tests/project/test_bad_inputs.py.)
"""

import math

import numpy as np
import pytest

from ensemble_lib.core import validation as check

LO, HI = check.PRECISION_RANGE
NOT_A_NUMBER = [float("nan"), float("inf"), -float("inf"), "1.0", None, True, np.bool_(False), 1 + 0j,
                np.ma.masked_array(1.0, mask=True), [1.0]]


# -- scalars -----------------------------------------------------------------------------------
@pytest.mark.parametrize("value", [0.0, -3, np.float32(2.5), np.int64(7), np.array(1.5),
                                   np.ma.masked_array(2.0, mask=False)])
def test_real_accepts_any_finite_real_scalar_and_returns_a_float(value):
    out = check.real("x", value)
    assert type(out) is float and out == float(np.asarray(value))


@pytest.mark.parametrize("value", NOT_A_NUMBER)
def test_real_refuses_non_finite_strings_bools_complex_masked_and_sequences(value):
    with pytest.raises(ValueError, match=r"^x must be a finite real number"):
        check.real("x", value)


def test_positive_accepts_its_edges_and_refuses_just_outside_with_the_range():
    assert check.positive("s", 5e-324) == 5e-324  # the smallest number > 0
    assert check.positive("s", 2.0, lower=2.0, upper=3.0) == 2.0
    assert check.positive("s", 3.0, lower=2.0, upper=3.0) == 3.0
    for bad in (0.0, -0.0, -1e-300):
        with pytest.raises(ValueError, match=r"^s must be a finite number > 0"):
            check.positive("s", bad)
    with pytest.raises(ValueError, match=r"^s must be in \[2, 3\], got 3\.0000000000000004"):
        check.positive("s", np.nextafter(3.0, 4.0), lower=2.0, upper=3.0)
    with pytest.raises(ValueError, match=r"^s must be in \[2, 3\]"):
        check.positive("s", np.nextafter(2.0, 1.0), lower=2.0, upper=3.0)
    with pytest.raises(ValueError, match=r"^s must be in \(0, 1\]"):
        check.positive("s", 1.5, upper=1.0)


@pytest.mark.parametrize("value", NOT_A_NUMBER)
def test_positive_refuses_what_is_not_a_number(value):
    with pytest.raises(ValueError, match=r"^s must be a finite number > 0"):
        check.positive("s", value)


def test_precision_is_the_documented_range_inclusive():
    assert (LO, HI) == (1e-8, 1e8)
    assert check.precision("alpha", LO) == LO and check.precision("alpha", HI) == HI
    for bad in (np.nextafter(LO, 0.0), np.nextafter(HI, np.inf)):
        with pytest.raises(ValueError, match=r"^alpha must be in \[1e-08, 1e\+08\]"):
            check.precision("alpha", bad)


def test_noise_sd_is_the_sd_whose_precision_lies_in_the_precision_range():
    lo, hi = 1.0 / math.sqrt(HI), 1.0 / math.sqrt(LO)  # 1e-4 and 1e4, derived from β = 1/σ²
    assert check.noise_sd("sigma", lo) == lo and check.noise_sd("sigma", hi) == hi
    for bad in (np.nextafter(lo, 0.0), np.nextafter(hi, np.inf), 1e-200):
        with pytest.raises(ValueError, match=r"^sigma must be in \[0\.0001, 10000\]"):
            check.noise_sd("sigma", bad)
    with pytest.raises(ValueError, match=r"^sigma must be a finite number > 0"):
        check.noise_sd("sigma", 0.0)


def test_integer_accepts_its_bounds_and_numpy_integers_and_refuses_just_outside():
    assert check.integer("n", 1, low=1, high=3) == 1 and check.integer("n", np.int32(3), low=1, high=3) == 3
    assert type(check.integer("n", np.int64(2), low=0)) is int
    with pytest.raises(ValueError, match=r"^n must be an integer in \[1, 3\], got 0$"):
        check.integer("n", 0, low=1, high=3)
    with pytest.raises(ValueError, match=r"^n must be an integer in \[1, 3\], got 4$"):
        check.integer("n", 4, low=1, high=3)
    with pytest.raises(ValueError, match=r"^n must be an integer >= 1, got 0$"):
        check.integer("n", 0, low=1)
    for bad in (2.0, True, "2", None, float("nan")):
        with pytest.raises(ValueError, match=r"^n must be an integer >= 1, got"):
            check.integer("n", bad, low=1)


def test_flag_choice_and_callback_accept_only_their_kind():
    assert check.flag("f", np.bool_(True)) is True and check.flag("f", False) is False
    for bad in (1, 0, "True", None):
        with pytest.raises(ValueError, match=r"^f must be True or False"):
            check.flag("f", bad)
    assert check.choice("method", "full", ("diag", "full")) == "full"
    for bad in ("Full", "", None, 1):
        with pytest.raises(ValueError, match=r"^method must be one of \('diag', 'full'\)"):
            check.choice("method", bad, ("diag", "full"))
    assert check.callback("cb", None) is None and check.callback("cb", print) is print
    with pytest.raises(ValueError, match=r"^cb must be callable or None, got 'print'"):
        check.callback("cb", "print")


# -- arrays ------------------------------------------------------------------------------------
def test_real_array_returns_float_arrays_and_unmasks_an_array_without_masked_entries():
    out = check.real_array("x", [[1, 2], [3, 4]])
    assert out.dtype == np.float64 and out.shape == (2, 2)
    np.testing.assert_array_equal(check.real_array("x", np.ma.masked_array([1.0, 2.0], mask=False)), [1, 2])
    assert check.real_array("x", np.array([np.nan])).shape == (1,)  # finiteness is finite_array's job


@pytest.mark.parametrize("value, says", [
    ("abc", "must be an array of real numbers"), (None, "must be an array of real numbers"),
    ([True, False], "got bool"), (np.array([1 + 1j]), "got complex"), (["a", "b"], "got strings"),
    ([[1.0, 2.0], [3.0]], "not ragged"), (np.ma.masked_array([1.0, 2.0], mask=[0, 1]), "masked entries"),
])
def test_real_array_refuses_strings_bools_complex_ragged_and_masked_entries_by_name(value, says):
    with pytest.raises(ValueError, match=rf"^x .*{says}"):
        check.real_array("x", value)


def test_finite_array_checks_dimensions_size_and_finiteness():
    assert check.finite_array("x", [1.0, 2.0], ndim=1, min_size=2).shape == (2,)
    with pytest.raises(ValueError, match=r"^x must be a 2-D array, got shape \(2,\)"):
        check.finite_array("x", [1.0, 2.0], ndim=2)
    with pytest.raises(ValueError, match=r"^x must have at least 3 entries, got 2"):
        check.finite_array("x", [1.0, 2.0], min_size=3)
    for bad in (np.nan, np.inf, -np.inf):
        with pytest.raises(ValueError, match=r"^x must contain only finite values"):
            check.finite_array("x", [1.0, bad])


def test_finite_vector_and_matrix_check_shape_length_finiteness_and_overflowing_squares():
    assert check.finite_vector("y", [1e150], min_len=1).shape == (1,)  # (1e150)² = 1e300 is finite
    with pytest.raises(ValueError, match=r"^y must be a 1-D array, got shape \(1, 1\)"):
        check.finite_vector("y", [[1.0]])
    with pytest.raises(ValueError, match=r"^y must have at least 2 entries, got 1"):
        check.finite_vector("y", [1.0], min_len=2)
    with pytest.raises(ValueError, match=r"^y must contain only finite values"):
        check.finite_vector("y", [1.0, np.nan])
    with pytest.raises(ValueError, match=r"^y is too large: its sum of squares overflows"):
        check.finite_vector("y", [1e155])
    assert check.finite_matrix("X", [[1.0], [2.0]], min_rows=2).shape == (2, 1)
    for bad in ([1.0, 2.0], [[1.0]], np.zeros((2, 0))):
        with pytest.raises(ValueError, match=r"^X must be a 2-D array of shape \(N, k\) with at least 2 row"):
            check.finite_matrix("X", bad, min_rows=2, shape="(N, k)")
    with pytest.raises(ValueError, match=r"^X is too large"):
        check.finite_matrix("X", [[1e200]])


def test_interval_and_extent_need_ordered_finite_ends():
    assert check.interval("r", (0.0, 1e-300)) == (0.0, 1e-300)
    assert check.interval("r", [1e-300, 1.0], positive=True) == (1e-300, 1.0)
    for bad in ((1.0, 1.0), (2.0, 1.0), (0.0, np.inf), (0.0, 1.0, 2.0)):
        with pytest.raises(ValueError, match=r"^r must be two finite numbers \(low, high\) with low < high"):
            check.interval("r", bad)
    with pytest.raises(ValueError, match=r"with 0 < low < high"):
        check.interval("r", (0.0, 1.0), positive=True)
    assert check.extent("box", (0, 1, -1, 0)) == (0.0, 1.0, -1.0, 0.0)
    for bad in ((0, 0, 0, 1), (0, 1, 1, 1), (0, 1, 0, np.nan), (0, 1, 2)):
        with pytest.raises(ValueError, match=r"^box must be four finite numbers \(x0, x1, y0, y1\)"):
            check.extent("box", bad)


def test_sequence_and_ranks():
    assert check.sequence("xs", (1, 2)) == [1, 2] and check.sequence("xs", range(0)) == []
    for bad in ("ab", None, 3, {"a": 1}):
        with pytest.raises(ValueError, match=r"^xs must be a sequence"):
            check.sequence("xs", bad)
    assert check.ranks("k", [1, np.int64(2)]) == (1, 2)
    with pytest.raises(ValueError, match=r"^k must be an integer >= 1, got 0"):
        check.ranks("k", [1, 0])
    with pytest.raises(ValueError, match=r"^k must be a sequence of integers >= 1"):
        check.ranks("k", "12")


def test_mean_cov_accepts_a_positive_definite_pair_and_refuses_wrong_shape_asymmetry_and_indefiniteness():
    m, c = check.mean_cov([0.0, 1.0], [[2.0, 0.5], [0.5, 1.0]], 2)
    np.testing.assert_array_equal(c, c.T)
    bad = [([0.0], np.eye(2), r"^mean must have shape \(2,\), got \(1,\)"),
           ([0.0, 0.0], np.eye(3), r"^cov must have shape \(2, 2\), got \(3, 3\)"),
           ([0.0, np.nan], np.eye(2), r"^mean must be finite"),
           ([0.0, 0.0], [[1.0, np.inf], [np.inf, 1.0]], r"^cov must be finite"),
           ([0.0, 0.0], [[1.0, 0.5], [0.0, 1.0]], r"^cov must be symmetric"),
           ([0.0, 0.0], [[1.0, 2.0], [2.0, 1.0]], r"^cov must be positive definite")]  # eigenvalues 3, -1
    for mean, cov, says in bad:
        with pytest.raises(ValueError, match=says):
            check.mean_cov(mean, cov, 2)
    with pytest.raises(ValueError, match=r"^q mean must have shape"):
        check.mean_cov([0.0], np.eye(2), 2, names=("q mean", "q cov"))


def test_mean_cov_shapes_checks_both_shapes_only():
    check.mean_cov_shapes([np.nan, 0.0], -np.eye(2), 2)  # no finiteness or definiteness test here
    with pytest.raises(ValueError, match=r"^mean must have shape \(2,\) and cov \(2, 2\), got \(2,\) and \(2, 1\)"):
        check.mean_cov_shapes([0.0, 0.0], np.zeros((2, 1)), 2)


def test_gaussians_checks_every_pair_and_names_it_by_index():
    assert len(check.gaussians("starts", [([0.0], [[1.0]]), (np.ones(1), np.eye(1))], 1)) == 2
    with pytest.raises(ValueError, match=r"^starts must hold at least one"):
        check.gaussians("starts", [], 1)
    with pytest.raises(ValueError, match=r"^starts must be a list of \(mean, cov\) pairs"):
        check.gaussians("starts", None, 1)
    with pytest.raises(ValueError, match=r"^starts\[1\] must be a \(mean, cov\) pair"):
        check.gaussians("starts", [([0.0], [[1.0]]), ([0.0],)], 1)
    with pytest.raises(ValueError, match=r"^starts\[0\] cov must be positive definite"):
        check.gaussians("starts", [([0.0], [[-1.0]])], 1)


def test_finite_result_passes_finite_values_through_and_names_the_blamed_arguments():
    assert check.finite_result(3.0, "a") == 3.0
    np.testing.assert_array_equal(check.finite_result(np.array([1, 2]), "a"), [1, 2])
    for bad in (np.inf, np.array([1.0, np.nan]), complex(np.inf, 0.0)):
        with pytest.raises(ValueError, match=r"^exp\(a\) overflows for these arguments \(a=800\)"):
            check.finite_result(bad, "a=800", "exp(a)")


def test_generator_and_posterior_need_the_right_kind_of_object():
    rng = np.random.default_rng(0)
    assert check.generator("rng", rng) is rng
    for bad in (0, None, np.random.RandomState(0)):
        with pytest.raises(ValueError, match=r"^rng must be a numpy\.random\.Generator"):
            check.generator("rng", bad)
    with pytest.raises(ValueError, match=r"^post must be a posterior .*got dict"):
        check.posterior("post", {})
