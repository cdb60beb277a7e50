"""The course's limits as the grader uses them: read from ``nbgrader_config.py``, and the sandbox's share.

The limits themselves are declared once, in :mod:`perceptron_course.limits`
(the student's check holds a submission to the same ones).  This module
adds what only the grader needs: :func:`load_limits`, which reads a course's
values from its ``nbgrader_config.py``, and :meth:`Limits.sandbox_limits`,
the resource limits of one sandbox.
"""

import os

from perceptron_course.limits import CONFIG_SECTION, MiB, LimitsError
from perceptron_course.limits import Limits as _DeclaredLimits

__all__ = ["Limits", "LimitsError", "load_limits", "CONFIG_SECTION", "MiB"]


class Limits(_DeclaredLimits):
    """The limits every submission of a run is held to (see :mod:`perceptron_course.limits`)."""

    def sandbox_limits(self, cpu_seconds):
        """The resource limits of one sandbox (:class:`autograder.running.sandbox.Limits`), with ``cpu_seconds`` of CPU."""
        from autograder.running.sandbox import Limits as SandboxLimits

        return SandboxLimits(memory_bytes=self.memory_bytes, processes=self.processes, file_bytes=self.file_bytes,
                             cpu_seconds=int(cpu_seconds), open_files=self.open_files, tmp_bytes=self.tmp_bytes)


def load_limits(course_dir, **overrides):
    """The course's :class:`Limits`: defaults, then ``c.Autograder`` in ``nbgrader_config.py``, then ``overrides``.

    ``overrides`` whose value is ``None`` are ignored (a command-line option
    that was not given).
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
