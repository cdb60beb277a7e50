"""The records that travel between the grading workers and the host: jobs, flags and results.

A :class:`Job` says what to grade and how (everything a worker needs, as
plain picklable data, so any ``concurrent.futures.Executor`` can run
:func:`autograder.running.worker.run_submission` on it); a :class:`Result` is
everything the host needs to write the gradebook, ``grades.csv``, the
feedback and the report.  Statuses and flag codes are fixed strings, defined here once, with
the sentences the feedback and the report use to explain them.
"""

from dataclasses import dataclass, field

from perceptron_course.cells import Flag  # defined with the locked cells it reports on

from perceptron_course.limits import Limits

GRADED = "graded"
UNGRADABLE = "ungradable"
TIMEOUT = "timeout"
CRASHED = "crashed"
MISSING = "missing"
STATUSES = (GRADED, UNGRADABLE, TIMEOUT, CRASHED, MISSING)

STATUS_TEXT = {
    GRADED: "The notebook ran and every hidden test was judged.",
    UNGRADABLE: "The file could not be graded, so no code was run and every test scores 0.",
    TIMEOUT: "The notebook used up its time budget before the hidden tests could run, so every test scores 0.",
    CRASHED: "The notebook's Python process died before the hidden tests could run, so every test scores 0.",
    MISSING: "The roster lists this student, but the download holds no submission from them; the score is 0.",
}

# Found by the report's similarity pass on the host, and shown only in the report: never a result's flag.
REFERENCE_COPY = "reference-copy"

# Flag code -> what it means, in words for the instructor and the student.
FLAG_TEXT = {
    "edited-locked-cell": "A read-only or test cell was changed; the original cell was run instead.",
    "deleted-locked-cell": "A read-only or test cell was deleted; the original cell was put back and run.",
    "duplicated-cell": "A cell appears twice (the same nbgrader cell id); only the first copy of an answer "
                       "was graded, and copies of test cells were dropped.",
    "ipython-hooks": "The code reaches into IPython (get_ipython(), input or AST transformers, event hooks, "
                     "or magics that change how cells run).",
    "patched-modules": "The code replaces attributes of modules or built-ins (for example numpy.testing or "
                       "builtins), which could change what tests see.",
    "import-system": "The code edits sys.modules, sys.path or Python's import and trace hooks, or imports "
                     "modules by computed names.",
    "module-file": "The code writes (or left behind) a file named like a Python module, which could replace "
                   "that module for code run later.",
    "outside-paths": "The code refers to files or folders outside its own folder, or lists directories.",
    "grading-detection": "The code looks at environment variables, the user, the host or grading paths, as a "
                         "way to tell whether it is being graded.",
    "processes": "The code starts, stops or signals processes, or runs shell commands.",
    "custom-equality": "The code defines a class with its own ==, != or truth value; such objects never pass "
                       "a hidden test.",
    "redefines-locked": "The code defines again a function or class that a read-only cell of the assignment "
                        "defines; the hidden tests may call that function, so check what the new one does.",
    "reference-solution": "The code imports the course's reference implementation (perceptron_lib) of "
                          "something the assignment asks you to write.",
    REFERENCE_COPY: "A function of the code holds most of the lines of a function of the course's reference "
                    "implementation (perceptron_lib), once names, formatting, messages and the order of lines are "
                    "set aside; the report's section on copies shows the lines side by side.",
    "output-truncated": "A cell printed more output than is kept; the rest was dropped.",
    "cell-interrupted": "A cell ran longer than the per-cell time limit and was interrupted; later cells still ran.",
    "background-processes": "Processes started by the notebook were still running at the end; they were killed.",
    "late": "Submitted after the deadline (as the LMS recorded it, or after --deadline); no penalty was applied.",
    "extra-files": "The submission holds files besides the notebook; they were not given to the notebook, so "
                   "code that relied on them (or tried to replace a module such as numpy) did not see them.",
    "not-on-roster": "The submission matches no student of the roster; it was graded under the id shown.",
    "group-submission": "Graded from a group submission another member handed in; the grade is the group's.",
}


@dataclass(frozen=True)
class CellResult:
    """The score of one graded cell of one submission."""

    grade_id: str
    points: float
    max_points: float
    passed: bool
    message: str
    judged: bool = True  # False when no hidden check covers the cell: it needs a human


@dataclass(frozen=True)
class Settings:
    """How every submission of a run is graded.

    ``limits`` are the course's :class:`~perceptron_course.limits.Limits`;
    ``cell_seconds`` and ``call_seconds`` the time limits actually applied to
    one cell and to one call by a hidden test: the ceilings in ``limits``
    unless calibrated lower from the instructor's solution
    (:mod:`autograder.running.calibrate`), which ``budget_text`` then explains.
    """

    limits: Limits = Limits()
    use_sandbox: bool = True
    # Without a sandbox, run the notebook as an unprivileged user id of its own
    # (:func:`autograder.running.sandbox.run_as_user`) instead of as this process's user.
    unprivileged_user: bool = False
    cell_seconds: float = None
    call_seconds: float = None
    # (key, seconds): calibrated limits of single cells of the release, keyed by
    # nbgrader grade_id, or by the notebook cell id for cells without one.
    cell_seconds_by_cell: tuple = ()
    budget_text: str = ""

    def __post_init__(self):
        if self.cell_seconds is None:
            object.__setattr__(self, "cell_seconds", self.limits.cell_seconds)
        if self.call_seconds is None:
            object.__setattr__(self, "call_seconds", self.limits.call_seconds)


@dataclass(frozen=True)
class Job:
    """One submission to grade."""

    student_id: str
    assignment: str
    notebook_path: str  # on the host; None when the submission was found unusable already
    release_dir: str
    settings: Settings
    problem: str = None  # why it cannot be graded, when that is known before reading it


@dataclass
class Result:
    """Everything the host records about one graded submission."""

    student_id: str
    assignment: str
    status: str
    reason: str = ""
    score: float = 0.0
    max_score: float = 0.0
    cells: list = field(default_factory=list)  # CellResult, in notebook order
    manual_cells: list = field(default_factory=list)  # (grade_id, max_points, answer checksum)
    flags: list = field(default_factory=list)  # Flag
    notes: list = field(default_factory=list)  # plain sentences for the feedback
    autograded_notebook: str = None  # nbformat JSON text
    run_seconds: float = 0.0  # wall time of the notebook run (sandbox included)
    sandboxed: bool = True
    source: str = ""  # the entry's name in the download
    submitted_at: str = ""  # ISO 8601, when the LMS recorded it
    authored_code: tuple = ()  # the sources of the student's own code cells, for the similarity report
    # Set by the worker, consumed by the host's judge: the autograded cells'
    # (grade_id, points) and the hidden tests' results (autograder.boundary.from_sandbox.ProbeResults).
    autograded_cells: list = None
    probe_results: object = None
    runner_report: object = None  # perceptron_course.protocol.RunnerReport of the run, when it ran
    # The written answers' marks as the gradebook holds them (autograder.outputs.gradebook.WrittenMark), read on
    # the host when the outputs are written; empty where there is no gradebook (Gradescope).
    written: tuple = ()

    @property
    def flag_codes(self):
        return sorted({f.code for f in self.flags})
