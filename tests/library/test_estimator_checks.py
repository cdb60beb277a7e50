"""scikit-learn's own estimator checks, run over every estimator of the library.

Besides the expected failure below, scikit-learn itself skips the checks that
need pandas (not a dependency of this project) and the array API checks (which
run only with ``SCIPY_ARRAY_API=1`` and apply to estimators that support the
array API, which these do not claim).
"""

import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from perceptron_lib import AveragedPerceptron, MulticlassPerceptron, Perceptron, VotedPerceptron

# A second or less each, but about a minute in all: not for the edit loop (make test-fast).
pytestmark = pytest.mark.slow

ESTIMATORS = [Perceptron(), AveragedPerceptron(), VotedPerceptron(), MulticlassPerceptron(),
              MulticlassPerceptron(average=True)]

# Every check that does not pass, with the reason; all others must pass.
SAMPLE_WEIGHT_IS_A_STEP_SIZE = (
    "sample_weight scales the size of an example's update; a weight of 2 is one update of twice the size, "
    "while repeating the example makes a second update only if the first did not already fix it"
)
EXPECTED_FAILURES = {
    "check_sample_weight_equivalence_on_dense_data": SAMPLE_WEIGHT_IS_A_STEP_SIZE,
}


def expected_failures(estimator):
    return EXPECTED_FAILURES


@parametrize_with_checks(ESTIMATORS, expected_failed_checks=expected_failures)
def test_scikit_learn_estimator_checks(estimator, check):
    check(estimator)
