"""Data the weight-class tests share (tests/inference/test_ard.py, test_class_*.py)."""

import numpy as np


def linear_data(seed, n=60, k=4, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, k))
    w = rng.choice([-1.0, 1.0], size=k) * rng.uniform(0.3, 2.0, size=k)
    return X, X @ w + noise * rng.normal(size=n)
