"""Mistakes in problem set 3: the radius, the mistake bound, counting mistakes, the experiment."""

from autograder.course.known_wrong import KnownWrong


def _count(*, test="y_i * (w @ x_i) <= 0", step="w = w + y_i * x_i", converged="True", total="n_mistakes"):
    """The mistake counter with one of its lines replaced by a mistake."""
    return f"""
        def count_mistakes(X, y, *, max_epochs=1000):
            X = np.asarray(X, dtype=float)
            w = np.zeros(X.shape[1])
            b = 0.0
            n_mistakes = 0
            for epoch in range(1, max_epochs + 1):
                made = 0
                for x_i, y_i in zip(X, y):
                    if {test}:
                        {step}
                        made += 1
                n_mistakes += made
                if made == 0:
                    return {total}, True
            return {total}, {converged}
        """


def _experiment(*, data="make_separable(n_samples, n_features, margin=g, random_state=random_state)",
                bound="mistake_bound(X, y, w_star)", row="[n_mistakes, {bound}]"):
    """The experiment with one of its lines replaced by a mistake."""
    row = row.format(bound=bound)
    return f"""
        def bound_experiment(margins, *, n_samples=200, n_features=10, random_state=0):
            rows = []
            for g in margins:
                X, y, w_star = {data}
                n_mistakes, _ = count_mistakes(X, y)
                rows.append({row})
            return np.array(rows, dtype=float)
        """


def _bound(gamma="np.min(y * (X @ w)) / np.linalg.norm(w)", value="float((radius(X) / gamma) ** 2)",
           otherwise="math.inf"):
    return f"""
        def mistake_bound(X, y, w):
            X = np.asarray(X, dtype=float)
            gamma = {gamma}
            if gamma <= 0:
                return {otherwise}
            return {value}
        """


# A wrong radius or bound also gives a wrong bound in the experiment; a wrong count, wrong mistakes.
RADIUS = ("radius_values", "bound_values", "bound_experiment_values")
BOUND = ("bound_values", "bound_experiment_values")
COUNT = ("count_mistakes_values", "bound_experiment_values")

KNOWN_WRONG = [
    # -- radius ----------------------------------------------------------------------
    KnownWrong("radius_largest_coordinate", """
        def radius(X):
            return float(np.max(np.abs(X)))
        """, RADIUS),
    KnownWrong("radius_squared", """
        def radius(X):
            return float(np.max(np.sum(np.asarray(X, dtype=float) ** 2, axis=1)))
        """, RADIUS),
    KnownWrong("radius_mean_norm", """
        def radius(X):
            return float(np.mean(np.linalg.norm(np.asarray(X, dtype=float), axis=1)))
        """, RADIUS),
    KnownWrong("radius_norm_of_the_matrix", """
        def radius(X):
            return float(np.linalg.norm(np.asarray(X, dtype=float)))
        """, RADIUS),
    KnownWrong("radius_column_norms", """
        def radius(X):
            return float(np.max(np.linalg.norm(np.asarray(X, dtype=float), axis=0)))
        """, RADIUS),
    # -- mistake_bound --------------------------------------------------------------------
    KnownWrong("bound_forgets_norm_of_w", _bound(gamma="np.min(y * (X @ w))"), ("bound_values",)),
    KnownWrong("bound_not_squared", _bound(value="float(radius(X) / gamma)"), BOUND),
    KnownWrong("bound_inverted", _bound(value="float((gamma / radius(X)) ** 2)"), BOUND),
    KnownWrong("bound_margin_with_abs", _bound(gamma="np.min(np.abs(y * (X @ w))) / np.linalg.norm(w)"),
               ("bound_not_separating",)),
    KnownWrong("bound_returns_none_when_not_separating", _bound(otherwise="None"), ("bound_not_separating",)),
    KnownWrong("bound_returns_zero_when_not_separating", _bound(otherwise="0.0"), ("bound_not_separating",)),
    KnownWrong("bound_raises_when_not_separating", """
        def mistake_bound(X, y, w):
            X = np.asarray(X, dtype=float)
            gamma = np.min(y * (X @ w)) / np.linalg.norm(w)
            if gamma <= 0:
                raise ValueError("w does not separate the data")
            return float((radius(X) / gamma) ** 2)
        """, ("bound_not_separating",)),
    # -- count_mistakes -------------------------------------------------------------------------
    KnownWrong("count_on_plane_is_not_a_mistake", _count(test="y_i * (w @ x_i) < 0"), COUNT),
    KnownWrong("count_with_an_offset", _count(test="y_i * (w @ x_i + b) <= 0",
                                              step="w = w + y_i * x_i\n                        b = b + y_i"),
               COUNT),
    KnownWrong("count_always_converged", _count(converged="True"), ("count_mistakes_values",)),
    KnownWrong("count_epochs_not_mistakes", _count(total="epoch"), COUNT),
    KnownWrong("count_last_epoch_only", _count(total="made"), COUNT),
    KnownWrong("count_wrong_sign", _count(step="w = w - y_i * x_i"), COUNT),
    # -- bound_experiment -------------------------------------------------------------------------
    KnownWrong("experiment_bound_from_the_requested_margin", _experiment(bound="1 / g ** 2"),
               ("bound_experiment_values",)),
    KnownWrong("experiment_ignores_random_state",
               _experiment(data="make_separable(n_samples, n_features, margin=g, random_state=0)"),
               ("bound_experiment_values",)),
    KnownWrong("experiment_ignores_sizes", _experiment(data="make_separable(200, 10, margin=g, random_state=random_state)"),
               ("bound_experiment_values",)),
    KnownWrong("experiment_columns_swapped", _experiment(row="[{bound}, n_mistakes]"), ("bound_experiment_values",)),
    KnownWrong("experiment_bound_for_the_learned_weights", """
        def bound_experiment(margins, *, n_samples=200, n_features=10, random_state=0):
            rows = []
            for g in margins:
                X, y, w_star = make_separable(n_samples, n_features, margin=g, random_state=random_state)
                w = np.zeros(X.shape[1])
                n_mistakes = 0
                for _ in range(1000):
                    made = 0
                    for x_i, y_i in zip(X, y):
                        if y_i * (w @ x_i) <= 0:
                            w = w + y_i * x_i
                            made += 1
                    n_mistakes += made
                    if made == 0:
                        break
                rows.append([n_mistakes, mistake_bound(X, y, w)])
            return np.array(rows, dtype=float)
        """, ("bound_experiment_values",)),
]
