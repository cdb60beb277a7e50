"""Reading the course's limits from its ``nbgrader_config.py``.

The limits themselves are declared once, in :class:`perceptron_course.limits.Limits`
(the student's check holds a submission to the same ones); :func:`load_limits`
is the one place the grader reads a course's values for them.  The resource
limits of one sandboxed process are derived from them by
:meth:`autograder.running.sandbox.ProcessLimits.of`.
"""

import os

from perceptron_course.limits import CONFIG_SECTION, Limits, LimitsError

__all__ = ["load_limits"]


def load_limits(course_dir, **overrides):
    """The course's :class:`~perceptron_course.limits.Limits`: defaults, then ``c.Autograder`` in
    ``nbgrader_config.py``, then ``overrides``.

    ``overrides`` whose value is ``None`` are ignored (a command-line option
    that was not given).  Raises :class:`~perceptron_course.limits.LimitsError`
    naming the file for an unknown limit or a bad value.
    """
    limits = Limits()
    config_file = os.path.join(course_dir, "nbgrader_config.py")
    if os.path.isfile(config_file):
        from traitlets.config.loader import PyFileConfigLoader

        config = PyFileConfigLoader("nbgrader_config.py", path=course_dir).load_config()
        section = config.get(CONFIG_SECTION, {}) if CONFIG_SECTION in config else {}
        if section:
            try:
                limits = limits.replace(**dict(section))
            except LimitsError as exc:
                raise LimitsError(f"{config_file}: {exc}") from None
    given = {k: v for k, v in overrides.items() if v is not None}
    return limits.replace(**given) if given else limits
