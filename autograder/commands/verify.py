"""``python -m autograder verify``: does an assignment still grade what it should?

An instructor who changes an assignment (a new case, a new part, a new
problem set) runs this before releasing it.  For each assignment it releases
a fresh student version into a temporary copy of the course directory (the
real release and gradebook are left alone) and checks, with the hidden
checks (``autograder/course/assignments/<assignment>/checks.py``) and the known-wrong
implementations (``autograder/course/assignments/<assignment>/known_wrong.py``):

* the solution in the source notebook gets full marks;
* the blank release gets zero, every cell failing on the stubs;
* every known-wrong implementation loses exactly the grade cells it names;
* every grade cell has hidden checks with hidden cases, and at least one
  known-wrong implementation that it catches;
* every default argument value matters: the solution with any one default
  changed to a value it is easily mistaken for (a whole number's
  neighbours, half and twice a real number, the other truth value) loses
  points, and any other default is left out by a hidden case;
* nothing from the solutions or the hidden checks is in the release (the
  course's leak audit, :mod:`autograder.commands.audit`);
* the notebook's structure: each test cell says what it checks and ends with
  its hidden-checks call, grade ids are unique, the points add up to what the
  header and each part's heading say, visible cases appear in the test cells;
* the source notebook runs top to bottom without an error, and the release
  fails only on its stubs (``--no-run`` skips these two executions).

It prints one table per assignment and the problems found, and exits 1 if
there is any.  Each requirement is a function of an :class:`Assignment`
returning a :class:`RequirementVerdict`, so the test suite checks the same
things (``tests/grader/course/test_assignments.py``).
"""

import argparse
import ast
import contextlib
import copy
import dataclasses
import os
import re
import shutil
import sys
from dataclasses import dataclass
from functools import cached_property

import nbformat

from perceptron_course.cells import grade_id, grade_points, is_solution, is_test_cell, nbgrader_metadata

from autograder.commands import release as release_module
from autograder.commands.audit import MIN_LINE_CHARS, audit, collect_secrets
from autograder.course import COURSE_DIR
from autograder.course.assignments import load_checks, load_known_wrong
from autograder.judging.checks import evaluate_namespace
from autograder.running.worker import job_folder, remove_abandoned_folders

__all__ = ["Assignment", "RequirementVerdict", "REQUIREMENTS", "RUN_REQUIREMENTS", "verify", "format_table",
           "main"]

HIDDEN_CALL = (
    "### BEGIN HIDDEN TESTS\n"
    "from autograder.judging.checks import run_in_notebook\n"
    'run_in_notebook("{assignment}", "{grade_id}", globals())\n'
    "### END HIDDEN TESTS"
)
EXECUTION_TIMEOUT = 120


@dataclass(frozen=True)
class RequirementVerdict:
    """One row of the table: a requirement, what it covered, and the problems found (none when it holds)."""

    requirement: str
    covered: str
    problems: tuple = ()

    @property
    def ok(self):
        return not self.problems


def namespace_from(notebook):
    """Run a notebook's read-only code cells and answer cells (not its tests) in a fresh namespace.

    The hidden checks then call the functions it defined, as the grader's
    probe does in the notebook's namespace.
    """
    namespace = {"__name__": "assignment"}
    for cell in notebook.cells:
        meta = nbgrader_metadata(cell)
        runs = meta.get("solution") or (meta.get("locked") and not meta.get("grade"))
        if cell.cell_type == "code" and runs:
            exec(compile(cell.source, f"<{meta.get('grade_id')}>", "exec"), namespace)
    return namespace


def execute(notebook, cwd, *, timeout=EXECUTION_TIMEOUT):
    """Execute a copy of ``notebook`` as grading runs it (a fresh Python, an IPython shell), continuing after
    errors; return the executed copy.  A cell past ``timeout`` seconds is interrupted and shows the error."""
    from autograder.commands.check import run_notebook

    executed = copy.deepcopy(notebook)
    os.environ.setdefault("MPLBACKEND", "Agg")
    run_notebook(executed, cwd, cell_timeout=timeout)
    return executed


