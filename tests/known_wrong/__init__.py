"""The known-wrong implementations now live in :mod:`autograder.known_wrong`, where
``python -m autograder verify`` finds them; this name is kept for the tests that import it."""

from autograder.known_wrong import KnownWrong, load  # noqa: F401
