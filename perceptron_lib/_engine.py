"""The block-jump engine: the one-example-at-a-time loop at numpy speed.

The plain perceptron loop visits examples in order and updates on the first
one it gets wrong.  Between two mistakes the weights do not change, so every
example up to the next mistake can be scored with one matrix-vector product:
score a block, find the first mistake in it, update, and start the next block
just after that mistake.  The updates, and so the weights, are the ones the
plain loop makes, in the same order.

A block's scores are a screen, not the decision: an example is passed over
only when its screened agreement ``y (w @ x + b)`` exceeds a proven bound on
the rounding error of the screen, so it is certainly not a mistake.  The few
others are decided with the plain loop's own expression,
``y * (x @ w + b) <= 0`` in double precision.

What a mistake costs is a handful of numpy calls (score a block, compare,
find the first doubtful example, update: about 2 us), whatever the size of
the data; scoring costs a pass over the data per epoch.  The screen is chosen
by which of the two the run spends its time on:

- small data: a double-precision copy ``Z = [y x, y]`` (labels folded into the
  rows, plus a column for the offset), so that ``Z @ (w, b)`` is every
  agreement at once, in one operation per block, and ``v += Z[i]`` the update;
- large data: the first epochs screen ``X`` itself (no copy at all), which is
  best for the many runs that converge within a few epochs.  A run that keeps
  making many mistakes per epoch (overlapping classes) gets the
  double-precision copy, whose update is one operation; a run still going
  after the direct epochs with few mistakes per epoch gets a single-precision
  copy of ``Z``, half the bytes per epoch.

The bound on the rounding error grows with ``||(w, b)||``, which is computed
from the weights every few updates and in between bounded by adding each
update's largest possible length: one numpy call fewer per mistake.

Each mistake still costs numpy calls, while a compiled loop such as
scikit-learn's spends a few nanoseconds per example: where classes overlap
and a mistake comes every few examples, the numpy engine takes several times
scikit-learn's time, and only the compiled kernel keeps up.

Where the optional compiled kernel (:mod:`perceptron_lib._kernel`, built from
``_kernel.c`` at install time when a C compiler is present, and carried by the
student package's wheel for Linux on x86-64) is available, it
replaces the blocks altogether: it runs the whole epoch loop in C, makes the
updates itself, and returns to Python only for the rare example whose score is
too close to zero to be decided without numpy's own expression (its source
proves the bound).  It needs no copy of the data.  Setting the environment
variable ``PERCEPTRON_LIB_PURE_NUMPY`` to a non-empty value turns it off.
"""

import importlib
import math
import os
from contextlib import nullcontext

import numpy as np

_MIN_BLOCK = 32
_MAX_BLOCK = 1 << 15
_FLOAT32_UNIT = 2.0**-24
_FLOAT64_UNIT = 2.0**-53
# Screening in float32 needs every product z_i v_i well inside its range;
# data or weights outside these norms are screened in float64 instead.
_FLOAT32_NORMS = (1e-15, 1e15)
_FLOAT32_PRODUCT_LIMIT = 1e36
# Up to this many entries (n_samples * n_features), copying the data costs
# less than the extra operations per block of screening X directly.
_SMALL_DATA = 1 << 20
# Large data is screened directly for this many epochs before the float32 copy
# is made: a run that converges within them never pays for the copy.
_DIRECT_EPOCHS = 3
# A run on large data whose last epoch made at least one mistake per this
# many entries of the data gets the double-precision copy: a mistake screened
# on X or on the single-precision copy costs about 1 us more (measured), as
# much as reading this many more entries of the double-precision copy.
_MISTAKE_COST = 5000
# ... up to this many entries (a 256 MiB copy).
_LARGE_COPY = 1 << 25
# Between two computations of ||v|| from v, each update adds its largest
# possible length to a bound on ||v||, for at most this many updates (the
# bound, and with it the slack, stays within a few times the norm).
_NORM_REFRESH = 16
_NORM_GROWTH = 1.0 + 2.0**-50
_NORM_TINY = 2.0**-1060

# Where ||z|| ||v|| exceeds this, a dot product may overflow when summed in one
# order and not in another, so no rounding bound holds: every example is then
# decided by the plain loop's own expression (the compiled kernel does the same).
_BOUNDED_PRODUCT = 1e300
# A computed sum of squares below this may have lost its relative accuracy to
# underflow (each square can err by half the smallest subnormal), so the norm
# it gives could be far too small for the bounds.  Such a norm is bounded by
# _NORM_FLOOR instead: the true sum is then below 2^-959, its root below 2^-479.
_UNDERFLOW_SQUARES = 2.0**-960
_NORM_FLOOR = 2.0**-470
# The compiled kernel's error bound is proven for fewer terms than this.
_KERNEL_MAX_TERMS = 10_000_000

