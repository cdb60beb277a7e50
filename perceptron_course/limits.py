"""Every limit of a grading run, declared once: its name, unit, default and meaning.

:class:`Limits` is the one place a limit is defined; the grader and the
student's check (:mod:`perceptron_course.check`) both use it.  A course changes any of
them in its ``nbgrader_config.py``, in the ``Autograder`` section::

    c.Autograder.notebook_seconds = 120
    c.Autograder.memory_bytes = 2 * 2**30

and the command line overrides the two time limits (``--timeout``,
``--cell-timeout``).  :func:`autograder.course.limits.load_limits` reads the course's values and
refuses unknown names and values of the wrong type or sign, naming the
setting and what was expected; the student package carries the values
read when it was built (:func:`course_limits`).  :meth:`Limits.describe` gives one line per
limit for the report, so the instructor sees what every submission was held
to.

Two time limits are calibrated from the instructor's own solution when a
batch starts (:mod:`autograder.running.calibrate`): the per-call limit of a hidden
test and the per-cell limit of a visible test are set to a multiple of what
the solution needs, never above the configured ceilings here and never
below the floors.
"""

import dataclasses
import json
import os
from dataclasses import dataclass, field

__all__ = ["Limits", "LimitsError", "course_limits", "CONFIG_SECTION", "COURSE_LIMITS_FILE"]

CONFIG_SECTION = "Autograder"
MiB = 2**20
# The course's limits as the student package was built with them (written by tools/student_package.py).
COURSE_LIMITS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "course_limits.json")


def _limit(default, unit, text):
    return field(default=default, metadata={"unit": unit, "text": text})


