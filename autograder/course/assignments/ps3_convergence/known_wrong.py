"""Mistakes in problem set 3: the radius, the mistake bound, counting mistakes, the experiment."""

from autograder.course.known_wrong import KnownWrong


def _count(*, test="y_i * (w @ x_i) <= 0", step="w = w + y_i * x_i", count="made += 1", prepare="",
           epochs="range(1, max_epochs + 1)", stop="made == 0", stopped="True", converged="False",
           total="n_mistakes"):
    """The mistake counter with one of its lines replaced by a mistake."""
    return f"""
        def count_mistakes(X, y, *, max_epochs=1000):
            X = np.asarray(X, dtype=float)
            {prepare}
            w = np.zeros(X.shape[1])
            b = 0.0
            n_mistakes = 0
            for epoch in {epochs}:
                made = 0
                for x_i, y_i in zip(X, y):
                    if {test}:
                        {step}
                        {count}
                n_mistakes += made
                if {stop}:
                    return {total}, {stopped}
            return {total}, {converged}
        """


def _shuffled_each_epoch(permutation):
    """The mistake counter visiting the examples in a new order in every epoch, drawn by ``permutation``."""
    return f"""
        def count_mistakes(X, y, *, max_epochs=1000):
            X = np.asarray(X, dtype=float)
            w = np.zeros(X.shape[1])
            n_mistakes = 0
            for _ in range(max_epochs):
                made = 0
                for i in {permutation}(len(X)):
                    if y[i] * (w @ X[i]) <= 0:
                        w = w + y[i] * X[i]
                        made += 1
                n_mistakes += made
                if made == 0:
                    return n_mistakes, True
            return n_mistakes, False
        """


def _experiment(*, data="make_separable(n_samples, n_features, margin=g, random_state=random_state)",
                bound="mistake_bound(X, y, w_star)", row="[n_mistakes, {bound}]", result="np.array(rows, dtype=float)"):
    """The experiment with one of its lines replaced by a mistake."""
    row = row.format(bound=bound)
    return f"""
        def bound_experiment(margins, *, n_samples, n_features, random_state):
            rows = []
            for k, g in enumerate(margins):
                X, y, w_star = {data}
                n_mistakes, _ = count_mistakes(X, y)
                rows.append({row})
            return {result}
        """


def _bound(gamma="np.min(y * (X @ w)) / np.linalg.norm(w)", value="float((radius(X) / gamma) ** 2)",
           otherwise="math.inf", prepare="", separates="gamma > 0"):
    """The mistake bound with one of its lines replaced by a mistake."""
    return f"""
        def mistake_bound(X, y, w):
            X = np.asarray(X, dtype=float)
            {prepare}
            gamma = {gamma}
            if not ({separates}):
                return {otherwise}
            return {value}
        """


