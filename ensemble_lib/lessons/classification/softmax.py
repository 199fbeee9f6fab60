"""Lesson 8's several classes: the softmax (MacKay (16))."""

from __future__ import annotations


import numpy as np

from ...core import validation as check
from ...models.classification import LogisticPosterior, softmax_log_likelihood


# ---------------------------------------------------------------------------
# Several classes: the softmax (MacKay (16))
# ---------------------------------------------------------------------------

def softmax_demo(rng: np.random.Generator, n: int = 12, classes: int = 3) -> dict:
    """A softmax log likelihood (MacKay (16)) on random data: its value, its gradient beside central
    differences, and the two-class case beside the neuron's ln P(D|w) with w = W[:, 1] − W[:, 0]."""
    n = check.integer("n", n, low=1, high=10_000)
    classes = check.integer("classes", classes, low=2, high=100)
    rng = check.generator("rng", rng)
    x = rng.normal(size=(n, 2))
    W = rng.normal(size=(2, classes))
    T = np.eye(classes)[rng.integers(0, classes, size=n)]
    value, grad = softmax_log_likelihood(W, x, T)
    h = 1e-6
    numeric = np.zeros_like(W)
    for idx in np.ndindex(*W.shape):
        e = np.zeros_like(W)
        e[idx] = h
        numeric[idx] = (softmax_log_likelihood(W + e, x, T)[0] - softmax_log_likelihood(W - e, x, T)[0]) / (2 * h)
    W2 = W[:, :2]
    T2 = np.eye(2)[rng.integers(0, 2, size=n)]
    two = softmax_log_likelihood(W2, x, T2)[0]
    neuron = float(LogisticPosterior(x, T2[:, 1], 1.0).log_likelihood(W2[:, 1] - W2[:, 0]))
    return {"value": value, "grad_error": float(np.max(np.abs(grad - numeric))), "two_class": two,
            "neuron": neuron}


__all__ = ["softmax_demo"]
