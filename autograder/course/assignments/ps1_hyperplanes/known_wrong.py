"""Mistakes in problem set 1: signed distance, side of the plane, margin, separation."""

from autograder.course.known_wrong import KnownWrong


def _side_of_plane_with_a_tolerance(tolerance):
    """side_of_plane calling a score of at most ``tolerance`` (a literal) zero, and so -1."""
    return f"""
        def side_of_plane(X, w, b=0.0):
            s = np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) + b
            return np.where(s > {tolerance}, 1, -1)
        """


def _side_of_plane_rounding_the_score(decimals):
    """side_of_plane rounding the score to ``decimals`` decimals before its sign is taken."""
    return f"""
        def side_of_plane(X, w, b=0.0):
            s = np.round(np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) + b, {decimals})
            return np.where(s > 0, 1, -1)
        """


KNOWN_WRONG = [
    # -- signed_distance -------------------------------------------------------
    KnownWrong("signed_distance_forgets_norm", """
        def signed_distance(X, w, b=0.0):
            return np.asarray(X, dtype=float) @ w + b
        """, ("signed_distance_examples", "signed_distance_general")),
    KnownWrong("signed_distance_divides_by_squared_norm", """
        def signed_distance(X, w, b=0.0):
            return (np.asarray(X, dtype=float) @ w + b) / (w @ w)
        """, ("signed_distance_examples", "signed_distance_general")),
    KnownWrong("signed_distance_subtracts_offset", """
        def signed_distance(X, w, b=0.0):
            return (np.asarray(X, dtype=float) @ w - b) / np.linalg.norm(w)
        """, ("signed_distance_examples", "signed_distance_general")),
    KnownWrong("signed_distance_ignores_offset", """
        def signed_distance(X, w, b=0.0):
            return (np.asarray(X, dtype=float) @ w) / np.linalg.norm(w)
        """, ("signed_distance_examples", "signed_distance_general")),
    KnownWrong("signed_distance_unsigned", """
        def signed_distance(X, w, b=0.0):
            return np.abs(np.asarray(X, dtype=float) @ w + b) / np.linalg.norm(w)
        """, ("signed_distance_examples", "signed_distance_general")),
    KnownWrong("signed_distance_normalises_w_in_place", """
        def signed_distance(X, w, b=0.0):
            norm = np.linalg.norm(w)
            w /= norm
            return np.asarray(X, dtype=float) @ w + b / norm
        """, ("signed_distance_examples", "signed_distance_general")),
    KnownWrong("signed_distance_needs_offset_argument", """
        def signed_distance(X, w, b):
            return (np.asarray(X, dtype=float) @ w + b) / np.linalg.norm(w)
        """, ("signed_distance_general",)),
    KnownWrong("signed_distance_normalises_w_but_not_b", """
        def signed_distance(X, w, b=0.0):
            return np.asarray(X, dtype=float) @ (w / np.linalg.norm(w)) + b
        """, ("signed_distance_examples", "signed_distance_general")),
    KnownWrong("signed_distance_divides_by_the_norm_of_w_and_b", """
        def signed_distance(X, w, b=0.0):
            return (np.asarray(X, dtype=float) @ w + b) / np.sqrt(w @ w + b * b)
        """, ("signed_distance_examples", "signed_distance_general")),
    KnownWrong("signed_distance_divides_by_the_sum_of_abs_w", """
        def signed_distance(X, w, b=0.0):
            return (np.asarray(X, dtype=float) @ w + b) / np.sum(np.abs(w))
        """, ("signed_distance_examples", "signed_distance_general")),
    KnownWrong("signed_distance_positive_on_the_far_side", """
        def signed_distance(X, w, b=0.0):
            return -(np.asarray(X, dtype=float) @ w + b) / np.linalg.norm(w)
        """, ("signed_distance_examples", "signed_distance_general")),
    KnownWrong("signed_distance_returns_a_list", """
        def signed_distance(X, w, b=0.0):
            norm = np.linalg.norm(w)
            return [(float(x @ w) + b) / norm for x in np.asarray(X, dtype=float)]
        """, ("signed_distance_examples", "signed_distance_general")),
    # -- side_of_plane -----------------------------------------------------------
    KnownWrong("side_of_plane_zero_is_positive", """
        def side_of_plane(X, w, b=0.0):
            return np.where(np.asarray(X, dtype=float) @ w + b >= 0, 1, -1)
        """, ("side_of_plane_on_plane",)),
    KnownWrong("side_of_plane_uses_np_sign", """
        def side_of_plane(X, w, b=0.0):
            return np.sign(np.asarray(X, dtype=float) @ w + b).astype(int)
        """, ("side_of_plane_on_plane",)),
    KnownWrong("side_of_plane_ignores_offset", """
        def side_of_plane(X, w, b=0.0):
            return np.where(np.asarray(X, dtype=float) @ w > 0, 1, -1)
        """, ("side_of_plane_values", "side_of_plane_on_plane")),
    KnownWrong("side_of_plane_flipped", """
        def side_of_plane(X, w, b=0.0):
            return np.where(np.asarray(X, dtype=float) @ w + b < 0, 1, -1)
        """, ("side_of_plane_values", "side_of_plane_on_plane")),
    KnownWrong("side_of_plane_returns_booleans", """
        def side_of_plane(X, w, b=0.0):
            return np.asarray(X, dtype=float) @ w + b > 0
        """, ("side_of_plane_values", "side_of_plane_on_plane")),
    KnownWrong("side_of_plane_labels_zero_and_one", """
        def side_of_plane(X, w, b=0.0):
            return np.where(np.asarray(X, dtype=float) @ w + b > 0, 1, 0)
        """, ("side_of_plane_values", "side_of_plane_on_plane")),
    # Right for two points or more; for one point, squeeze() returns an array of shape () instead of shape (1,).
    KnownWrong("side_of_plane_squeezes_a_single_point", """
        def side_of_plane(X, w, b=0.0):
            s = np.asarray(X, dtype=float) @ w + b
            return np.where(s > 0, 1, -1).squeeze()
        """, ("side_of_plane_values",)),
    # The right values, but floats where the docstring asks for ints: only the cell that checks the dtype fails.
    KnownWrong("side_of_plane_returns_float_labels", """
        def side_of_plane(X, w, b=0.0):
            return np.where(np.asarray(X, dtype=float) @ w + b > 0, 1.0, -1.0)
        """, ("side_of_plane_values",)),
    # Rounding or a tolerance "against floating-point noise" labels a point just off the plane -1: 0.001 is positive.
    KnownWrong("side_of_plane_rounds_the_distance_to_two_decimals", """
        def side_of_plane(X, w, b=0.0):
            d = np.round(signed_distance(X, w, b), 2)
            return np.where(d > 0, 1, -1)
        """, ("side_of_plane_values",)),
    KnownWrong("side_of_plane_with_a_tolerance", _side_of_plane_with_a_tolerance("0.1"), ("side_of_plane_values",)),
    KnownWrong("side_of_plane_rounds_the_score_to_four_decimals", _side_of_plane_rounding_the_score(4), ("side_of_plane_values",)),
    # Finer tolerances, of the sizes students type, are still coarser than the 1e-8 the notebook allows for noise:
    # the points 1.5e-8 (and 0.00001) off the plane get -1.
    KnownWrong("side_of_plane_with_a_tolerance_of_1e_5", _side_of_plane_with_a_tolerance("1e-5"), ("side_of_plane_values",)),
    KnownWrong("side_of_plane_with_a_tolerance_of_1e_6", _side_of_plane_with_a_tolerance("1e-6"), ("side_of_plane_values",)),
    KnownWrong("side_of_plane_compares_the_distance_with_1e_6", """
        def side_of_plane(X, w, b=0.0):
            return np.where(signed_distance(X, w, b) > 1e-6, 1, -1)
        """, ("side_of_plane_values",)),
    KnownWrong("side_of_plane_rounds_the_score_to_five_decimals", _side_of_plane_rounding_the_score(5), ("side_of_plane_values",)),
    KnownWrong("side_of_plane_treats_scores_within_1e_7_as_zero", """
        def side_of_plane(X, w, b=0.0):
            s = np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) + b
            return np.where((s > 0) & ~np.isclose(s, 0.0, atol=1e-7), 1, -1)
        """, ("side_of_plane_values",)),
    KnownWrong("side_of_plane_returns_a_list", """
        def side_of_plane(X, w, b=0.0):
            return [1 if s > 0 else -1 for s in np.asarray(X, dtype=float) @ w + b]
        """, ("side_of_plane_values", "side_of_plane_on_plane")),
    # -- margin --------------------------------------------------------------------
    KnownWrong("margin_takes_abs", """
        def margin(X, y, w, b=0.0):
            return float(np.min(np.abs(y * (np.asarray(X, dtype=float) @ w + b))) / np.linalg.norm(w))
        """, ("margin_not_separating",)),
    KnownWrong("margin_forgets_norm", """
        def margin(X, y, w, b=0.0):
            return float(np.min(y * (np.asarray(X, dtype=float) @ w + b)))
        """, ("margin_separating", "margin_not_separating")),
    KnownWrong("margin_ignores_labels", """
        def margin(X, y, w, b=0.0):
            return float(np.min(np.asarray(X, dtype=float) @ w + b) / np.linalg.norm(w))
        """, ("margin_separating", "margin_not_separating")),
    KnownWrong("margin_takes_max", """
        def margin(X, y, w, b=0.0):
            return float(np.max(y * (np.asarray(X, dtype=float) @ w + b)) / np.linalg.norm(w))
        """, ("margin_separating", "margin_not_separating")),
    KnownWrong("margin_takes_mean", """
        def margin(X, y, w, b=0.0):
            return float(np.mean(y * (np.asarray(X, dtype=float) @ w + b)) / np.linalg.norm(w))
        """, ("margin_separating", "margin_not_separating")),
    KnownWrong("margin_returns_every_point", """
        def margin(X, y, w, b=0.0):
            return y * (np.asarray(X, dtype=float) @ w + b) / np.linalg.norm(w)
        """, ("margin_separating", "margin_not_separating")),
    KnownWrong("margin_zero_when_not_separating", """
        def margin(X, y, w, b=0.0):
            value = float(np.min(y * (np.asarray(X, dtype=float) @ w + b)) / np.linalg.norm(w))
            return max(value, 0.0)
        """, ("margin_not_separating",)),
    KnownWrong("margin_ignores_offset", """
        def margin(X, y, w, b=0.0):
            return float(np.min(y * (np.asarray(X, dtype=float) @ w)) / np.linalg.norm(w))
        """, ("margin_separating", "margin_not_separating")),
    KnownWrong("margin_divides_by_the_norm_of_w_and_b", """
        def margin(X, y, w, b=0.0):
            return float(np.min(y * (np.asarray(X, dtype=float) @ w + b)) / np.sqrt(w @ w + b * b))
        """, ("margin_separating", "margin_not_separating")),
    # -- separates -----------------------------------------------------------------
    KnownWrong("separates_allows_points_on_plane", """
        def separates(X, y, w, b=0.0):
            return bool(np.all(y * (np.asarray(X, dtype=float) @ w + b) >= 0))
        """, ("separates_on_plane",)),
    KnownWrong("separates_any_instead_of_all", """
        def separates(X, y, w, b=0.0):
            return bool(np.any(y * (np.asarray(X, dtype=float) @ w + b) > 0))
        """, ("separates_values", "separates_on_plane")),
    KnownWrong("separates_ignores_offset", """
        def separates(X, y, w, b=0.0):
            return bool(np.all(y * (np.asarray(X, dtype=float) @ w) > 0))
        """, ("separates_values",)),
    KnownWrong("separates_returns_count", """
        def separates(X, y, w, b=0.0):
            return int(np.sum(y * (np.asarray(X, dtype=float) @ w + b) > 0))
        """, ("separates_values", "separates_on_plane")),
    # Right wherever no point lies on the plane; a point labelled -1 on it is predicted -1 and wrongly accepted.
    KnownWrong("separates_compares_predictions_with_labels", """
        def separates(X, y, w, b=0.0):
            return bool(np.all(side_of_plane(X, w, b) == y))
        """, ("separates_on_plane",)),
    # Rounding or a tolerance rejects a plane that puts a point only 0.001, 0.00001 or 1.5e-8 inside its side.
    KnownWrong("separates_with_a_tolerance", """
        def separates(X, y, w, b=0.0):
            s = np.asarray(X, dtype=float) @ np.asarray(w, dtype=float) + b
            return bool(np.all(np.asarray(y) * s > 0.1))
        """, ("separates_values",)),
    KnownWrong("separates_rounds_the_margins_to_one_decimal", """
        def separates(X, y, w, b=0.0):
            d = np.round(np.asarray(y) * signed_distance(X, w, b), 1)
            return bool(np.all(d > 0))
        """, ("separates_values",)),
    KnownWrong("separates_with_a_tolerance_of_0_0001", """
        def separates(X, y, w, b=0.0):
            return bool(np.all(np.asarray(y) * (np.asarray(X, dtype=float) @ w + b) > 1e-4))
        """, ("separates_values",)),
    KnownWrong("separates_with_a_tolerance_of_1e_5", """
        def separates(X, y, w, b=0.0):
            return bool(np.all(np.asarray(y) * (np.asarray(X, dtype=float) @ w + b) > 1e-5))
        """, ("separates_values",)),
    KnownWrong("separates_with_a_tolerance_of_1e_6", """
        def separates(X, y, w, b=0.0):
            return bool(np.all(np.asarray(y) * (np.asarray(X, dtype=float) @ w + b) > 1e-6))
        """, ("separates_values",)),
    KnownWrong("separates_compares_the_margin_with_1e_6", """
        def separates(X, y, w, b=0.0):
            return margin(X, y, w, b) > 1e-6
        """, ("separates_values",)),
    KnownWrong("separates_rounds_the_products_to_five_decimals", """
        def separates(X, y, w, b=0.0):
            return bool(np.all(np.round(np.asarray(y) * (np.asarray(X, dtype=float) @ w + b), 5) > 0))
        """, ("separates_values",)),
    # 'How to work' asks for float64: a margin computed in float32 is off in its seventh digit.
    KnownWrong("margin_computes_in_float32", """
        def margin(X, y, w, b=0.0):
            X, w = np.asarray(X, dtype=np.float32), np.asarray(w, dtype=np.float32)
            return float(np.min(np.asarray(y, dtype=np.float32) * (X @ w + np.float32(b))) / np.linalg.norm(w))
        """, ("margin_separating",)),
    # 'How to work' asks for float64: in float32 the offset 2.000000015 is 2, and the point 2 lands on the plane.
    KnownWrong("separates_computes_in_float32", """
        def separates(X, y, w, b=0.0):
            s = np.asarray(X, dtype=np.float32) @ np.asarray(w, dtype=np.float32) + np.float32(b)
            return bool(np.all(np.asarray(y, dtype=np.float32) * s > 0))
        """, ("separates_values",)),
    KnownWrong("separates_returns_every_point", """
        def separates(X, y, w, b=0.0):
            return y * (np.asarray(X, dtype=float) @ w + b) > 0
        """, ("separates_values", "separates_on_plane")),
]
