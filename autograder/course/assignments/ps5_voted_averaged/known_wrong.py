"""Mistakes in problem set 5: voted training and prediction, the averaged perceptron, the comparison."""

from autograder.course.known_wrong import KnownWrong


def _voted(*, start="0", on_mistake="1", on_correct="count += 1", test="y_i * (w @ x_i + b) <= 0",
           b_step="b + float(y_i)", stop="if made == 0:\n                    break", keep_last=True, keep_zero=True):
    """Voted training with one of its lines replaced by a mistake."""
    last = "weights.append(w)\n            intercepts.append(b)\n            counts.append(count)" if keep_last else "pass"
    first = "True" if keep_zero else "len(weights) > 0 or count > 0 or not np.all(w == 0)"
    return f"""
        def train_voted(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            w, b, count = np.zeros(X.shape[1]), 0.0, {start}
            weights, intercepts, counts = [], [], []
            for _ in range(max_epochs):
                made = 0
                for x_i, y_i in zip(X, y):
                    if {test}:
                        if {first}:
                            weights.append(w)
                            intercepts.append(b)
                            counts.append(count)
                        w, b, count = w + y_i * x_i, {b_step}, {on_mistake}
                        made += 1
                    else:
                        {on_correct}
                {stop}
            {last}
            return np.array(weights), np.array(intercepts, dtype=float), np.array(counts, dtype=int)
        """


def _averaged(*, c_start="0", divide="c", increment="c += 1", mistake_extra="", result=None,
              stop="if made == 0:\n                    break"):
    """The averaged perceptron with one of its lines replaced by a mistake."""
    result = result or f"w - u / {divide}, float(b - beta / {divide})"
    return f"""
        def train_averaged(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            w, b = np.zeros(X.shape[1]), 0.0
            u, beta = np.zeros(X.shape[1]), 0.0
            c = {c_start}
            for _ in range(max_epochs):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        w, b = w + y_i * x_i, b + float(y_i)
                        u, beta = u + c * y_i * x_i, beta + c * float(y_i)
                        made += 1{mistake_extra}
                    {increment}
                {stop}
            return {result}
        """


COMPARISON = ("noisy_comparison_values",)


def _protocol(*, n_train="200", split="X_train, X_test, y_test = X[:n_train], X[n_train:], y[n_train:]",
              labels="y_train = flip_labels(y[:n_train], flip_fraction, random_state=random_state)",
              test_on="X_test", truth="y_test", last=None, agree="=="):
    """Part D's protocol, as the solution runs it, with one of its lines replaced by a mistake: where it
    splits the data, which labels it flips, which points it tests on and against what, how the last vector
    predicts, or whether it counts agreements."""
    last = last or f"np.where({test_on} @ weights[-1] + intercepts[-1] > 0, 1, -1)"
    first, second = (split, labels) if labels.startswith("y_train") else (labels, split)
    return f"""
        def compare_on_noisy_data(n_train={n_train}, flip_fraction=0.2, *, random_state=0):
            X, y, _ = make_separable(2 * n_train, 5, margin=0.05, random_state=random_state)
            {first}
            {second}
            weights, intercepts, counts = train_voted(X_train, y_train, max_epochs=10)
            w_avg, b_avg = train_averaged(X_train, y_train, max_epochs=10)
            last = {last}
            voted = predict_voted({test_on}, weights, intercepts, counts)
            averaged = np.where({test_on} @ w_avg + b_avg > 0, 1, -1)
            return tuple(float(np.mean(p {agree} {truth})) for p in (last, voted, averaged))
        """


def _predict(expression):
    return f"""
        def predict_voted(X, weights, intercepts, counts):
            scores = np.asarray(X, dtype=float) @ np.asarray(weights, dtype=float).T + np.asarray(intercepts, dtype=float)
            return {expression}
        """


VOTED = ("voted_four_point", "voted_counts")
AVERAGED = ("averaged_four_point", "averaged_general")
# Part D is judged with the student's own functions: a mistake in Parts A to C, made by a function that still
# returns values of the right types and shapes, costs no point of noisy_comparison_values, so none of the
# mistakes below names it but those of compare_on_noisy_data itself.