def errors_of(notebook):
    """``(grade_id or cell number, error name, error value)`` for every cell that raised."""
    found = []
    for index, cell in enumerate(notebook.cells):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                found.append((grade_id(cell) or f"cell {index + 1}", output["ename"], output["evalue"]))
    return found


class Assignment:
    """One assignment of a course directory, with what verifying it needs, each computed once.

    ``release_dir`` is the folder of an existing student version to check;
    without it, :attr:`release_dir` releases a fresh one into a temporary copy
    of the course directory (removed by :meth:`close`).
    """

    def __init__(self, name, course_dir=COURSE_DIR, *, release_dir=None):
        self.name = name
        self.course_dir = os.path.abspath(course_dir)
        self.source_path = os.path.join(self.course_dir, "source", name, f"{name}.ipynb")
        if not os.path.isfile(self.source_path):
            raise ValueError(f"Assignment {name!r} has no source notebook: {self.source_path} does not exist.")
        self._release_dir = release_dir
        self._scratch = None
        self._scratch_folder = contextlib.ExitStack()

    def close(self):
        self._scratch_folder.close()
        self._scratch = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @cached_property
    def source(self):
        return nbformat.read(self.source_path, as_version=4)

    @cached_property
    def secrets(self):
        """What the leak audit looks for in this course (:func:`autograder.commands.audit.collect_secrets`)."""
        return collect_secrets(course_dir=self.course_dir)

    @cached_property
    def checks(self):
        return load_checks(self.name)

    @cached_property
    def known_wrong(self):
        return load_known_wrong(self.name)

    @property
    def release_dir(self):
        if self._release_dir is None:
            # A grading job's folder: it holds a copy of the solutions, and should verify be killed, the next
            # verify or grading batch finds it by its released lock and removes it.
            self._scratch = self._scratch_folder.enter_context(job_folder(f"verify-{self.name}"))
            shutil.copytree(os.path.join(self.course_dir, "source", self.name),
                            os.path.join(self._scratch, "source", self.name))
            config = os.path.join(self.course_dir, "nbgrader_config.py")
            if os.path.isfile(config):
                shutil.copy(config, os.path.join(self._scratch, "nbgrader_config.py"))
            self._release_dir = release_module.release(self.name, self._scratch, self.secrets)
        return self._release_dir

    @cached_property
    def release(self):
        return nbformat.read(os.path.join(self.release_dir, f"{self.name}.ipynb"), as_version=4)

    @cached_property
    def test_ids(self):
        """The grade ids of the autograded test cells, in notebook order."""
        return [grade_id(c) for c in self.source.cells if is_test_cell(c)]

    @cached_property
    def call_seconds(self):
        """What one call of a student's function may take here: the floor of the calibrated limit that grading
        gives every call, so that a right function that is too slow for grading is too slow for ``verify``."""
        from autograder.course.limits import load_limits

        return load_limits(self.course_dir).min_call_seconds

    def verdicts(self, notebook, extra_code=None, label="extra"):
        """``{grade_id: Verdict}`` of the hidden checks on a notebook's code (plus ``extra_code``)."""
        namespace = namespace_from(notebook)
        if extra_code is not None:
            exec(compile(extra_code, f"<{label}>", "exec"), namespace)
        return {v.grade_id: v for v in evaluate_namespace(self.checks, namespace, seconds_per_call=self.call_seconds)}


# -- the requirements ---------------------------------------------------------------

def solution_gets_full_marks(a):
    verdicts = a.verdicts(a.source)
    problems = [f"{gid} rejects the solution: {v.message}" for gid, v in verdicts.items() if not v.passed]
    return RequirementVerdict("the solution gets full marks", f"{len(verdicts)} grade cells", tuple(problems))