_blas_controller = None
# The compiled kernel module once looked up, False when it is missing or switched off.
_kernel_module = None


def compiled_kernel():
    """The compiled epoch loop, or None when it was not built or ``PERCEPTRON_LIB_PURE_NUMPY`` is set.

    It is imported on first use, by the first training run, so importing
    :mod:`perceptron_lib` does not load it.
    """
    global _kernel_module
    if _kernel_module is None:
        module = False
        if not os.environ.get("PERCEPTRON_LIB_PURE_NUMPY"):
            # Looked up by name: it is a compiled module with no source for
            # tools that read the package's imports (autograder.course.library).
            try:
                module = importlib.import_module(f"{__package__}._kernel")
            except ImportError:  # not built (no C compiler at install time): the numpy engine runs instead
                module = False
        _kernel_module = module
    return _kernel_module or None


def kernel_for(n_features, *arrays):
    """The compiled kernel for a loop over ``n_features`` features, or None when it cannot run it.

    The kernel reads the ``arrays`` in place, so each must be a C-contiguous float64 array, and its
    error bound is proven only for fewer than ``_KERNEL_MAX_TERMS`` terms (the features and the offset).
    """
    if n_features + 1 < _KERNEL_MAX_TERMS and all(a.dtype == np.float64 and a.flags.c_contiguous for a in arrays):
        return compiled_kernel()
    return None


def single_threaded_blas():
    """Context in which BLAS uses one thread.

    The blocks scored between two mistakes are small, and waking BLAS threads
    for each of them costs more than it saves (over twice the time on a busy
    machine), so training runs single-threaded.  Finding the BLAS libraries
    reads the process's memory map, which costs more than training a small
    data set, so it is done once per process.
    """
    global _blas_controller
    if _blas_controller is None:
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # optional: without it, BLAS keeps its own thread settings
            return nullcontext()
        _blas_controller = ThreadpoolController()
    return _blas_controller.limit(limits=1, user_api="blas")


def norm_bound(squares):
    """An upper bound (up to rounding) on the norm whose computed sum of squares is ``squares``; nan stays nan."""
    return _NORM_FLOOR if squares < _UNDERFLOW_SQUARES else math.sqrt(squares)


def max_squared_norm(X):
    """The largest ``||x_i||^2`` over the rows of ``X`` (inf or nan when ``X`` is not finite)."""
    return float(np.einsum("ij,ij->i", X, X).max())


