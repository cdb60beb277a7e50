"""Mistakes in problem set 4: lifting, splitting, the perceptron through the origin, the offset recovered.

Part C is judged with right functions of Parts A and B in place of the student's (the notebook's locked
``lifting_with_your_functions``), so a mistake in Part A or B of any kind names its own cell only; a mistake
of Part C's own names Part C's cells, whether Parts A and B are right or not.
"""

from autograder.course.known_wrong import KnownWrong


def _origin(*, test="y_i * (theta @ x_i) <= 0", step="theta = theta + y_i * x_i",
            stop="if made == 0:\n                    break", result="theta, n_mistakes, epoch",
            start="np.zeros(X.shape[1])", epochs="range(1, max_epochs + 1)"):
    """The perceptron through the origin with one of its lines replaced by a mistake."""
    return f"""
        def train_through_origin(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            theta = {start}
            n_mistakes = 0
            for epoch in {epochs}:
                made = 0
                for x_i, y_i in zip(X, y):
                    if {test}:
                        {step}
                        made += 1
                n_mistakes += made
                {stop}
            return {result}
        """


# The right run on the labels folded into X once, in place (the caller's float X changes).
ORIGIN_FOLDING_THE_LABELS_IN_PLACE = """
        def train_through_origin(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            X *= np.asarray(y, dtype=float)[:, None]
            theta = np.zeros(X.shape[1])
            n_mistakes = 0
            for epoch in range(1, max_epochs + 1):
                made = 0
                for z in X:
                    if theta @ z <= 0:
                        theta = theta + z
                        made += 1
                n_mistakes += made
                if made == 0:
                    break
            return theta, n_mistakes, epoch
        """


def _pasted(*, step_b="b = b + float(y_i)"):
    """Problem set 2's training loop pasted into train_with_lifting: the right numbers, without the lifting."""
    return f"""
        def train_with_lifting(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            w = np.zeros(X.shape[1])
            b = 0.0
            n_mistakes = 0
            for epoch in range(1, max_epochs + 1):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        w = w + y_i * x_i
                        {step_b}
                        made += 1
                n_mistakes += made
                if made == 0:
                    break
            return w, float(b), n_mistakes, epoch
        """


PREPENDS_THE_ONES = """
        def absorb_offset(X):
            X = np.asarray(X, dtype=float)
            return np.hstack([np.ones((X.shape[0], 1)), X])
        """

LIFTING = ("lifting_one_dimensional", "lifting_general")

# Part C calling train_through_origin without max_epochs, so the right one runs with its default: known wrong
# alone, and beside mistakes in Parts A and B.
LIFTING_IGNORES_MAX_EPOCHS = """
        def train_with_lifting(X, y, *, max_epochs=100):
            theta, n_mistakes, n_epochs = train_through_origin(absorb_offset(X), y)
            w, b = split_offset(theta)
            return w, b, n_mistakes, n_epochs
        """