@dataclass(frozen=True)
class Limits:
    """The limits every submission of a run is held to (see the module docstring)."""

    # Time.
    notebook_seconds: float = _limit(300.0, "s", "wall-clock budget of one whole notebook, hidden tests included")
    cell_seconds: float = _limit(60.0, "s", "ceiling of one cell's run time; a cell past it is interrupted "
                                            "and the next one runs")
    call_seconds: float = _limit(3.0, "s", "ceiling of one call of a student's function by a hidden test")
    calibration_factor: float = _limit(20.0, "x", "calibrated limits are this multiple of the instructor "
                                                  "solution's own time")
    min_cell_seconds: float = _limit(3.0, "s", "floor of a calibrated cell limit")
    min_call_seconds: float = _limit(1.0, "s", "floor of a calibrated call limit")
    grace_seconds: float = _limit(10.0, "s", "extra wall-clock time past the notebook budget before the "
                                             "sandbox is killed")
    # Resources of the sandbox (each process gets its own copy of a resource limit).
    memory_bytes: int = _limit(3 * 2**30, "bytes", "address space of one process")
    processes: int = _limit(256, "processes", "processes and threads the sandbox may run at once")
    file_bytes: int = _limit(64 * MiB, "bytes", "size of one file the notebook writes")
    open_files: int = _limit(1024, "files", "files one process may hold open")
    tmp_bytes: int = _limit(256 * MiB, "bytes", "size of the sandbox's private /tmp and of its home")
    work_bytes: int = _limit(512 * MiB, "bytes", "everything the notebook writes into its folder")
    work_files: int = _limit(20_000, "files", "files and folders the notebook may create in its folder")
    # Sizes of what crosses the boundary.
    notebook_bytes: int = _limit(20 * MiB, "bytes", "size of one submitted notebook")
    cell_output_bytes: int = _limit(100_000, "bytes", "output kept per cell")
    total_output_bytes: int = _limit(2_000_000, "bytes", "output kept per notebook")
    executed_notebook_bytes: int = _limit(64 * MiB, "bytes", "the executed notebook read back from the sandbox")
    runner_report_bytes: int = _limit(1 * MiB, "bytes", "the runner's report read back from the sandbox")
    probe_results_bytes: int = _limit(64 * MiB, "bytes", "the hidden tests' results read back from the sandbox")
    zip_members: int = _limit(20_000, "members", "members of a .zip of submissions")
    zip_bytes: int = _limit(2 * 2**30, "bytes", "everything a .zip of submissions expands to")
    # The hub's exchange (perceptron_course.hub): what one submission, release or feedback may hold.
    exchange_bytes: int = _limit(50 * MiB, "bytes", "everything one submission to the hub's exchange holds")
    exchange_files: int = _limit(200, "files", "files one submission to the hub's exchange holds")
    exchange_depth: int = _limit(8, "folders", "folders deep a file of one submission to the hub's exchange lies")
    exchange_submissions: int = _limit(100, "submissions", "submissions one student keeps of one assignment in "
                                                            "the hub's exchange")
    exchange_upload_seconds: float = _limit(300.0, "s", "time one request's body may take to reach the hub's "
                                                         "exchange, or one reply's files to leave it; a slower "
                                                         "one is cut off")
    exchange_transfers_per_user: int = _limit(2, "transfers", "uploads and downloads of files one user may have "
                                                              "in progress at the hub's exchange at once")
    exchange_connections_per_user: int = _limit(16, "connections", "connections one user of the hub's machine "
                                                                    "may hold open to the hub's exchange at once "
                                                                    "(root and the exchange's own user aside)")
    exchange_memory_bytes: int = _limit(300 * MiB, "bytes", "bodies of large uploads and downloads (over 1 MiB, "
                                                            "one per user) the hub's exchange holds at once, all "
                                                            "users together, which it reads with about 1.75 times "
                                                            "as much memory; one more waits (HTTP 503); students' "
                                                            "leave one largest body of it for the course's staff")
    exchange_student_bytes: int = _limit(250 * MiB, "bytes", "disk one student's kept submissions to one course "
                                                             "take in the hub's exchange, counted in 4 KiB blocks "
                                                             "for each file and folder")
    # The hub's students (perceptron_course.hub.spawner).
    hub_student_processes: int = _limit(1024, "processes", "processes and threads one student may run at once "
                                                            "on the hub, her server, kernels and terminals together")
    hub_student_memory_bytes: int = _limit(2 * 2**30, "bytes", "memory one student's processes on the hub may "
                                                               "hold at once, her server, kernels and terminals "
                                                               "together; past it the largest is ended")

    def __post_init__(self):
        for spec in dataclasses.fields(self):
            value = getattr(self, spec.name)
            wanted = int if spec.type in (int, "int") else float
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or (wanted is int and not isinstance(value, int)):
                raise LimitsError(f"{CONFIG_SECTION}.{spec.name} must be {'an int' if wanted is int else 'a number'} "
                                  f"of {spec.metadata['unit']}; got {value!r} instead")
            if not value > 0:
                raise LimitsError(f"{CONFIG_SECTION}.{spec.name} must be positive ({spec.metadata['unit']}); "
                                  f"got {value!r} instead")
        if self.cell_seconds > self.notebook_seconds:
            object.__setattr__(self, "cell_seconds", self.notebook_seconds)
        # Limits that would make a submission the other limits allow impossible to send or to keep.
        if self.exchange_memory_bytes < self.exchange_body_bytes:
            raise LimitsError(f"{CONFIG_SECTION}.exchange_memory_bytes ({self.exchange_memory_bytes:,}) is less "
                              f"than one upload of {CONFIG_SECTION}.exchange_bytes needs in transit "
                              f"({self.exchange_body_bytes:,} bytes of base64 and JSON); raise it to at least that")
        if self.exchange_student_bytes < self.exchange_bytes:
            raise LimitsError(f"{CONFIG_SECTION}.exchange_student_bytes ({self.exchange_student_bytes:,}) is less "
                              f"than one submission of {CONFIG_SECTION}.exchange_bytes ({self.exchange_bytes:,}); "
                              "raise it to at least that")

    @property
    def exchange_body_bytes(self):
        """The most bytes one request or reply body of the hub's exchange holds: ``exchange_bytes`` of files in
        base64, which makes 4 bytes of every 3, and the JSON around them, which is small."""
        return self.exchange_bytes * 4 // 3 + 64 * 1024 + 1024 * self.exchange_files

    def replace(self, **changes):
        """A copy with ``changes``; unknown names are a :class:`LimitsError`."""
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise LimitsError(f"unknown limit {', '.join(unknown)}; known limits: "
                              + ", ".join(f.name for f in dataclasses.fields(self)))
        return dataclasses.replace(self, **changes)

    def describe(self):
        """``(name, value with unit, meaning)`` for every limit, in declaration order."""
        rows = []
        for spec in dataclasses.fields(self):
            value, unit = getattr(self, spec.name), spec.metadata["unit"]
            if unit == "bytes" and value >= MiB:
                shown = f"{value / MiB:g} MiB"
            elif unit == "bytes":
                shown = f"{value:,} bytes"
            elif unit == "x":
                shown = f"{value:g}x"
            else:
                shown = f"{value:g} {unit}" if isinstance(value, float) else f"{value:,} {unit}"
            rows.append((spec.name, shown, spec.metadata["text"]))
        return rows


class LimitsError(ValueError):
    """A limit in the course configuration is unknown, of the wrong type or not positive."""


def course_limits(path=None):
    """The course's :class:`Limits` as recorded when the student package was built (``path``, by default
    :data:`COURSE_LIMITS_FILE`); the defaults without a record.

    Raises :class:`LimitsError` when the record exists but cannot be read
    or names an unknown limit.
    """
    path = path or COURSE_LIMITS_FILE
    if not os.path.isfile(path):
        return Limits()
    try:
        with open(path, encoding="utf-8") as f:
            values = json.load(f)
    except (OSError, ValueError) as exc:
        raise LimitsError(f"the course's limits in {path} cannot be read ({exc}); reinstall the course's package")
    if not isinstance(values, dict):
        raise LimitsError(f"the course's limits in {path} are not a JSON object; reinstall the course's package")
    return Limits().replace(**values)