# A wrong radius also gives a wrong bound. Part C is judged with right versions of radius, mistake_bound and
# count_mistakes in place of the student's (see checks.py), so a mistake of Part A or B costs no point there,
# whatever it is: each one below names only the cells of its own part, and `verify` proves that the reference's
# bound_experiment keeps bound_experiment_values with every one of them, the random ones included.
RADIUS = ("radius_values", "bound_values")
BOUND = ("bound_values",)
COUNT = ("count_mistakes_values",)

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
    KnownWrong("radius_smallest_norm", """
        def radius(X):
            return float(np.min(np.linalg.norm(np.asarray(X, dtype=float), axis=1)))
        """, RADIUS),
    KnownWrong("radius_ball_centred_at_the_mean", """
        def radius(X):
            X = np.asarray(X, dtype=float)
            return float(np.max(np.linalg.norm(X - X.mean(axis=0), axis=1)))
        """, RADIUS),
    KnownWrong("radius_largest_sum_of_absolute_values", """
        def radius(X):
            return float(np.max(np.sum(np.abs(np.asarray(X, dtype=float)), axis=1)))
        """, RADIUS),
    # -- mistake_bound --------------------------------------------------------------------
    KnownWrong("bound_forgets_norm_of_w", _bound(gamma="np.min(y * (X @ w))"), ("bound_values",)),
    KnownWrong("bound_divides_by_squared_norm_of_w", _bound(gamma="np.min(y * (X @ w)) / (w @ w)"), ("bound_values",)),
    KnownWrong("bound_normalises_w_in_place", _bound(prepare="w /= np.linalg.norm(w)", gamma="np.min(y * (X @ w))"),
               ("bound_values", "bound_not_separating")),
    KnownWrong("bound_forgets_the_labels", _bound(gamma="np.min(X @ w) / np.linalg.norm(w)"),
               ("bound_values", "bound_not_separating")),
    KnownWrong("bound_mean_margin", _bound(gamma="np.mean(y * (X @ w)) / np.linalg.norm(w)"),
               ("bound_values", "bound_not_separating")),
    KnownWrong("bound_farthest_point_not_closest", _bound(gamma="np.max(y * (X @ w)) / np.linalg.norm(w)"),
               ("bound_values", "bound_not_separating")),
    KnownWrong("bound_ignores_radius", _bound(value="float(1 / gamma ** 2)"), BOUND),
    KnownWrong("bound_margin_not_squared", _bound(value="float(radius(X) ** 2 / gamma)"), BOUND),
    KnownWrong("bound_not_squared", _bound(value="float(radius(X) / gamma)"), BOUND),
    KnownWrong("bound_inverted", _bound(value="float((gamma / radius(X)) ** 2)"), BOUND),
    KnownWrong("bound_margin_with_abs", _bound(gamma="np.min(np.abs(y * (X @ w))) / np.linalg.norm(w)"),
               ("bound_not_separating",)),
    KnownWrong("bound_abs_of_the_smallest_score", _bound(gamma="abs(np.min(y * (X @ w))) / np.linalg.norm(w)"),
               ("bound_not_separating",)),
    # With Python floats, a margin of exactly 0 that passes the test divides by zero.
    KnownWrong("bound_zero_margin_divides_by_zero",
               _bound(gamma="float(np.min(y * (X @ w))) / float(np.linalg.norm(w))", separates="gamma >= 0"),
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
    # The converged flag and the number of epochs, off by one (the four-point example with max_epochs=1 or 2).
    KnownWrong("count_not_converged_in_the_last_allowed_epoch", _count(stopped="epoch < max_epochs"),
               ("count_mistakes_values",)),
    KnownWrong("count_one_epoch_too_few", _count(epochs="range(1, max_epochs)"), ("count_mistakes_values",)),
    KnownWrong("count_one_epoch_too_many", _count(epochs="range(max_epochs + 1)"), ("count_mistakes_values",)),
    KnownWrong("count_converged_when_the_last_weights_separate", _count(converged="bool(np.all(y * (X @ w) > 0))"),
               ("count_mistakes_values",)),
    KnownWrong("count_stops_when_the_weights_separate", _count(stop="np.all(y * (X @ w) > 0)"),
               ("count_mistakes_values",)),
    # The first visit, always a mistake from w = 0, made before the loop and left out of the epoch's count:
    # an epoch whose only mistake is that visit then looks clean (a single example with max_epochs=1).
    KnownWrong("count_first_update_before_the_loop", """
        def count_mistakes(X, y, *, max_epochs=1000):
            X = np.asarray(X, dtype=float)
            w = y[0] * X[0]
            n_mistakes = 1
            for _ in range(max_epochs):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i) <= 0:
                        w = w + y_i * x_i
                        made += 1
                n_mistakes += made
                if made == 0:
                    return n_mistakes, True
            return n_mistakes, False
        """, ("count_mistakes_values",)),
    # A score of 0: the prediction sign(0) taken as the test for a mistake, with either sign.
    KnownWrong("count_predictions_with_sign_of_zero_negative", _count(test="(1 if w @ x_i > 0 else -1) != y_i"),
               COUNT),
    KnownWrong("count_predictions_with_sign_of_zero_positive", _count(test="(1 if w @ x_i >= 0 else -1) != y_i"),
               COUNT),
    KnownWrong("count_wrong_predictions_not_updates",
               _count(step="made += int((1 if w @ x_i > 0 else -1) != y_i)\n                        w = w + y_i * x_i",
                      count="pass"),
               COUNT),
    KnownWrong("count_updates_on_every_example",
               _count(test="True", step="made += int(y_i * (w @ x_i) <= 0)\n                        w = w + y_i * x_i",
                      count="pass"),
               COUNT),
    # Random counts: the examples visited in a new random order in every epoch (the chapter's runs shuffle; Part B
    # asks for the given order), or a random start instead of w = 0, or a seeded generator shared by every call.
    KnownWrong("count_shuffled_order", _count(prepare="order = np.random.permutation(len(X))\n            X, y = X[order], np.asarray(y)[order]",
                                              test="y_i * (w @ x_i) <= 0"), COUNT),
    KnownWrong("count_shuffled_order_each_epoch", _shuffled_each_epoch("np.random.permutation"), COUNT),
    KnownWrong("count_random_start", _count().replace(
        "w = np.zeros(X.shape[1])", "w = 0.01 * np.random.randn(X.shape[1])"), COUNT),
    KnownWrong("count_seeded_shuffle_shared_by_every_call",
               "\n        rng = np.random.default_rng(0)\n" + _shuffled_each_epoch("rng.permutation"), COUNT),
    KnownWrong("count_folds_the_labels_into_X_in_place", _count(prepare="X *= np.asarray(y)[:, None]",
                                                              test="w @ x_i <= 0", step="w = w + x_i"),
               COUNT),
    # -- bound_experiment -------------------------------------------------------------------------
    KnownWrong("experiment_bound_from_the_requested_margin", _experiment(bound="1 / g ** 2"),
               ("bound_experiment_values",)),
    KnownWrong("experiment_ignores_random_state",
               _experiment(data="make_separable(n_samples, n_features, margin=g, random_state=0)"),
               ("bound_experiment_values",)),
    KnownWrong("experiment_ignores_sizes", _experiment(data="make_separable(200, 10, margin=g, random_state=random_state)"),
               ("bound_experiment_values",)),
    KnownWrong("experiment_columns_swapped", _experiment(row="[{bound}, n_mistakes]"), ("bound_experiment_values",)),
    # The mistakes of one epoch: count_mistakes called with another max_epochs, on which the right versions of the
    # locked cell call the student's own function (here right), whose count differs at margin 0.05 of the four margins.
    KnownWrong("experiment_one_epoch_only", _experiment().replace("count_mistakes(X, y)", "count_mistakes(X, y, max_epochs=1)"),
               ("bound_experiment_values",)),
    KnownWrong("experiment_returns_a_list_of_rows", _experiment(result="rows"), ("bound_experiment_values",)),
    KnownWrong("experiment_rows_and_columns_swapped", _experiment(result="np.array(rows, dtype=float).T"),
               ("bound_experiment_values",)),
    KnownWrong("experiment_sizes_swapped",
               _experiment(data="make_separable(n_features, n_samples, margin=g, random_state=random_state)"),
               ("bound_experiment_values",)),
    KnownWrong("experiment_new_seed_for_each_margin",
               _experiment(data="make_separable(n_samples, n_features, margin=g, random_state=random_state + k)"),
               ("bound_experiment_values",)),
    KnownWrong("experiment_bound_for_radius_one",
               _experiment(bound="1 / (np.min(y * (X @ w_star)) / np.linalg.norm(w_star)) ** 2"),
               ("bound_experiment_values",)),
    KnownWrong("experiment_bound_for_the_learned_weights", """
        def bound_experiment(margins, *, n_samples, n_features, random_state):
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
