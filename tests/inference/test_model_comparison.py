"""Model comparison (MacKay "Probable networks" §4–6): ensemble_lib.inference.model_comparison.

The module re-exports its four parts, each tested on its own (tests/inference/test_model_evidence.py,
test_deletion_evidence.py, test_committee.py, test_hyperparameter_error_bars.py); here, bad
arguments refused through the names it exports.
"""

import numpy as np
import pytest

from ensemble_lib import make_posterior
from ensemble_lib.inference.model_comparison import (SubsetPosterior, committee, distinct_optima,
                                                     deletion_evidence, model_log_evidence)


@pytest.mark.parametrize("call, match", [
    (lambda: distinct_optima([[0.0], [1.0]], [0.0]), "means"),
    (lambda: distinct_optima([[0.0], [np.nan]], [0.0, 0.0]), "means"),
    (lambda: distinct_optima([[0.0], [1.0]], [0.0, 0.0], atol=0.0), "atol"),
    (lambda: deletion_evidence([1.0, 2.0], np.eye(2), 1.0, [2]), "indices"),
    (lambda: deletion_evidence([1.0, 2.0], np.eye(2), 1.0, [0, 0]), "indices"),
    (lambda: deletion_evidence([1.0, 2.0], np.eye(2), -1.0, [0]), "prior_variances"),
    (lambda: committee([[0.0], [1.0]], [[1.0], [-1.0]], [0.0, 0.0]), "variances"),
    (lambda: committee([[0.0], [1.0]], [[1.0], [1.0]], [0.0]), "means"),
    (lambda: model_log_evidence("run"), "run"),
    (lambda: SubsetPosterior(make_posterior(seed=0), [5]), "keep"),
])
def test_bad_arguments_are_refused_naming_them(call, match):
    with pytest.raises(ValueError, match=match):
        call()
