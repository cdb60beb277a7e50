"""perceptron_lib: the reference library of the perceptron course.

Two layers: plain functions in the notation of the course notes
(``perceptron_update``, ``train_perceptron``, ``margin``, ``absorb_offset`` ...),
whose labels are always -1 and +1, and scikit-learn estimators
(``Perceptron``, ``VotedPerceptron``, ``AveragedPerceptron``,
``MulticlassPerceptron``), which take any labels.  The estimators are loaded on
first use, so that importing the package for its functions and data does not
import scikit-learn.  Plotting lives in :mod:`perceptron_lib.plotting` and
needs matplotlib.
"""

from ._base import ConvergenceWarning, sign
from .bounds import deviation_mistake_bound, hinge_deviations, make_small_margin, make_tight, small_margin_weights
from .datasets import (
    OffsetUpdateExample,
    flip_labels,
    four_point_example,
    make_separable,
    make_xor,
    offset_update_example,
    one_dimensional_example,
)
from .perceptron import TrainingResult, perceptron_update, train_perceptron
from .theory import absorb_offset, is_separated, margin, mistake_bound, radius, signed_distance, split_offset
from .trace import TraceStep, format_trace, trace_perceptron

__version__ = "1.0.0"

__all__ = [
    "AveragedPerceptron",
    "ConvergenceWarning",
    "MulticlassPerceptron",
    "OffsetUpdateExample",
    "Perceptron",
    "TraceStep",
    "TrainingResult",
    "VotedPerceptron",
    "absorb_offset",
    "deviation_mistake_bound",
    "flip_labels",
    "format_trace",
    "four_point_example",
    "hinge_deviations",
    "is_separated",
    "make_separable",
    "make_small_margin",
    "make_tight",
    "make_xor",
    "margin",
    "mistake_bound",
    "offset_update_example",
    "one_dimensional_example",
    "perceptron_update",
    "radius",
    "sign",
    "signed_distance",
    "small_margin_weights",
    "split_offset",
    "trace_perceptron",
    "train_perceptron",
]

# Loaded from perceptron_lib.estimators on first use (it imports scikit-learn).
_ESTIMATORS = ("AveragedPerceptron", "MulticlassPerceptron", "Perceptron", "VotedPerceptron")


def __getattr__(name):
    if name in _ESTIMATORS:
        from . import estimators

        return getattr(estimators, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_ESTIMATORS))