KNOWN_WRONG = [
    # -- absorb_offset ------------------------------------------------------------------
    KnownWrong("absorb_offset_prepends_the_ones", PREPENDS_THE_ONES, ("absorb_offset_values",)),
    KnownWrong("absorb_offset_appends_zeros", """
        def absorb_offset(X):
            X = np.asarray(X, dtype=float)
            return np.hstack([X, np.zeros((X.shape[0], 1))])
        """, ("absorb_offset_values",)),
    KnownWrong("absorb_offset_appends_a_row", """
        def absorb_offset(X):
            X = np.asarray(X, dtype=float)
            return np.vstack([X, np.ones((1, X.shape[1]))])
        """, ("absorb_offset_values",)),
    KnownWrong("absorb_offset_returns_X", """
        def absorb_offset(X):
            return np.asarray(X, dtype=float)
        """, ("absorb_offset_values",)),
    KnownWrong("absorb_offset_appends_minus_ones", """
        def absorb_offset(X):
            X = np.asarray(X, dtype=float)
            return np.hstack([X, -np.ones((X.shape[0], 1))])
        """, ("absorb_offset_values",)),
    KnownWrong("absorb_offset_keeps_only_the_first_feature", """
        def absorb_offset(X):
            X = np.asarray(X, dtype=float)
            return np.column_stack([X[:, 0], np.ones(X.shape[0])])
        """, ("absorb_offset_values",)),
    # A flat array: train_through_origin raises on it (X.shape[1]), but Part C runs with a right absorb_offset.
    KnownWrong("absorb_offset_flattens", """
        def absorb_offset(X):
            X = np.asarray(X, dtype=float)
            return np.append(X, np.ones((X.shape[0], 1)))
        """, ("absorb_offset_values",)),
    # Writes into the caller's float X; Part C runs with a right absorb_offset, so train_with_lifting does not.
    KnownWrong("absorb_offset_overwrites_the_last_column", """
        def absorb_offset(X):
            X = np.asarray(X, dtype=float)
            X[:, -1] = 1.0
            return X
        """, ("absorb_offset_values",)),
    # An integer X lifted without a conversion: the right values, as an integer array (the docstring asks for float64).
    KnownWrong("absorb_offset_inserts_into_an_integer_array", """
        def absorb_offset(X):
            return np.insert(X, X.shape[1], 1, axis=1)
        """, ("absorb_offset_values",)),
    KnownWrong("absorb_offset_appends_integer_ones", """
        def absorb_offset(X):
            return np.c_[X, np.ones(len(X), int)]
        """, ("absorb_offset_values",)),
    # Lifted in float32: values within the tolerance on most cases, but not float64, which the docstring asks for.
    KnownWrong("absorb_offset_in_float32", """
        def absorb_offset(X):
            X = np.asarray(X, dtype=np.float32)
            return np.hstack([X, np.ones((X.shape[0], 1), dtype=np.float32)])
        """, ("absorb_offset_values",)),
    # -- split_offset ------------------------------------------------------------------------
    KnownWrong("split_offset_takes_the_first_entry", """
        def split_offset(theta):
            theta = np.asarray(theta, dtype=float)
            return theta[1:].copy(), float(theta[0])
        """, ("split_offset_values",)),
    KnownWrong("split_offset_offset_as_array", """
        def split_offset(theta):
            theta = np.asarray(theta, dtype=float)
            return theta[:-1].copy(), theta[-1:]
        """, ("split_offset_values",)),
    KnownWrong("split_offset_keeps_the_offset_in_w", """
        def split_offset(theta):
            theta = np.asarray(theta, dtype=float)
            return theta.copy(), float(theta[-1])
        """, ("split_offset_values",)),
    KnownWrong("split_offset_w_is_the_first_entry_only", """
        def split_offset(theta):
            theta = np.asarray(theta, dtype=float)
            return theta[:1].copy(), float(theta[-1])
        """, ("split_offset_values",)),
    KnownWrong("split_offset_offset_as_float32", """
        def split_offset(theta):
            theta = np.asarray(theta, dtype=float)
            return theta[:-1].copy(), np.float32(theta[-1])
        """, ("split_offset_values",)),
    KnownWrong("split_offset_returns_b_first", """
        def split_offset(theta):
            theta = np.asarray(theta, dtype=float)
            return float(theta[-1]), theta[:-1].copy()
        """, ("split_offset_values",)),
    # An integer theta split as it is: an integer w and an np.int64 b, where the docstring asks for floats.
    KnownWrong("split_offset_keeps_the_integer_dtype", """
        def split_offset(theta):
            return theta[:-1], theta[-1]
        """, ("split_offset_values",)),
    # b as an array of shape (): a number to print, not a float (expect_number in the visible test refuses it too).
    KnownWrong("split_offset_offset_as_a_0d_array", """
        def split_offset(theta):
            theta = np.asarray(theta, dtype=float)
            return theta[:-1].copy(), theta[-1:].reshape(())
        """, ("split_offset_values",)),
    # -- train_through_origin ---------------------------------------------------------------
    KnownWrong("origin_on_plane_is_not_a_mistake", _origin(test="y_i * (theta @ x_i) < 0"),
               ("train_through_origin_values",)),
    KnownWrong("origin_wrong_sign", _origin(step="theta = theta - y_i * x_i"), ("train_through_origin_values",)),
    KnownWrong("origin_never_stops_early", _origin(stop="pass"), ("train_through_origin_values",)),
    KnownWrong("origin_stops_after_one_epoch", _origin(stop="break"), ("train_through_origin_values",)),
    KnownWrong("origin_counts_last_epoch_only", _origin(result="theta, made, epoch"),
               ("train_through_origin_values",)),
    KnownWrong("origin_predicts_minus_one_on_the_plane", _origin(test="(1 if theta @ x_i > 0 else -1) != y_i"),
               ("train_through_origin_values",)),
    KnownWrong("origin_updates_without_the_label", _origin(step="theta = theta + x_i"),
               ("train_through_origin_values",)),
    KnownWrong("origin_starts_from_the_first_example", _origin(start="y[0] * X[0]"),
               ("train_through_origin_values",)),
    KnownWrong("origin_counts_epochs_from_zero", _origin(epochs="range(max_epochs)"),
               ("train_through_origin_values",)),
    KnownWrong("origin_runs_one_epoch_too_few", _origin(epochs="range(1, max_epochs)"),
               ("train_through_origin_values",)),
    KnownWrong("origin_runs_one_epoch_too_many", _origin(epochs="range(1, max_epochs + 2)"),
               ("train_through_origin_values",)),
    # A shortcut after an epoch with mistakes: when theta already separates the data, count the clean epoch that
    # would follow as run. One epoch too many, past max_epochs, when the last mistake falls in the last epoch allowed.
    # (Returning min(epoch + 1, max_epochs) instead is right: see RIGHT_ANSWERS in the claims test.)
    KnownWrong("origin_counts_the_clean_epoch_it_skips",
               _origin(stop="if made == 0:\n                    break\n"
                            "                if np.all(y * (X @ theta) > 0):\n"
                            "                    return theta, n_mistakes, epoch + 1"),
               ("train_through_origin_values",)),
    # Whole numbers as floats: the docstrings ask for int counts.
    KnownWrong("origin_returns_float_counts", _origin(result="theta, float(n_mistakes), float(epoch)"),
               ("train_through_origin_values",)),
    KnownWrong("origin_returns_numpy_float_counts", _origin(result="theta, np.float64(n_mistakes), np.float64(epoch)"),
               ("train_through_origin_values",)),
    KnownWrong("origin_leaves_out_the_epoch_without_mistakes", _origin(result="theta, n_mistakes, epoch - (made == 0)"),
               ("train_through_origin_values",)),
    KnownWrong("origin_folds_the_labels_into_X_in_place", """
        def train_through_origin(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            theta = np.zeros(X.shape[1])
            n_mistakes = 0
            for epoch in range(1, max_epochs + 1):
                made = 0
                for x_i, y_i in zip(X, y):
                    x_i *= y_i  # y_i x_i, computed once
                    if theta @ x_i <= 0:
                        theta = theta + x_i
                        made += 1
                n_mistakes += made
                if made == 0:
                    break
            return theta, n_mistakes, epoch
        """, ("train_through_origin_values",)),
    # theta shaped like a point, and updated in place: on integer points an update by a float label raises
    # UFuncTypeError, and with integer labels theta comes back as an integer array.
    KnownWrong("origin_zeros_like_in_place", _origin(start="np.zeros_like(X[0])", step="theta += y_i * x_i")
               .replace("X = np.asarray(X, dtype=float)", "X = np.asarray(X)"), ("train_through_origin_values",)),
    KnownWrong("origin_starts_with_the_dtype_of_X", _origin(start="np.zeros(X.shape[1], dtype=X.dtype)")
               .replace("X = np.asarray(X, dtype=float)", "X = np.asarray(X)"), ("train_through_origin_values",)),
    # The notes' sign(0) = +1 used as the mistake test: a point on the plane labelled -1 is then a mistake, but one
    # labelled +1 is not.
    KnownWrong("origin_predicts_plus_one_on_the_plane", _origin(test="(1 if theta @ x_i >= 0 else -1) != y_i"),
               ("train_through_origin_values",)),
    KnownWrong("origin_strict_test_unless_theta_is_zero", _origin(test="y_i * (theta @ x_i) < 0 or not theta.any()"),
               ("train_through_origin_values",)),
    # The right run on the labels folded into X once, in place: the caller's float X changes (the docstring says
    # "Not modified"). train_with_lifting hands it a new lifted array, so Part C keeps its points.
    KnownWrong("origin_folds_the_labels_into_X_once_in_place", ORIGIN_FOLDING_THE_LABELS_IN_PLACE,
               ("train_through_origin_values",)),
    # theta as a list: the right numbers, not the float64 array the docstring asks for. split_offset converts it.
    KnownWrong("origin_returns_theta_as_a_list", _origin(result="theta.tolist(), n_mistakes, epoch"),
               ("train_through_origin_values",)),
    KnownWrong("origin_zeros_like_without_a_conversion", _origin(start="np.zeros_like(X[0])")
               .replace("X = np.asarray(X, dtype=float)", "X = np.asarray(X)"), ("train_through_origin_values",)),
    # -- train_with_lifting ------------------------------------------------------------------------
    KnownWrong("lifting_forgets_to_lift", """
        def train_with_lifting(X, y, *, max_epochs=100):
            theta, n_mistakes, n_epochs = train_through_origin(X, y, max_epochs=max_epochs)
            return theta, 0.0, n_mistakes, n_epochs
        """, LIFTING),
    KnownWrong("lifting_with_constant_two", """
        def train_with_lifting(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            lifted = np.hstack([X, np.full((X.shape[0], 1), 2.0)])
            theta, n_mistakes, n_epochs = train_through_origin(lifted, y, max_epochs=max_epochs)
            return theta[:-1], float(2 * theta[-1]), n_mistakes, n_epochs
        """, LIFTING),
    KnownWrong("lifting_returns_theta", """
        def train_with_lifting(X, y, *, max_epochs=100):
            return train_through_origin(absorb_offset(X), y, max_epochs=max_epochs)
        """, LIFTING),
    KnownWrong("lifting_ignores_max_epochs", LIFTING_IGNORES_MAX_EPOCHS, LIFTING),
    KnownWrong("lifting_with_constant_two_split_as_if_one", """
        def train_with_lifting(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            lifted = np.hstack([X, np.full((X.shape[0], 1), 2.0)])
            theta, n_mistakes, n_epochs = train_through_origin(lifted, y, max_epochs=max_epochs)
            return theta[:-1], float(theta[-1]), n_mistakes, n_epochs
        """, LIFTING),
    KnownWrong("lifting_with_the_radius_as_constant", """
        def train_with_lifting(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            R = np.linalg.norm(X, axis=1).max()
            lifted = np.hstack([X, np.full((X.shape[0], 1), R)])
            theta, n_mistakes, n_epochs = train_through_origin(lifted, y, max_epochs=max_epochs)
            return theta[:-1], float(R * theta[-1]), n_mistakes, n_epochs
        """, LIFTING),
    KnownWrong("lifting_returns_minus_the_offset", """
        def train_with_lifting(X, y, *, max_epochs=100):
            theta, n_mistakes, n_epochs = train_through_origin(absorb_offset(X), y, max_epochs=max_epochs)
            w, b = split_offset(theta)
            return w, -b, n_mistakes, n_epochs
        """, LIFTING),
    # The offsets of the perceptron are whole numbers (b changes by y = +-1), so only the type tells int(b) apart.
    KnownWrong("lifting_returns_the_offset_as_an_int", """
        def train_with_lifting(X, y, *, max_epochs=100):
            theta, n_mistakes, n_epochs = train_through_origin(absorb_offset(X), y, max_epochs=max_epochs)
            w, b = split_offset(theta)
            return w, int(b), n_mistakes, n_epochs
        """, LIFTING),
    KnownWrong("lifting_returns_float_counts", """
        def train_with_lifting(X, y, *, max_epochs=100):
            theta, n_mistakes, n_epochs = train_through_origin(absorb_offset(X), y, max_epochs=max_epochs)
            w, b = split_offset(theta)
            return w, b, float(n_mistakes), float(n_epochs)
        """, LIFTING),
    KnownWrong("lifting_splits_the_first_entry_inline", """
        def train_with_lifting(X, y, *, max_epochs=100):
            theta, n_mistakes, n_epochs = train_through_origin(absorb_offset(X), y, max_epochs=max_epochs)
            return theta[1:].copy(), float(theta[0]), n_mistakes, n_epochs
        """, LIFTING),
    # A loop of its own over the lifted points, with the student's absorb_offset and split_offset: the lifting without
    # train_through_origin. The reversed train_through_origin tells it apart.
    KnownWrong("lifting_trains_the_lifted_points_with_a_loop_of_its_own", """
        def train_with_lifting(X, y, *, max_epochs=100):
            Z = absorb_offset(X)
            theta = np.zeros(Z.shape[1])
            n_mistakes = 0
            for epoch in range(1, max_epochs + 1):
                made = 0
                for z, t in zip(Z, y):
                    if t * (theta @ z) <= 0:
                        theta = theta + t * z
                        made += 1
                n_mistakes += made
                if made == 0:
                    break
            w, b = split_offset(theta)
            return w, b, n_mistakes, epoch
        """, LIFTING),
    # Part C is judged with the student's own functions: a mistake of its own still fails when Part A or B is wrong.
    KnownWrong("lifting_returns_minus_the_offset_and_origin_predicts_plus_one_on_the_plane", """
        def train_with_lifting(X, y, *, max_epochs=100):
            theta, n_mistakes, n_epochs = train_through_origin(absorb_offset(X), y, max_epochs=max_epochs)
            w, b = split_offset(theta)
            return w, -b, n_mistakes, n_epochs
        """ + _origin(test="(1 if theta @ x_i >= 0 else -1) != y_i"), ("train_through_origin_values",) + LIFTING),
    KnownWrong("lifting_ignores_max_epochs_and_absorb_offset_appends_zeros", LIFTING_IGNORES_MAX_EPOCHS + """
        def absorb_offset(X):
            X = np.asarray(X, dtype=float)
            return np.hstack([X, np.zeros((X.shape[0], 1))])
        """, ("absorb_offset_values",) + LIFTING),
    # A right train_with_lifting, but absorb_offset hands X itself to a train_through_origin that changes its input:
    # together they change the caller's X, but only their own cells lose: Part C runs with right functions.
    KnownWrong("absorb_offset_returns_X_and_origin_folds_the_labels_in_place", """
        def absorb_offset(X):
            return np.asarray(X, dtype=float)
        """ + ORIGIN_FOLDING_THE_LABELS_IN_PLACE, ("absorb_offset_values", "train_through_origin_values")),
    # Problem set 2's loop pasted in: the numbers of the perceptron with an offset, without the lifting the part
    # teaches. Only the reversed train_through_origin tells it apart, with the rest of the notebook right or wrong.
    KnownWrong("lifting_is_a_pasted_training_loop", _pasted(), LIFTING),
    KnownWrong("lifting_is_a_pasted_loop_and_absorb_offset_prepends", _pasted() + PREPENDS_THE_ONES,
               ("absorb_offset_values",) + LIFTING),
    KnownWrong("lifting_is_a_pasted_loop_and_split_offset_takes_the_first_entry", _pasted() + """
        def split_offset(theta):
            theta = np.asarray(theta, dtype=float)
            return theta[1:].copy(), float(theta[0])
        """, ("split_offset_values",) + LIFTING),
    KnownWrong("lifting_is_a_pasted_loop_and_origin_misses_the_plane",
               _pasted() + _origin(test="y_i * (theta @ x_i) < 0"), ("train_through_origin_values",) + LIFTING),
    KnownWrong("lifting_is_a_pasted_loop_with_offset_step_two", _pasted(step_b="b = b + 2.0 * y_i"), LIFTING),
    # A pasted loop beside a Part B that itself visits the examples backwards: Part C's reversed calls use the
    # right train_through_origin, so the pair no longer turns the reverse order back into the given one.
    KnownWrong("lifting_is_a_pasted_loop_and_origin_visits_backwards",
               _pasted() + _origin().replace("zip(X, y)", "zip(X[::-1], y[::-1])"),
               ("train_through_origin_values",) + LIFTING),
    # Part B visits the examples in a new random order every epoch (a habit of stochastic gradient descent): its
    # runs differ from call to call, and a right train_with_lifting keeps Part C.
    KnownWrong("origin_shuffles_every_epoch_beside_a_right_lifting",
               _origin().replace("for x_i, y_i in zip(X, y):",
                                 "order = np.random.permutation(len(X))\n"
                                 "                for x_i, y_i in zip(X[order], np.asarray(y)[order]):"),
               ("train_through_origin_values",)),
    # max_epochs dropped in Part C beside a Part B that runs at most 100 epochs whatever it is given: together they
    # agree with each other, but Part C's right train_through_origin is handed the default.
    KnownWrong("lifting_ignores_max_epochs_and_origin_hard_codes_100_epochs",
               LIFTING_IGNORES_MAX_EPOCHS + _origin(epochs="range(1, 101)"), ("train_through_origin_values",) + LIFTING),
    # A right train_with_lifting that converts its results, as its docstring's types say, beside a split_offset that
    # returns b as an array of shape (1,) (float() of it raises in recent NumPy) and beside a train_through_origin
    # with the sign(0) = +1 test and float counts: Part C keeps its points, the other cell loses its own.
    KnownWrong("lifting_converts_its_results_and_split_offset_offset_as_array", """
        def train_with_lifting(X, y, *, max_epochs=100):
            theta, n_mistakes, n_epochs = train_through_origin(absorb_offset(X), y, max_epochs=max_epochs)
            w, b = split_offset(theta)
            return np.asarray(w, dtype=float), float(b), int(n_mistakes), int(n_epochs)

        def split_offset(theta):
            theta = np.asarray(theta, dtype=float)
            return theta[:-1].copy(), theta[-1:]
        """, ("split_offset_values",)),
    KnownWrong("lifting_converts_its_results_and_origin_predicts_plus_one_with_float_counts", """
        def train_with_lifting(X, y, *, max_epochs=100):
            theta, n_mistakes, n_epochs = train_through_origin(absorb_offset(X), y, max_epochs=max_epochs)
            w, b = split_offset(theta)
            return np.asarray(w, dtype=float), float(b), int(n_mistakes), int(n_epochs)
        """ + _origin(test="(1 if theta @ x_i >= 0 else -1) != y_i", result="theta, float(n_mistakes), float(epoch)"),
               ("train_through_origin_values",)),
]
