"""Mistakes in problem set 2: the perceptron update, the training loop and the training error."""

from autograder.course.known_wrong import KnownWrong


def _train(*, test="y_i * (w @ x_i + b) <= 0", w_step="w = w + y_i * x_i", b_step="b = b + float(y_i)",
           epochs="range(1, max_epochs + 1)", order="zip(X, y)", stop="if made == 0:\n                    break",
           result="w, float(b), n_mistakes, epoch", start="0.0"):
    """A training loop with one of its lines replaced by a mistake."""
    return f"""
        def train_perceptron(X, y, *, fit_intercept=True, max_epochs=100):
            X = np.asarray(X, dtype=float)
            w = np.zeros(X.shape[1])
            b = {start}
            n_mistakes = 0
            epoch = 0
            for epoch in {epochs}:
                made = 0
                for x_i, y_i in {order}:
                    if {test}:
                        {w_step}
                        if fit_intercept:
                            {b_step}
                        made += 1
                n_mistakes += made
                {stop}
            return {result}
        """


def _errors(*, measure="float(np.mean(y * (X @ w + b) <= 0))", record="errors.append({measure})", epochs="max_epochs",
            before="", b_step="b = b + float(y_i)", stop="if made == 0:\n                    break",
            result="np.array(errors)"):
    """The training error after each epoch, with one of its lines replaced by a mistake."""
    return f"""
        def training_errors(X, y, *, max_epochs=100):
            X = np.asarray(X, dtype=float)
            w = np.zeros(X.shape[1])
            b = 0.0
            errors = []
            for _ in range({epochs}):
                made = 0{before}
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        w = w + y_i * x_i
                        {b_step}
                        made += 1
                {record.format(measure=measure)}
                {stop}
            return {result}
        """


TRAIN = ("train_through_origin", "train_with_offset", "train_stopping_rule")
ERRORS = ("training_errors_values",)

