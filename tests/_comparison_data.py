"""Data the model-comparison tests share (tests/inference/test_model_evidence.py, test_deletion_evidence.py,
test_hyperparameter_error_bars.py)."""

import numpy as np


def linear_data(seed, n, k=6, noise=0.5):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, k))
    return X, X @ rng.normal(size=k) + noise * rng.normal(size=n)
