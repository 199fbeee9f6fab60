"""Benchmark of the model-size study (issue 16): one split, one network size.

``python -m ensemble_lib.studies.model_size`` fits, per split and per H = 1 … 8, MacKay's
evidence framework from 2 random restarts and a diagonal ensemble from the best Laplace Gaussian
(:func:`~ensemble_lib.studies.model_size.size_row`). The issue's target is 2 minutes per split
(all eight sizes); the cases here time H = 4 and H = 8 on Boston split 0, so the per-split total
can be judged from them. The whole-split times of the stored run are written by ``--times``.
Timings are reported, never asserted.
"""

from __future__ import annotations

from ensemble_lib.studies.model_size import ModelSizeConfig, _split, size_row


def _case(H, target_ms):
    def setup():
        config = ModelSizeConfig()
        _, split, Xtr, Xte = _split("boston", config, 0)
        return config, split, Xtr, Xte

    def step(ctx):
        config, split, Xtr, Xte = ctx
        size_row(Xtr, split.y_train, Xte, split.y_test, H, config, 0)

    return setup, step, target_ms


CASES = {
    "boston_size_row_H4": _case(4, 15_000.0),
    "boston_size_row_H8": _case(8, 30_000.0),
}