class MistakeFinder:
    """Find, for fixed weights, the first example at or after ``start`` that they get wrong.

    ``X`` and ``y`` are the examples in visiting order; they are not modified.
    ``step`` is the signed size of each example's update, ``y`` times its
    weight (None when the examples are not weighted).  ``sq_norm``,
    when known, is ``max_squared_norm(X)``.
    """

    def __init__(self, X, y, fit_intercept, step=None, sq_norm=None):
        self.X = X
        self.y = y
        self.step = y if step is None else step
        # Each example's weight, |step|, or None when every weight is 1.
        self.weight = None if step is None else np.abs(step)
        self.n, self.d = X.shape
        self.fit_intercept = fit_intercept
        if sq_norm is None:
            sq_norm = max_squared_norm(X)
        self.max_z_norm = norm_bound(float(sq_norm) + (1.0 if fit_intercept else 0.0))
        self.Z = None
        # False once the weights were found too small or too large to screen in float32.
        self.single_fits = True
        self.epochs_started = 0
        self.block = 256
        self.kernel = kernel_for(self.d, X, self.y, self.step)
        if self.kernel is not None:
            self._set_slack(np.float64)
        elif self.n * self.d <= _SMALL_DATA:
            self._build(np.float64)
        else:
            self._set_slack(np.float64)

    def _set_slack(self, dtype):
        # Rounding Z and (w, b) to the screening precision, and the dot product
        # of m terms, together err by at most (m + 3) u ||z|| ||v|| (u the unit
        # roundoff), plus m times the smallest subnormal for each of rounding
        # a tiny entry, its product and its sum; twice that is the slack.  The
        # direct screen y (X @ w + b) errs by no more than a dot product of m terms.
        m = self.d + (1 if self.fit_intercept else 0)
        unit, tiny = (_FLOAT32_UNIT, 2.0**-149) if dtype == np.float32 else (_FLOAT64_UNIT, 2.0**-1074)
        self.screen_factor = 2.0 * ((m + 3) * unit * self.max_z_norm + m * tiny)
        self.screen_floor = 2.0 * 3 * m * tiny

    def _build(self, dtype):
        """Make the screening copy ``Z = [y x, y]`` and its rounding bound in ``dtype``."""
        d = self.d
        self.Z = None  # let go of the copy this one replaces before allocating it
        self.Z = np.empty((self.n, d + (1 if self.fit_intercept else 0)), dtype=dtype)
        np.multiply(self.X, self.y[:, None], out=self.Z[:, :d], casting="same_kind")
        if self.fit_intercept:
            self.Z[:, -1] = self.y
        self._v = np.empty(self.Z.shape[1], dtype=dtype)
        self._set_slack(dtype)

    def start_epoch(self, last_mistakes=None):
        """Called before each epoch, with the number of mistakes the last one made (None before the first).

        Small data keeps its double-precision copy.  Large data is screened
        directly at first; a run that makes many mistakes per epoch gets the
        double-precision copy, whose update is one operation, and one still
        going after the direct epochs with few mistakes per epoch gets the
        single-precision copy, half the bytes to read.  As the mistakes per
        epoch change, so does the copy (the single-precision one only once
        they have halved, so that the copies do not alternate).
        """
        self.epochs_started += 1
        if self.kernel is not None or self.n * self.d <= _SMALL_DATA:
            return
        entries = self.n * (self.d + 1)
        many = last_mistakes is not None and last_mistakes * _MISTAKE_COST >= entries and entries <= _LARGE_COPY
        few = last_mistakes is not None and 2 * last_mistakes * _MISTAKE_COST < entries
        dtype = None if self.Z is None else self.Z.dtype
        if many and dtype != np.float64:
            self._build(np.float64)
        elif (dtype is None and self.epochs_started > _DIRECT_EPOCHS) or (dtype == np.float64 and few):
            low, high = _FLOAT32_NORMS
            if self.single_fits and low < self.max_z_norm < high:
                self._build(np.float32)
            elif dtype is None:
                self._build(np.float64)

    def reorder(self, order):
        """A finder over the same examples visited in ``order`` (used when shuffling)."""
        other = object.__new__(MistakeFinder)
        other.__dict__.update(self.__dict__)
        other.X, other.y, other.step = self.X[order], self.y[order], self.step[order]
        if self.weight is not None:
            other.weight = self.weight[order]
        if self.Z is not None:
            other.Z = self.Z[order]
            other._v = self._v.copy()
        return other

    def run_epoch(self, state):
        """One pass of the plain loop over the examples in order; returns the number of mistakes.

        Each mistake is reported to ``state.on_mistake`` (when the state keeps
        extra bookkeeping) before the update ``w += step x``, ``b += step`` is
        made to ``state.v``.  The loop runs once per mistake, and a mistake
        every few examples is common, so it keeps to few numpy calls (about
        five per mistake) and reads everything else from local variables.
        """
        if self.kernel is not None:
            return self._run_compiled_epoch(state)
        X, y, weight, n, d = self.X, self.y, self.weight, self.n, self.d
        fit_intercept, max_z_norm = self.fit_intercept, self.max_z_norm
        v = state.v
        w = v[:d]
        hook = state.on_mistake if state.keeps_history else None
        # The screen: Z in double precision, Z in single precision, or X itself (Z None).
        Z = self.Z
        single = Z is not None and Z.dtype == np.float32
        screen_factor, screen_floor = self.screen_factor, self.screen_floor
        block = self.block
        made = 0
        start = 0
        # v_norm bounds ||v|| (up to the rounding that norm_bound allows): it is
        # computed from v at least every _NORM_REFRESH updates, and in between
        # each update adds its largest possible length.  The single-precision
        # screen needs the norm itself, to know it is not too small.
        v_norm, stale = 0.0, _NORM_REFRESH
        while start < n:
            if stale >= _NORM_REFRESH or single or not v_norm * max_z_norm <= _BOUNDED_PRODUCT:
                v_norm, stale = norm_bound(float(v.dot(v))), 0
                # Screening in float32 also needs (v, b) large enough that rounding
                # its entries to float32 errs by little relative to ||v||.
                if single and not (_FLOAT32_NORMS[0] < v_norm and v_norm * max_z_norm <= _FLOAT32_PRODUCT_LIMIT):
                    self.single_fits = False
                    self._build(np.float64)
                    Z, single = self.Z, False
                    screen_factor, screen_floor = self.screen_factor, self.screen_floor
            if single:
                screen_v = self._v
                screen_v[:] = v
            elif Z is not None:
                screen_v = v
            else:
                b = v[d] if fit_intercept else 0.0
            # (With zero weights every agreement is exactly 0, whatever the factor.)
            screen_slack = (screen_factor * v_norm if v_norm else 0.0) + screen_floor
            if not v_norm * max_z_norm <= _BOUNDED_PRODUCT:
                screen_slack = math.inf
            mistake = -1
            i = start
            while i < n:
                stop = i + block
                if stop > n:
                    stop = n
                # (ndarray.dot costs less per call than the @ operator; the bound
                # holds for any order of summation.)
                if Z is not None:
                    agreement = Z[i:stop].dot(screen_v)
                else:
                    agreement = X[i:stop].dot(w)
                    agreement += b
                    agreement *= y[i:stop]
                # Doubtful is "not above" rather than "at most": an overflowed agreement (nan) is doubtful too.
                clear = agreement > screen_slack
                k = int(clear.argmin())
                while not clear[k]:
                    j = i + k
                    # Below -slack the screen proves the mistake; in between,
                    # the plain loop's expression decides.
                    if agreement[k] < -screen_slack or y[j] * (X[j] @ w + (v[d] if fit_intercept else 0.0)) <= 0:
                        mistake = j
                        break
                    k += 1
                    if k == stop - i:
                        break
                    k += int(clear[k:].argmin())
                if mistake >= 0:
                    # Mistakes tend to come at a steady rate: size the next
                    # block to the gap just seen.
                    block = mistake - start + 1
                    block = _MIN_BLOCK if block < _MIN_BLOCK else _MAX_BLOCK if block > _MAX_BLOCK else block
                    break
                if block < _MAX_BLOCK:
                    block *= 2
                i = stop
            if mistake < 0:
                break
            if hook is not None:
                hook(X[mistake], self.step[mistake], state.visits + mistake)
            if Z is not None and not single:
                # With a double-precision Z the update is one operation: step [x, 1]
                # is the weight times Z[i] = y [x, 1], bit for bit, since y is -1 or +1.
                if weight is None:
                    v += Z[mistake]
                else:
                    v += weight[mistake] * Z[mistake]
            elif weight is None:
                # The step is y, -1 or +1, and w - x is w + (-1) x bit for bit.
                if y[mistake] > 0:
                    w += X[mistake]
                else:
                    w -= X[mistake]
                if fit_intercept:
                    v[d] += y[mistake]
            else:
                self._plain_update(v, mistake)
            # Rounded, the new v is at most (1 + u)^2 (||v|| + weight ||z||) long;
            # _NORM_GROWTH = 1 + 8u covers that and the rounding of the three
            # operations below, and _NORM_TINY what they lose where they underflow.
            length = max_z_norm if weight is None else float(weight[mistake]) * max_z_norm
            v_norm = (v_norm + length) * _NORM_GROWTH + _NORM_TINY
            stale += 1
            made += 1
            start = mistake + 1
        self.block = block
        return made

    def _plain_update(self, v, i):
        """The update on example ``i`` as the plain loop writes it: ``w += step x_i``, and ``b += step``."""
        v[:self.d] += self.step[i] * self.X[i]
        if self.fit_intercept:
            v[-1] += self.step[i]

    def _run_compiled_epoch(self, state):
        """``run_epoch`` with the compiled kernel: C decides and updates, Python only the close calls.

        A state that keeps a history gets the kernel back at every mistake, so
        that its hook runs before the update, as in the numpy engine.
        """
        X, y, step, n, d = self.X, self.y, self.step, self.n, self.d
        fit_intercept = self.fit_intercept
        v = state.v
        w = v[:d]
        hook = state.on_mistake if state.keeps_history else None
        scan = self.kernel.scan
        made = 0
        start = 0
        while start < n:
            i, status, made_in_c = scan(X, y, step, v, n, d, fit_intercept, start, self.max_z_norm, hook is None)
            made += made_in_c
            if status == 0:
                break
            # status 2: too close to call in C; the plain loop's own expression decides.
            if status == 2 and not y[i] * (X[i] @ w + (v[d] if fit_intercept else 0.0)) <= 0:
                start = i + 1
                continue
            if hook is not None:
                hook(X[i], step[i], state.visits + i)
            self._plain_update(v, i)
            made += 1
            start = i + 1
        return made