KNOWN_WRONG = [
    # -- perceptron_update --------------------------------------------------------
    KnownWrong("update_on_plane_is_not_a_mistake", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            if y * (w @ x + b) < 0:
                return w + y * x, float(b + y), True
            return w.copy(), float(b), False
        """, ("update_rules",)),
    KnownWrong("update_wrong_sign", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            if y * (w @ x + b) <= 0:
                return w - y * x, float(b - y), True
            return w.copy(), float(b), False
        """, ("update_worked_example", "update_rules")),
    KnownWrong("update_forgets_offset", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            if y * (w @ x + b) <= 0:
                return w + y * x, float(b), True
            return w.copy(), float(b), False
        """, ("update_worked_example", "update_rules")),
    KnownWrong("update_ignores_offset_in_prediction", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            if y * (w @ x) <= 0:
                return w + y * x, float(b + y), True
            return w.copy(), float(b), False
        """, ("update_worked_example", "update_rules")),
    KnownWrong("update_changes_w_in_place", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            if y * (w @ x + b) <= 0:
                w += y * x
                return w, float(b + y), True
            return w, float(b), False
        """, ("update_worked_example", "update_rules")),
    KnownWrong("update_on_every_example", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            return w + y * x, float(b + y), bool(y * (w @ x + b) <= 0)
        """, ("update_rules",)),
    KnownWrong("update_mistake_as_int", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            if y * (w @ x + b) <= 0:
                return w + y * x, float(b + y), 1
            return w.copy(), float(b), 0
        """, ("update_worked_example", "update_rules")),
    KnownWrong("update_returns_two_values", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            if y * (w @ x + b) <= 0:
                return w + y * x, float(b + y)
            return w.copy(), float(b)
        """, ("update_worked_example", "update_rules")),
    KnownWrong("update_mistake_is_a_wrong_prediction", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            prediction = 1 if w @ x + b > 0 else -1
            if prediction != y:
                return w + y * x, float(b + y), True
            return w.copy(), float(b), False
        """, ("update_rules",)),
    KnownWrong("update_test_forgets_the_label", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            if w @ x + b <= 0:
                return w + y * x, float(b + y), True
            return w.copy(), float(b), False
        """, ("update_worked_example", "update_rules")),
    KnownWrong("update_offset_always_grows", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            if y * (w @ x + b) <= 0:
                return w + y * x, float(b + 1), True
            return w.copy(), float(b), False
        """, ("update_worked_example", "update_rules")),
    KnownWrong("update_label_multiplies_only_w", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            if y * (w @ x) + b <= 0:
                return w + y * x, float(b + y), True
            return w.copy(), float(b), False
        """, ("update_worked_example", "update_rules")),
    KnownWrong("update_keeps_integer_dtype", """
        def perceptron_update(w, b, x, y):
            if y * (w @ x + b) <= 0:
                return w + y * x, b + y, True
            return w.copy(), b, False
        """, ("update_rules",)),
    KnownWrong("update_no_mistake_keeps_integer_dtype", """
        def perceptron_update(w, b, x, y):
            if y * (np.dot(w, x) + b) <= 0:
                return np.asarray(w, float) + y * np.asarray(x, float), float(b + y), True
            return w.copy(), b, False
        """, ("update_rules",)),
    KnownWrong("update_no_mistake_keeps_integer_offset", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            if y * (w @ x + b) <= 0:
                return w + y * x, float(b + y), True
            return w.copy(), b, False
        """, ("update_rules",)),
    KnownWrong("update_computed_in_float32", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=np.float32), np.asarray(x, dtype=np.float32)
            if y * (w @ x + b) <= 0:
                return w + y * x, float(b + y), True
            return w.copy(), float(b), False
        """, ("update_worked_example", "update_rules")),
    KnownWrong("update_offset_as_float32", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            if y * (w @ x + b) <= 0:
                return w + y * x, np.float32(b + y), True
            return w.copy(), np.float32(b), False
        """, ("update_worked_example", "update_rules")),
    KnownWrong("update_offset_left_an_int", """
        def perceptron_update(w, b, x, y):
            w, x = np.asarray(w, dtype=float), np.asarray(x, dtype=float)
            if y * (w @ x + b) <= 0:
                return w + y * x, b + y, True
            return w.copy(), b, False
        """, ("update_rules",)),
    # -- train_perceptron -------------------------------------------------------------
    KnownWrong("train_on_plane_is_not_a_mistake", _train(test="y_i * (w @ x_i + b) < 0"),
               ("train_through_origin", "train_with_offset", "train_stopping_rule")),
    KnownWrong("train_forgets_offset", _train(b_step="pass"), ("train_with_offset", "train_stopping_rule")),
    # The data rounded to float32 once, everything after in float64, the result float64: the digits are lost all
    # the same (the guide says converting back does not restore them).
    KnownWrong("train_rounds_the_data_to_float32", _train(order="zip(X.astype(np.float32).astype(float), y)"),
               ("train_with_offset", "train_stopping_rule")),
    KnownWrong("train_wrong_sign", _train(w_step="w = w - y_i * x_i", b_step="b = b - float(y_i)"),
               ("train_through_origin", "train_with_offset", "train_stopping_rule")),
    KnownWrong("train_updates_on_every_example", _train(test="True"),
               ("train_through_origin", "train_with_offset", "train_stopping_rule")),
    KnownWrong("train_learns_offset_through_origin", _train(b_step="pass\n                        b = b + float(y_i)"),
               ("train_through_origin",)),
    KnownWrong("train_never_stops_early", _train(stop="pass"),
               ("train_through_origin", "train_with_offset", "train_stopping_rule")),
    KnownWrong("train_stops_after_one_epoch", _train(stop="break"),
               ("train_through_origin", "train_with_offset", "train_stopping_rule")),
    KnownWrong("train_does_not_count_the_clean_epoch",
               _train(stop="if made == 0:\n                    epoch -= 1\n                    break"),
               ("train_through_origin", "train_with_offset", "train_stopping_rule")),
    KnownWrong("train_counts_last_epoch_mistakes_only", _train(result="w, float(b), made, epoch"),
               ("train_through_origin", "train_with_offset", "train_stopping_rule")),
    KnownWrong("train_one_epoch_short", _train(epochs="range(1, max_epochs)"),
               ("train_through_origin", "train_stopping_rule")),
    KnownWrong("train_visits_in_random_order",
               _train(order="[(X[i], y[i]) for i in np.random.default_rng(0).permutation(len(y))]"),
               ("train_through_origin", "train_with_offset", "train_stopping_rule")),
    KnownWrong("train_shuffles_the_caller_data", """
        def train_perceptron(X, y, *, fit_intercept=True, max_epochs=100):
            order = np.random.default_rng(0).permutation(len(y))
            X[:] = X[order]
            y[:] = y[order]
            w = np.zeros(X.shape[1])
            b, n_mistakes = 0.0, 0
            for epoch in range(1, max_epochs + 1):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        w = w + y_i * x_i
                        b = b + float(y_i) if fit_intercept else b
                        made += 1
                n_mistakes += made
                if made == 0:
                    break
            return w, float(b), n_mistakes, epoch
        """, ("train_through_origin", "train_with_offset", "train_stopping_rule")),
    KnownWrong("train_returns_weights_only", _train(result="w"),
               ("train_through_origin", "train_with_offset", "train_stopping_rule")),
    KnownWrong("train_mistake_is_a_wrong_prediction", _train(test="(1 if w @ x_i + b > 0 else -1) != y_i"), TRAIN),
    KnownWrong("train_counts_epochs_from_zero", _train(epochs="range(max_epochs)"), TRAIN),
    KnownWrong("train_epoch_count_short_when_not_converged", """
        def train_perceptron(X, y, *, fit_intercept=True, max_epochs=100):
            X = np.asarray(X, dtype=float)
            w = np.zeros(X.shape[1])
            b = 0.0
            n_mistakes = 0
            for epoch in range(max_epochs):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        w = w + y_i * x_i
                        if fit_intercept:
                            b = b + float(y_i)
                        made += 1
                n_mistakes += made
                if made == 0:
                    return w, float(b), n_mistakes, epoch + 1
            return w, float(b), n_mistakes, epoch
        """, ("train_through_origin", "train_stopping_rule")),
    KnownWrong("train_one_epoch_too_many", _train(epochs="range(1, max_epochs + 2)"),
               ("train_through_origin", "train_stopping_rule")),
    KnownWrong("train_ignores_max_epochs", _train(epochs="range(1, 101)"),
               ("train_through_origin", "train_stopping_rule")),
    KnownWrong("train_stops_when_the_weights_separate",
               _train(stop="if np.all(y * (X @ w + b) > 0):\n                    break"), TRAIN),
    KnownWrong("train_uses_an_offset_through_origin_and_hides_it",
               _train(b_step="pass\n                        b = b + float(y_i)",
                      result="w, float(b) if fit_intercept else 0.0, n_mistakes, epoch"),
               ("train_through_origin",)),
    KnownWrong("train_skips_the_first_example", _train(order="zip(X[1:], y[1:])"), TRAIN),
    KnownWrong("train_label_multiplies_only_w", _train(test="y_i * (w @ x_i) + b <= 0"),
               ("train_with_offset", "train_stopping_rule")),
    KnownWrong("train_never_resets_the_epoch_mistakes", """
        def train_perceptron(X, y, *, fit_intercept=True, max_epochs=100):
            X = np.asarray(X, dtype=float)
            w = np.zeros(X.shape[1])
            b = 0.0
            n_mistakes = 0
            made = 0
            for epoch in range(1, max_epochs + 1):
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        w = w + y_i * x_i
                        if fit_intercept:
                            b = b + float(y_i)
                        made += 1
                        n_mistakes += 1
                if made == 0:
                    break
            return w, float(b), n_mistakes, epoch
        """, TRAIN),
    KnownWrong("train_keeps_integer_dtype", """
        def train_perceptron(X, y, *, fit_intercept=True, max_epochs=100):
            w = np.zeros_like(X[0])
            b = 0.0
            n_mistakes = 0
            for epoch in range(1, max_epochs + 1):
                made = 0
                for x_i, y_i in zip(X, y):
                    if y_i * (w @ x_i + b) <= 0:
                        w = w + y_i * x_i
                        if fit_intercept:
                            b = b + float(y_i)
                        made += 1
                n_mistakes += made
                if made == 0:
                    break
            return w, float(b), n_mistakes, epoch
        """, ("train_with_offset",)),
    KnownWrong("train_offset_an_int_through_origin", _train(start="0", result="w, b, n_mistakes, epoch"),
               ("train_through_origin",)),
    KnownWrong("train_offset_sums_integer_labels",
               _train(start="0", b_step="b = b + y_i", result="w, b, n_mistakes, epoch"),
               ("train_through_origin", "train_with_offset")),
    # -- training_errors ---------------------------------------------------------------------------
    KnownWrong("errors_are_the_mistakes_during_the_epoch", _errors(measure="made / len(y)"), ERRORS),
    KnownWrong("errors_counted_not_divided", _errors(measure="int(np.sum(y * (X @ w + b) <= 0))"), ERRORS),
    KnownWrong("errors_on_plane_is_correct", _errors(measure="float(np.mean(y * (X @ w + b) < 0))"), ERRORS),
    KnownWrong("errors_forget_the_offset", _errors(measure="float(np.mean(y * (X @ w) <= 0))"), ERRORS),
    KnownWrong("errors_measured_before_the_epoch", _errors(
        record="pass", before="\n                errors.append(float(np.mean(y * (X @ w + b) <= 0)))"), ERRORS),
    KnownWrong("errors_ignore_max_epochs", _errors(epochs="100"), ERRORS),
    KnownWrong("errors_one_epoch_short", _errors(epochs="max_epochs - 1"), ERRORS),
    KnownWrong("errors_returned_as_a_list", _errors(result="errors"), ERRORS),
    KnownWrong("errors_returned_as_float32", _errors(result="np.array(errors, dtype=np.float32)"), ERRORS),
    KnownWrong("errors_leave_out_the_clean_epoch", _errors(
        record="if made == 0:\n                    break\n                errors.append({measure})", stop="pass"), ERRORS),
    KnownWrong("errors_stop_at_zero_training_error", _errors(stop="if errors[-1] == 0:\n                    break"),
               ERRORS),
    KnownWrong("errors_train_through_origin", _errors(b_step="pass"), ERRORS),
    KnownWrong("errors_count_wrong_predictions",
               _errors(measure="float(np.mean(np.where(X @ w + b > 0, 1, -1) != y))"), ERRORS),
]
