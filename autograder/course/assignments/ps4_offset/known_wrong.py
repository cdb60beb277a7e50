"""Mistakes in problem set 4: lifting, splitting, the perceptron through the origin, the offset recovered."""

from autograder.course.known_wrong import KnownWrong


def _origin(*, test="y_i * (theta @ x_i) <= 0", step="theta = theta + y_i * x_i",
            stop="if made == 0:\n                    break", result="theta, n_mistakes, epoch"):
    """The perceptron through the origin with one of its lines replaced by a mistake."""
    return f"""
        def train_through_origin(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            theta = np.zeros(X.shape[1])
            n_mistakes = 0
            for epoch in range(1, max_epochs + 1):
                made = 0
                for x_i, y_i in zip(X, y):
                    if {test}:
                        {step}
                        made += 1
                n_mistakes += made
                {stop}
            return {result}
        """


LIFTING = ("lifting_one_dimensional", "lifting_general")

KNOWN_WRONG = [
    # -- absorb_offset ------------------------------------------------------------------
    KnownWrong("absorb_offset_prepends_the_ones", """
        def absorb_offset(X):
            X = np.asarray(X, dtype=float)
            return np.hstack([np.ones((X.shape[0], 1)), X])
        """, ("absorb_offset_values",) + LIFTING),
    KnownWrong("absorb_offset_appends_zeros", """
        def absorb_offset(X):
            X = np.asarray(X, dtype=float)
            return np.hstack([X, np.zeros((X.shape[0], 1))])
        """, ("absorb_offset_values",) + LIFTING),
    KnownWrong("absorb_offset_appends_a_row", """
        def absorb_offset(X):
            X = np.asarray(X, dtype=float)
            return np.vstack([X, np.ones((1, X.shape[1]))])
        """, ("absorb_offset_values", "lifting_one_dimensional", "lifting_general")),
    KnownWrong("absorb_offset_returns_X", """
        def absorb_offset(X):
            return np.asarray(X, dtype=float)
        """, ("absorb_offset_values",) + LIFTING),
    # -- split_offset ------------------------------------------------------------------------
    KnownWrong("split_offset_takes_the_first_entry", """
        def split_offset(theta):
            theta = np.asarray(theta, dtype=float)
            return theta[1:].copy(), float(theta[0])
        """, ("split_offset_values",) + LIFTING),
    KnownWrong("split_offset_offset_as_array", """
        def split_offset(theta):
            theta = np.asarray(theta, dtype=float)
            return theta[:-1].copy(), theta[-1:]
        """, ("split_offset_values",) + LIFTING),
    KnownWrong("split_offset_keeps_the_offset_in_w", """
        def split_offset(theta):
            theta = np.asarray(theta, dtype=float)
            return theta.copy(), float(theta[-1])
        """, ("split_offset_values",) + LIFTING),
    # -- train_through_origin ---------------------------------------------------------------
    KnownWrong("origin_on_plane_is_not_a_mistake", _origin(test="y_i * (theta @ x_i) < 0"),
               ("train_through_origin_values",) + LIFTING),
    KnownWrong("origin_wrong_sign", _origin(step="theta = theta - y_i * x_i"), ("train_through_origin_values",) + LIFTING),
    KnownWrong("origin_never_stops_early", _origin(stop="pass"), ("train_through_origin_values",) + LIFTING),
    KnownWrong("origin_stops_after_one_epoch", _origin(stop="break"), ("train_through_origin_values",) + LIFTING),
    KnownWrong("origin_counts_last_epoch_only", _origin(result="theta, made, epoch"),
               ("train_through_origin_values",) + LIFTING),
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
    KnownWrong("lifting_ignores_max_epochs", """
        def train_with_lifting(X, y, *, max_epochs=100):
            theta, n_mistakes, n_epochs = train_through_origin(absorb_offset(X), y)
            w, b = split_offset(theta)
            return w, b, n_mistakes, n_epochs
        """, LIFTING),
]