class MulticlassMistakeFinder:
    """Find, for fixed class weights, the first example at or after ``start`` that they get wrong.

    The multiclass perceptron gets example ``i`` wrong when some other class
    scores at least as high as its own class ``y[i]``.  As for two classes,
    the weights only change at a mistake, so a block of examples is scored
    with one matrix product, in double precision; an example is passed over
    only when its own class beats every other by more than a proven bound on
    the rounding error of that product.  The few others are decided with the
    plain loop's own expression, ``W @ x + b``.  Where the compiled kernel is
    available it runs the loop instead, and likewise hands back the close calls.
    """

    def __init__(self, X, y, fit_intercept, step, sq_norm=None):
        self.X = X
        # Class indices as the compiled kernel reads them (any integer type indexes the same).
        self.y = np.ascontiguousarray(y, dtype=np.intp)
        self.step = step
        self.n = X.shape[0]
        self.fit_intercept = fit_intercept
        if sq_norm is None:
            sq_norm = max_squared_norm(X)
        self.max_x_norm = max_x_norm = norm_bound(float(sq_norm) + (1.0 if fit_intercept else 0.0))
        self.kernel = kernel_for(X.shape[1], X, self.step)
        # Each score errs by at most (m + 3) u ||(x, 1)|| ||(w_c, b_c)|| plus the
        # subnormal terms (as in MistakeFinder); a difference of two scores by
        # twice that, and twice again is the slack.
        m = X.shape[1] + 1
        unit, tiny = _FLOAT64_UNIT, 2.0**-1074
        self.screen_factor = 4.0 * ((m + 3) * unit * max_x_norm + m * tiny)
        self.screen_floor = 4.0 * 3 * m * tiny
        self.block = 256

    def start_epoch(self, last_mistakes=None):
        """Called before each epoch; the multiclass screen needs no preparation."""

    def reorder(self, order):
        """A finder over the same examples visited in ``order`` (used when shuffling)."""
        other = object.__new__(MulticlassMistakeFinder)
        other.__dict__.update(self.__dict__)
        other.X, other.y, other.step = self.X[order], self.y[order], self.step[order]
        return other

    @staticmethod
    def rival(scores, label):
        """The plain loop's decision: the best-scoring other class (lowest index on ties), and whether it wins."""
        others = scores.copy()
        others[label] = -np.inf
        rival = int(others.argmax())
        return rival, bool(others[rival] >= scores[label])

    def next_mistake(self, state, start):
        """The first mistake at or after ``start`` left to ``state`` to make: ``(i, rival, made)``.

        Without the compiled kernel that is the first mistake (``made`` is 0).  With
        it, the kernel makes the plain loop's updates to the state's weights (and
        averaging sums) itself, ``made`` of them, and stops only at a close call
        that numpy's own expression finds to be a mistake; ``(-1, -1, made)`` when
        there is no mistake left.
        """
        W, b = state.W, state.b
        if self.kernel is None:
            return (*self.first_mistake(W, b, start), 0)
        X, y, step, n = self.X, self.y, self.step, self.n
        sums = (state.U, state.beta) if state.average else (None, None)
        made = 0
        while True:
            i, status, made_in_c = self.kernel.scan_multiclass(
                X, y, step, W, b, *sums, state.visits, n, X.shape[1], W.shape[0], self.fit_intercept, start,
                self.max_x_norm)
            made += made_in_c
            if status == 0:
                return -1, -1, made
            # Too close to call in C: the plain loop's own expression decides.
            rival, wrong = self.rival(W @ X[i] + b, y[i])
            if wrong:
                return i, rival, made
            start = i + 1

    def first_mistake(self, W, b, start):
        """``(i, rival)`` for the first ``i >= start`` that ``(W, b)`` gets wrong, or ``(-1, -1)``."""
        X, y, n = self.X, self.y, self.n
        # Every row's norm is at most the largest computed root or, for a row whose sum of
        # squares underflowed, the floor (see norm_bound); the bound must hold for each row.
        v_norm = max(math.sqrt(float((np.einsum("ij,ij->i", W, W) + b * b).max())), _NORM_FLOOR)
        screen_slack = (self.screen_factor * v_norm if v_norm else 0.0) + self.screen_floor
        if not v_norm * self.max_x_norm <= _BOUNDED_PRODUCT:
            screen_slack = math.inf
        i = start
        while i < n:
            stop = min(n, i + self.block)
            scores = X[i:stop] @ W.T
            scores += b
            rows = np.arange(stop - i)
            own = scores[rows, y[i:stop]]
            scores[rows, y[i:stop]] = -np.inf
            doubtful = np.flatnonzero(np.logical_not(own - scores.max(axis=1) > screen_slack))
            for k in doubtful:
                j = i + int(k)
                rival, wrong = self.rival(W @ X[j] + b, y[j])
                if wrong:
                    self.block = min(_MAX_BLOCK, max(_MIN_BLOCK, j - start + 1))
                    return j, rival
            self.block = min(_MAX_BLOCK, 2 * self.block)
            i = stop
        return -1, -1