KNOWN_WRONG = [
    # -- train_voted -------------------------------------------------------------------------
    KnownWrong("voted_new_vector_starts_at_zero", _voted(on_mistake="0"), VOTED),
    KnownWrong("voted_counts_start_at_one", _voted(start="1"), VOTED),
    KnownWrong("voted_counts_mistakes_too", _voted(on_mistake="count + 1"), VOTED),
    KnownWrong("voted_forgets_the_last_vector", _voted(keep_last=False), VOTED),
    KnownWrong("voted_drops_the_zero_vector", _voted(keep_zero=False), VOTED),
    KnownWrong("voted_forgets_the_offset", _voted(b_step="b"), VOTED),
    KnownWrong("voted_on_plane_is_not_a_mistake", _voted(test="y_i * (w @ x_i + b) < 0"), VOTED),
    KnownWrong("voted_never_stops_early", _voted(stop="pass"), VOTED),
    KnownWrong("voted_returns_last_vector_only", """
        def train_voted(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            w, b = np.zeros(X.shape[1]), 0.0
            for _ in range(max_epochs):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        w, b = w + y_i * x_i, b + float(y_i)
                        made += 1
                if made == 0:
                    break
            return w[None, :], np.array([b]), np.array([len(y)])
        """, VOTED),
    # Off by one the other way: each visit counts for the vector that predicted it (held before the visit),
    # so the zero vector gets 1 and every later vector loses the visit that created it.
    KnownWrong("voted_counts_the_visits_each_vector_predicted", """
        def train_voted(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            w, b, count = np.zeros(X.shape[1]), 0.0, 0
            weights, intercepts, counts = [], [], []
            for _ in range(max_epochs):
                made = 0
                for x_i, y_i in zip(X, y):
                    count += 1
                    if y_i * (w @ x_i + b) <= 0:
                        weights.append(w)
                        intercepts.append(b)
                        counts.append(count)
                        w, b, count = w + y_i * x_i, b + float(y_i), 0
                        made += 1
                if made == 0:
                    break
            weights.append(w)
            intercepts.append(b)
            counts.append(count)
            return np.array(weights), np.array(intercepts, dtype=float), np.array(counts, dtype=int)
        """, VOTED),
    # w += ... changes the array already in the list: every kept vector ends up equal to the last one.
    KnownWrong("voted_keeps_references_to_one_array", """
        def train_voted(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            w, b, count = np.zeros(X.shape[1]), 0.0, 0
            weights, intercepts, counts = [], [], []
            for _ in range(max_epochs):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        weights.append(w)
                        intercepts.append(b)
                        counts.append(count)
                        w += y_i * x_i
                        b, count = b + float(y_i), 1
                        made += 1
                    else:
                        count += 1
                if made == 0:
                    break
            weights.append(w)
            intercepts.append(b)
            counts.append(count)
            return np.array(weights), np.array(intercepts, dtype=float), np.array(counts, dtype=int)
        """, VOTED),
    # Tests for convergence before each epoch and stops without making it: the error-free epoch's n visits
    # are missing from the last vector's count.
    KnownWrong("voted_leaves_the_error_free_epoch_uncounted", """
        def train_voted(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            w, b, count = np.zeros(X.shape[1]), 0.0, 0
            weights, intercepts, counts = [], [], []
            for _ in range(max_epochs):
                if np.all(y * (X @ w + b) > 0):
                    break
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        weights.append(w)
                        intercepts.append(b)
                        counts.append(count)
                        w, b, count = w + y_i * x_i, b + float(y_i), 1
                    else:
                        count += 1
            weights.append(w)
            intercepts.append(b)
            counts.append(count)
            return np.array(weights), np.array(intercepts, dtype=float), np.array(counts, dtype=int)
        """, VOTED),
    KnownWrong("voted_one_epoch_too_many", _voted().replace("range(max_epochs)", "range(max_epochs + 1)"),
               ("voted_counts",)),
    KnownWrong("voted_one_epoch_too_few", _voted().replace("range(max_epochs)", "range(1, max_epochs)"),
               ("voted_counts",)),
    # Another stopping rule: n correct visits in a row, which can end in the middle of an epoch.
    KnownWrong("voted_stops_after_n_correct_visits_in_a_row", """
        def train_voted(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            w, b, count = np.zeros(X.shape[1]), 0.0, 0
            weights, intercepts, counts = [], [], []
            in_a_row = 0
            for _ in range(max_epochs):
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        weights.append(w)
                        intercepts.append(b)
                        counts.append(count)
                        w, b, count = w + y_i * x_i, b + float(y_i), 1
                        in_a_row = 0
                    else:
                        count += 1
                        in_a_row += 1
                        if in_a_row == len(y):
                            break
                if in_a_row == len(y):
                    break
            weights.append(w)
            intercepts.append(b)
            counts.append(count)
            return np.array(weights), np.array(intercepts, dtype=float), np.array(counts, dtype=int)
        """, VOTED),
    # Another stopping rule: stop when an epoch leaves (w, b) as it found it. An epoch without a mistake does, but
    # so does one whose mistakes cancel out, as the second epoch of the XOR points in the order (0, 0), (1, 1),
    # (0, 1), (1, 0) does: the right answer keeps training to max_epochs.
    KnownWrong("voted_stops_when_an_epoch_leaves_the_weights_unchanged", """
        def train_voted(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            w, b, count = np.zeros(X.shape[1]), 0.0, 0
            weights, intercepts, counts = [], [], []
            for _ in range(max_epochs):
                w_before, b_before = w, b
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        weights.append(w)
                        intercepts.append(b)
                        counts.append(count)
                        w, b, count = w + y_i * x_i, b + float(y_i), 1
                    else:
                        count += 1
                if np.array_equal(w, w_before) and b == b_before:
                    break
            weights.append(w)
            intercepts.append(b)
            counts.append(count)
            return np.array(weights), np.array(intercepts, dtype=float), np.array(counts, dtype=int)
        """, ("voted_counts",)),
    # One entry per distinct vector, with the counts of all the times it was held added up: the vote of the merged
    # entries is the same, but the list is not the vectors held, in order, one per mistake.
    KnownWrong("voted_merges_repeated_vectors", """
        def train_voted(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            w, b = np.zeros(X.shape[1]), 0.0
            survival = {(tuple(w), b): 0}
            for _ in range(max_epochs):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        w, b = w + y_i * x_i, b + float(y_i)
                        made += 1
                    key = (tuple(w), b)
                    survival[key] = survival.get(key, 0) + 1
                if made == 0:
                    break
            return (np.array([key[0] for key in survival]), np.array([key[1] for key in survival], dtype=float),
                    np.array(list(survival.values()), dtype=int))
        """, ("voted_counts",)),
    # -- predict_voted ---------------------------------------------------------------------------
    KnownWrong("predict_voted_with_last_vector",
               _predict("np.where(scores[:, -1] > 0, 1, -1)"),
               ("predict_voted_values", "predict_voted_ties")),
    KnownWrong("predict_voted_averages_scores",
               _predict("np.where(scores @ np.asarray(counts) > 0, 1, -1)"),
               ("predict_voted_values", "predict_voted_ties")),
    KnownWrong("predict_voted_ignores_counts",
               _predict("np.where(np.where(scores > 0, 1, -1).sum(axis=1) > 0, 1, -1)"),
               ("predict_voted_values",)),
    KnownWrong("predict_voted_uses_np_sign",
               _predict("np.sign(np.sign(scores) @ np.asarray(counts)).astype(int)"), ("predict_voted_ties",)),
    KnownWrong("predict_voted_zero_score_votes_plus",
               _predict("np.where(np.where(scores >= 0, 1, -1) @ np.asarray(counts) > 0, 1, -1)"), ("predict_voted_ties",)),
    KnownWrong("predict_voted_tie_is_plus",
               _predict("np.where(np.where(scores > 0, 1, -1) @ np.asarray(counts) >= 0, 1, -1)"), ("predict_voted_ties",)),
    # np.sign inside the sum: a vector that scores exactly 0 abstains instead of voting -1.
    KnownWrong("predict_voted_zero_score_abstains",
               _predict("np.where(np.sign(scores) @ np.asarray(counts) > 0, 1, -1)"), ("predict_voted_ties",)),
    # A tie broken by the most recent vector, or by the averaged score, instead of sign(0) = -1: right whenever that
    # vector votes -1, or the averaged score is not positive, as in every tie but one of the checks.
    KnownWrong("predict_voted_tie_goes_to_the_last_vector", """
        def predict_voted(X, weights, intercepts, counts):
            scores = np.asarray(X, dtype=float) @ np.asarray(weights, dtype=float).T + np.asarray(intercepts, dtype=float)
            votes = np.where(scores > 0, 1, -1)
            total = votes @ np.asarray(counts)
            return np.where(total > 0, 1, np.where(total < 0, -1, votes[:, -1]))
        """, ("predict_voted_ties",)),
    KnownWrong("predict_voted_tie_goes_to_the_averaged_score", """
        def predict_voted(X, weights, intercepts, counts):
            scores = np.asarray(X, dtype=float) @ np.asarray(weights, dtype=float).T + np.asarray(intercepts, dtype=float)
            total = np.where(scores > 0, 1, -1) @ np.asarray(counts)
            averaged = np.where(scores @ np.asarray(counts) > 0, 1, -1)
            return np.where(total > 0, 1, np.where(total < 0, -1, averaged))
        """, ("predict_voted_ties",)),
    KnownWrong("predict_voted_returns_the_vote",
               _predict("np.where(scores > 0, 1, -1) @ np.asarray(counts)"),
               ("predict_voted_values", "predict_voted_ties")),
    # -- train_averaged -----------------------------------------------------------------------------
    KnownWrong("averaged_counter_from_one", _averaged(c_start="1", divide="(c - 1)"), AVERAGED),
    KnownWrong("averaged_daume_divides_by_visits_plus_one", _averaged(c_start="1", divide="c"), AVERAGED),
    KnownWrong("averaged_divides_by_visits_minus_one", _averaged(divide="(c - 1)"), AVERAGED),
    KnownWrong("averaged_counts_mistakes_only", _averaged(increment="pass", mistake_extra="\n                        c += 1",
                                                          result="w - u / max(c, 1), float(b - beta / max(c, 1))"),
               AVERAGED),
    KnownWrong("averaged_returns_last_weights", _averaged(result="w, float(b)"), AVERAGED),
    KnownWrong("averaged_forgets_the_offset_average", _averaged(result="w - u / c, float(b)"), AVERAGED),
    KnownWrong("averaged_never_stops_early", _averaged(stop="pass"), AVERAGED),
    KnownWrong("averaged_stops_when_an_epoch_leaves_the_weights_unchanged", """
        def train_averaged(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            w, b = np.zeros(X.shape[1]), 0.0
            u, beta = np.zeros(X.shape[1]), 0.0
            c = 0
            for _ in range(max_epochs):
                w_before, b_before = w, b
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        w, b = w + y_i * x_i, b + float(y_i)
                        u, beta = u + c * y_i * x_i, beta + c * float(y_i)
                    c += 1
                if np.array_equal(w, w_before) and b == b_before:
                    break
            return w - u / c, float(b - beta / c)
        """, ("averaged_general",)),
    KnownWrong("averaged_mean_of_distinct_vectors", """
        def train_averaged(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            w, b = np.zeros(X.shape[1]), 0.0
            ws, bs = [w], [b]
            for _ in range(max_epochs):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        w, b = w + y_i * x_i, b + float(y_i)
                        ws.append(w)
                        bs.append(b)
                        made += 1
                if made == 0:
                    break
            return np.mean(ws, axis=0), float(np.mean(bs))
        """, AVERAGED),
    # A running sum taken before each visit's update: the average of w_0, ..., w_{T-1}, the vectors that
    # predicted, instead of w_1, ..., w_T, the vectors held after each visit.
    KnownWrong("averaged_sums_the_weights_before_each_update", """
        def train_averaged(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            w, b = np.zeros(X.shape[1]), 0.0
            total_w, total_b, visits = np.zeros(X.shape[1]), 0.0, 0
            for _ in range(max_epochs):
                made = 0
                for x_i, y_i in zip(X, y):
                    total_w, total_b, visits = total_w + w, total_b + b, visits + 1
                    if y_i * (w @ x_i + b) <= 0:
                        w, b = w + y_i * x_i, b + float(y_i)
                        made += 1
                if made == 0:
                    break
            return total_w / visits, float(total_b / visits)
        """, AVERAGED),
    KnownWrong("averaged_counter_restarts_every_epoch", """
        def train_averaged(X, y, *, max_epochs=10):
            X = np.asarray(X, dtype=float)
            w, b = np.zeros(X.shape[1]), 0.0
            u, beta = np.zeros(X.shape[1]), 0.0
            for _ in range(max_epochs):
                made = 0
                for c, (x_i, y_i) in enumerate(zip(X, y)):
                    if y_i * (w @ x_i + b) <= 0:
                        w, b = w + y_i * x_i, b + float(y_i)
                        u, beta = u + c * y_i * x_i, beta + c * float(y_i)
                        made += 1
                if made == 0:
                    break
            return w - u / len(y), float(b - beta / len(y))
        """, AVERAGED),
    KnownWrong("averaged_divides_by_max_epochs_visits", _averaged(divide="(max_epochs * len(y))"), AVERAGED),
    KnownWrong("averaged_counter_moves_before_the_update",
               _averaged(c_start="0", increment="pass").replace(
                   "for x_i, y_i in zip(X, y):\n", "for x_i, y_i in zip(X, y):\n                    c += 1\n"),
               AVERAGED),
    KnownWrong("averaged_one_epoch_too_many", _averaged().replace("range(max_epochs)", "range(max_epochs + 1)"),
               ("averaged_general",)),
    KnownWrong("averaged_one_epoch_too_few", _averaged().replace("range(max_epochs)", "range(1, max_epochs)"),
               ("averaged_general",)),
    KnownWrong("averaged_on_plane_is_not_a_mistake",
               _averaged().replace("y_i * (w @ x_i + b) <= 0", "y_i * (w @ x_i + b) < 0"), AVERAGED),
    # -- compare_on_noisy_data -----------------------------------------------------------------------
    KnownWrong("comparison_tests_on_the_training_set",
               _protocol(split="X_train = X[:n_train]", test_on="X_train", truth="y_train"), COMPARISON),
    KnownWrong("comparison_flips_the_test_labels_too",
               _protocol(labels="y = flip_labels(y, flip_fraction, random_state=random_state)",
                         split="X_train, y_train, X_test, y_test = X[:n_train], y[:n_train], X[n_train:], y[n_train:]"),
               COMPARISON),
    KnownWrong("comparison_trains_on_the_clean_labels",
               _protocol(labels="",
                         split="X_train, y_train, X_test, y_test = X[:n_train], y[:n_train], X[n_train:], y[n_train:]"),
               COMPARISON),
    KnownWrong("comparison_returns_error_rates", _protocol(agree="!="), COMPARISON),
    # The protocol at another default size: Part D's tests read the defaults from the signature.
    KnownWrong("comparison_with_another_default_size", _protocol(n_train="100"), COMPARISON),
    # The docstring's defaults missing from the signature: n_train without one, random_state=None (a new seed on
    # every call). A parameter added with a default of its own is not judged (the claims test keeps it right).
    KnownWrong("comparison_without_a_default_size",
               _protocol().replace("(n_train=200, flip_fraction", "(n_train, flip_fraction"), COMPARISON),
    KnownWrong("comparison_with_a_seed_of_none",
               _protocol().replace("random_state=0):", "random_state=None):"), COMPARISON),
    KnownWrong("comparison_last_vector_from_the_average",
               _protocol(last="np.where(X_test @ w_avg + b_avg > 0, 1, -1)"), COMPARISON),
]