def blank_release_gets_zero(a):
    verdicts = a.verdicts(a.release)
    problems = [] if verdicts else ["no hidden check judged the release"]
    for gid, v in verdicts.items():
        if v.passed:
            problems.append(f"{gid} passes the blank release: its hidden cases must need the student's code")
        elif "not implemented yet" not in v.message:
            problems.append(f"{gid} fails the blank release for a reason other than the stubs: {v.message}")
    return RequirementVerdict("the blank release gets zero", f"{len(verdicts)} grade cells", tuple(problems))


def known_wrong_lose_exactly_their_cells(a):
    problems = []
    for wrong in a.known_wrong:
        verdicts = a.verdicts(a.source, wrong.code(), wrong.name)
        named = tuple(wrong.must_fail)
        unknown = sorted(set(named) - set(verdicts))
        if not named:
            problems.append(f"{wrong.name} names no grade cell that must reject it")
        if unknown:
            problems.append(f"{wrong.name} names grade cells that have no hidden checks: {', '.join(unknown)}")
        passed = [gid for gid in named if gid in verdicts and verdicts[gid].passed]
        if passed:
            problems.append(f"{wrong.name} passes {', '.join(passed)}, which must reject it")
        silent = [gid for gid in named if gid in verdicts and not verdicts[gid].passed and not verdicts[gid].message.strip()]
        if silent:
            problems.append(f"{wrong.name} fails {', '.join(silent)} without a message")
        also = [gid for gid, v in verdicts.items() if not v.passed and gid not in named]
        if also:
            problems.append(f"{wrong.name} also fails {', '.join(also)}, which it does not name "
                            f"({verdicts[also[0]].message})")
    return RequirementVerdict("known-wrong implementations lose exactly their cells",
                              f"{len(a.known_wrong)} implementations", tuple(problems))


def every_cell_has_hidden_cases(a):
    check_ids = {c.grade_id for c in a.checks}
    problems = [f"test cell {gid} has no hidden checks" for gid in a.test_ids if gid not in check_ids]
    problems += [f"hidden checks for {gid}, which is not a test cell of the notebook"
                 for gid in sorted(check_ids - set(a.test_ids))]
    for gid in a.test_ids:
        checks = [c for c in a.checks if c.grade_id == gid]
        if checks and not any(not case.visible for c in checks for case in c.cases):
            problems.append(f"{gid} has only visible cases: add hidden ones")
    return RequirementVerdict("every test cell has hidden cases", f"{len(a.test_ids)} test cells",
                              tuple(problems))


def every_cell_catches_a_known_wrong(a):
    named = {gid for wrong in a.known_wrong for gid in wrong.must_fail}
    problems = [f"no known-wrong implementation is caught by {gid}" for gid in a.test_ids if gid not in named]
    return RequirementVerdict("every test cell catches a known-wrong implementation", f"{len(a.test_ids)} test cells",
                              tuple(problems))


def _answer_functions(notebook):
    """Each ``(cell, function definition)`` at the top level of the notebook's answer cells that parse."""
    for cell in notebook.cells:
        if cell.cell_type != "code" or not is_solution(cell):
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                yield cell, node


