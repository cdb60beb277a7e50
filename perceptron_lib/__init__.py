"""perceptron_lib: the reference library of the perceptron course.

Two layers: plain functions in the notation of the course notes
(``perceptron_update``, ``train_perceptron``, ``margin``, ``absorb_offset`` ...)
and estimator classes in the scikit-learn style (``Perceptron``,
``VotedPerceptron``, ``AveragedPerceptron``).  Labels are always -1 and +1.
Plotting lives in :mod:`perceptron_lib.plotting` and needs matplotlib.
"""

from ._base import ConvergenceWarning, sign
from .averaged import AveragedPerceptron
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
from .perceptron import Perceptron, TrainingResult, perceptron_update, train_perceptron
from .theory import absorb_offset, is_separated, margin, mistake_bound, radius, signed_distance, split_offset
from .trace import TraceStep, format_trace, trace_perceptron
from .voted import VotedPerceptron

__version__ = "1.0.0"

__all__ = [
    "AveragedPerceptron",
    "ConvergenceWarning",
    "OffsetUpdateExample",
    "Perceptron",
    "TraceStep",
    "TrainingResult",
    "VotedPerceptron",
    "absorb_offset",
    "flip_labels",
    "format_trace",
    "four_point_example",
    "is_separated",
    "make_separable",
    "make_xor",
    "margin",
    "mistake_bound",
    "offset_update_example",
    "one_dimensional_example",
    "perceptron_update",
    "radius",
    "sign",
    "signed_distance",
    "split_offset",
    "trace_perceptron",
    "train_perceptron",
]