def _signatures(notebook):
    """``{function name: [(parameter, default source, position or None if keyword-only)]}`` of answer cells."""
    found = {}
    for _, node in _answer_functions(notebook):
        args = node.args
        positional = args.posonlyargs + args.args
        defaults = [None] * (len(positional) - len(args.defaults)) + list(args.defaults)
        params = [(p.arg, ast.unparse(d), i) for i, (p, d) in enumerate(zip(positional, defaults)) if d is not None]
        params += [(p.arg, ast.unparse(d), None) for p, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
        found[node.name] = params
    return found


def _changed_values(default):
    """The values a default written as ``default`` (its source) is most easily mistaken for: a whole number's
    neighbours, half and twice a real number (-1 and 1 for 0), the other truth value; none for anything else."""
    try:
        value = ast.literal_eval(default)
    except (ValueError, SyntaxError):
        return ()
    if type(value) is bool:
        return (not value,)
    if type(value) is int:
        return (value - 1, value + 1)
    if type(value) is float:
        return (value / 2, value * 2) if value else (-1.0, 1.0)
    return ()


def with_default(notebook, function, parameter, value):
    """A copy of ``notebook`` whose answer cell defines ``function`` with ``parameter`` defaulting to ``value``.

    Only the default's own text is replaced, so the rest of the cell is the
    solution as written.
    """
    changed = copy.deepcopy(notebook)
    for cell, node in _answer_functions(changed):
        if node.name == function:
            args = node.args
            positional = args.posonlyargs + args.args
            pairs = list(zip(positional[len(positional) - len(args.defaults):], args.defaults))
            pairs += [(p, d) for p, d in zip(args.kwonlyargs, args.kw_defaults) if d is not None]
            default = next((d for p, d in pairs if p.arg == parameter), None)
            if default is None:
                raise ValueError(f"{function} has no default value for {parameter}")
            # ast's columns count UTF-8 bytes.
            data = cell.source.encode("utf-8")
            starts = [0]
            for line in data.split(b"\n"):
                starts.append(starts[-1] + len(line) + 1)
            begin = starts[default.lineno - 1] + default.col_offset
            end = starts[default.end_lineno - 1] + default.end_col_offset
            cell.source = (data[:begin] + repr(value).encode("utf-8") + data[end:]).decode("utf-8")
            return changed
    raise ValueError(f"no answer cell of the notebook defines {function}")


def _loses_points(a, notebook, function):
    """Whether the hidden checks fail any grade cell of ``notebook``, trying ``function``'s own checks first."""
    namespace = namespace_from(notebook)
    own = [c for c in a.checks if c.function == function]
    others = [c for c in a.checks if c.function != function]
    return any(group and not all(v.passed for v in evaluate_namespace(group, namespace, seconds_per_call=a.call_seconds))
               for group in (own, others))


def defaults_matter(a):
    """Each default value of a checked function, changed by one step in the solution, must cost points.

    A default that is a number or a truth value is changed to the values it
    is most easily mistaken for (:func:`_changed_values`) and the solution so
    changed is graded; any other default must at least be left out by a
    hidden case.
    """
    signatures = _signatures(a.source)
    problems, count, changed = [], 0, 0
    for function in sorted({c.function for c in a.checks}):
        for param, default, position in signatures.get(function, []):
            count += 1
            values = _changed_values(default)
            for value in values:
                changed += 1
                if not _loses_points(a, with_default(a.source, function, param, value), function):
                    problems.append(f"{function}({param}={default}): the solution with {param}={value!r} gets full "
                                    f"marks; add a hidden case that leaves {param} out and whose answer depends on it")
            if values:
                continue
            hidden = [case for c in a.checks if c.function == function for case in c.cases if not case.visible]
            leaves_out = [case for case in hidden if param not in case.kwargs
                          and (position is None or position >= len(case.args))]
            if not leaves_out:
                problems.append(f"{function}({param}={default}): no hidden case leaves {param} out, "
                                "so a wrong default value would pass")
    return RequirementVerdict("a solution with any default value changed loses points",
                              f"{count} defaults, {changed} changed values", tuple(problems))


def nothing_leaks(a):
    # Any distinctive solution line in a release is a leak, however short.
    findings = audit([a.release_dir], dataclasses.replace(a.secrets, single_line_chars=MIN_LINE_CHARS))
    return RequirementVerdict("nothing from the solutions or hidden checks is released",
                              f"{len(a.secrets.secrets)} secrets, {len(a.secrets.markers)} markers",
                              tuple(str(finding) for finding in findings))


def notebook_structure(a):
    problems = []
    cells = a.source.cells
    grade_ids = [grade_id(c) for c in cells if grade_id(c)]
    duplicates = sorted({g for g in grade_ids if grade_ids.count(g) > 1})
    if duplicates:
        problems.append(f"grade ids used twice: {', '.join(duplicates)}")
    tests = [c for c in cells if is_test_cell(c)]
    for cell in tests:
        gid = grade_id(cell)
        if not cell.source.startswith("# Check that"):
            problems.append(f"{gid}: the first line must say what it checks ('# Check that ...')")
        if not cell.source.rstrip().endswith(HIDDEN_CALL.format(assignment=a.name, grade_id=gid)):
            problems.append(f"{gid}: the cell must end with the hidden-checks call for this cell:\n"
                            + HIDDEN_CALL.format(assignment=a.name, grade_id=gid))
        if not nbgrader_metadata(cell).get("points", 0) > 0:
            problems.append(f"{gid}: a test cell must be worth points")
    for cell in cells:
        meta = nbgrader_metadata(cell)
        if cell.cell_type == "code" and meta.get("solution") \
                and not ("### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source):
            problems.append(f"{meta.get('grade_id')}: an answer cell needs ### BEGIN SOLUTION and ### END SOLUTION")

    auto, manual = grade_points(a.source)
    total = re.search(r"\*\*Total: (\d+) points\*\* \((\d+) points from autograded tests, (\d+) points for "
                      r"written answers\)", cells[0].source if cells else "")
    if not total:
        problems.append("the first cell must state '**Total: N points** (A points from autograded tests, "
                        "W points for written answers)'")
    elif [int(g) for g in total.groups()] != [auto + manual, auto, manual]:
        problems.append(f"the header states {total.group(0)!r}; the grade cells give {auto + manual:g} "
                        f"({auto:g} autograded, {manual:g} written)")

    parts, current = {}, None
    for cell in cells:
        heading = re.match(r"## (Part [A-Z]):.*\((\d+) points?\)", cell.source) if cell.cell_type == "markdown" else None
        if heading:
            current = heading.group(1)
            parts[current] = [int(heading.group(2)), 0]
        elif nbgrader_metadata(cell).get("grade"):
            if current is None:
                problems.append(f"{grade_id(cell)} comes before the first '## Part A: ... (N points)' heading")
            else:
                parts[current][1] += nbgrader_metadata(cell).get("points", 0)
    if not parts:
        problems.append("no '## Part A: ... (N points)' heading")
    for part, (stated, counted) in parts.items():
        if stated != counted:
            problems.append(f"{part}'s heading says {stated} points; its grade cells give {counted:g}")

    tests_text = "\n".join(c.source for c in tests)
    for check in a.checks:
        for case in check.cases:
            if case.visible and case.describe not in tests_text:
                problems.append(f"{check.grade_id}: the visible case {case.describe!r} is not in any test cell")
    return RequirementVerdict("the notebook's cells, points and visible cases are consistent",
                              f"{len(tests)} test cells, {auto + manual:g} points", tuple(problems))


def source_runs_cleanly(a):
    with job_folder(f"verify-{a.name}") as cwd:
        executed = execute(a.source, cwd)
    problems = [f"{where} raised {name}: {value}" for where, name, value in errors_of(executed)]
    not_run = [grade_id(c) for c in executed.cells if is_test_cell(c) and not c.get("execution_count")]
    if not_run:
        problems.append(f"test cells that did not run: {', '.join(not_run)}")
    return RequirementVerdict("the source notebook runs without an error", "1 run", tuple(problems))


def release_fails_only_on_stubs(a):
    with job_folder(f"verify-{a.name}") as cwd:
        executed = execute(a.release, cwd)
    errors = errors_of(executed)
    problems = [f"{where} raised {name}: {value}" for where, name, value in errors if name != "NotImplementedError"]
    failing = {where for where, _, _ in errors}
    passing = [gid for gid in a.test_ids if gid not in failing]
    if passing:
        problems.append(f"visible tests that pass on the blank release: {', '.join(passing)}")
    return RequirementVerdict("the release fails only on its stubs", "1 run", tuple(problems))


REQUIREMENTS = (
    solution_gets_full_marks,
    blank_release_gets_zero,
    known_wrong_lose_exactly_their_cells,
    every_cell_has_hidden_cases,
    every_cell_catches_a_known_wrong,
    defaults_matter,
    nothing_leaks,
    notebook_structure,
)
# These execute notebooks: seconds each.
RUN_REQUIREMENTS = (source_runs_cleanly, release_fails_only_on_stubs)


def verify(assignment, *, run_notebooks=True):
    """Check every requirement on ``assignment`` (an :class:`Assignment`); return the outcomes in order.

    A requirement that raises is reported as its own problem, so one broken
    check cannot hide the others.
    """
    outcomes = []
    for requirement in REQUIREMENTS + (RUN_REQUIREMENTS if run_notebooks else ()):
        try:
            outcomes.append(requirement(assignment))
        except Exception as exc:  # a broken notebook or check module may raise anything
            outcomes.append(RequirementVerdict(requirement.__name__.replace("_", " "), "",
                                               (f"could not be checked: {type(exc).__name__}: {exc}",)))
    return outcomes


def format_table(name, outcomes):
    """The table printed for one assignment, then every problem under its requirement."""
    width = max(len(o.requirement) for o in outcomes)
    lines = [f"{name}", f"  {'':4}  {'requirement':{width}}  covered", f"  {'-' * (width + 30)}"]
    for o in outcomes:
        mark = "ok" if o.ok else "FAIL"
        note = o.covered + (f"; {len(o.problems)} problem{'s' if len(o.problems) > 1 else ''}" if o.problems else "")
        lines.append(f"  {mark:4}  {o.requirement:{width}}  {note}")
    for o in outcomes:
        if o.problems:
            lines.append(f"\n  {o.requirement}:")
            for problem in o.problems:
                first, *rest = problem.splitlines()
                lines.append(f"    - {first}")
                lines.extend(f"      {more}" for more in rest)
    return "\n".join(lines)


def main(argv=None):
    """Verify the named assignments (all of them by default); return the exit code."""
    parser = argparse.ArgumentParser(
        prog="python -m autograder verify",
        description="Check that an assignment's hidden checks give the solution full marks, the blank release "
                    "zero, and catch every known-wrong implementation; that a changed default value loses points "
                    "and nothing leaks into the release. Exits 1 if any requirement fails.",
    )
    parser.add_argument("assignments", nargs="*", metavar="ASSIGNMENT",
                        help="default: every assignment with a folder in COURSE_DIR/source")
    parser.add_argument("--course-dir", default=COURSE_DIR,
                        help="the nbgrader course directory (default: %(default)s)")
    parser.add_argument("--no-run", action="store_true",
                        help="skip executing the source and release notebooks (faster; checks the rest)")
    args = parser.parse_args(argv)

    source_dir = os.path.join(args.course_dir, "source")
    known = sorted(n for n in os.listdir(source_dir) if os.path.isdir(os.path.join(source_dir, n))) \
        if os.path.isdir(source_dir) else []
    names = args.assignments or known
    unknown = [n for n in names if n not in known]
    if not names or unknown:
        what = f"unknown assignment {', '.join(map(repr, unknown))}" if unknown else "no assignments"
        print(f"autograder verify: {what}; the assignments in {source_dir} are: {', '.join(known) or 'none'}.",
              file=sys.stderr)
        return 2

    # What a verify or a grading batch that was killed left in the temporary folder (copies of solutions).
    remove_abandoned_folders()
    failed = []
    for index, name in enumerate(names):
        try:
            load_checks(name)
        except ValueError as exc:
            print(f"autograder verify: {exc} Write autograder/course/assignments/{name}/checks.py first (see docs/instructors.md).",
                  file=sys.stderr)
            return 2
        with Assignment(name, args.course_dir) as assignment:
            outcomes = verify(assignment, run_notebooks=not args.no_run)
        print(("\n" if index else "") + format_table(name, outcomes), flush=True)
        if not all(o.ok for o in outcomes):
            failed.append(name)
    print(f"\n{len(names) - len(failed)} of {len(names)} assignments verified"
          + (f"; failing: {', '.join(failed)}" if failed else ""))
    return 1 if failed else 0
