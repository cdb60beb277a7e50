"""The batch: grade many submissions through any executor, judge and record each on the host as it arrives.

:func:`grade_submissions` turns submissions into :class:`~autograder.results.Job`
records, hands them to a ``concurrent.futures.Executor`` (a process pool of
forked workers by default; a Dask cluster's executor with ``--scheduler``),
each running :func:`autograder.running.worker.run_submission`, and as results come
back judges them (:func:`autograder.judging.judge.judge`) and writes them
(:mod:`autograder.outputs.record`) in submission order.  A worker that fails is
recorded as a crashed submission; it never stops the batch.  When the batch
ends, the folders of any worker that died on the way are removed
(:func:`autograder.running.worker.remove_abandoned_folders`).
"""

import concurrent.futures
import dataclasses
import multiprocessing
import os
import time

from autograder.results import CRASHED, MISSING, Flag, Job, Result, Settings

__all__ = ["grade_submissions", "make_jobs", "with_download_facts", "group_results", "missing_result",
           "similar_pairs", "reference_copies"]


def make_jobs(assignment, submissions, release_dir, settings):
    """One :class:`Job` per :class:`~autograder.intake.submissions.Submission`."""
    return [Job(student_id=s.student_id, assignment=assignment, notebook_path=s.path, release_dir=release_dir,
                settings=settings, problem=s.problem) for s in submissions]


def _internal_error(job, exc):
    return Result(job.student_id, job.assignment, CRASHED,
                  reason=f"the grader itself failed on this submission ({type(exc).__name__}: {str(exc)[:200]}); "
                         "grade it again or by hand", sandboxed=job.settings.use_sandbox)


def with_download_facts(result, submission):
    """``result`` with what the download said about the submission: its name there, its time, its flags."""
    result.source = submission.source
    result.submitted_at = submission.submitted_at
    if submission.flags:
        codes = {f.code for f in result.flags}
        result.flags = sorted(result.flags + [Flag(code, detail) for code, detail in submission.flags
                                              if code not in codes], key=lambda f: f.code)
    return result


def group_results(result, submission):
    """The same grade for each other member of a group submission, under their own id and flagged."""
    copies = []
    for member in submission.group:
        copy = dataclasses.replace(result, student_id=member.student_id, cells=list(result.cells),
                                   manual_cells=list(result.manual_cells), notes=list(result.notes))
        copy.flags = sorted(result.flags + [Flag(code, detail) for code, detail in member.flags],
                            key=lambda f: f.code)
        copies.append(copy)
    return copies


def similar_pairs(results, release_notebook):
    """Pairs of submissions whose own code is nearly the same (:mod:`autograder.judging.similarity`), for the report.

    ``None`` when fewer than two submissions have code of their own to compare.

    Only the code each student wrote is compared, with the release's stubs
    left out; nothing leaves the machine and no verdict changes.
    """
    import nbformat

    from autograder.judging.similarity import find_similar, release_stubs

    code = {r.student_id: r.authored_code for r in results if r is not None and r.authored_code}
    if len(code) < 2:
        return None  # nothing to compare: the report says nothing about similarity
    return find_similar(code, release_stubs(nbformat.read(release_notebook, as_version=4)))


def reference_copies(results, release_notebook):
    """Functions of submissions that copy the reference library (:mod:`autograder.judging.similarity`), for the report.

    ``None`` when no submission has code of its own.  The comparison points
    are every function and method of ``perceptron_lib`` but the data loaders
    the release hands to students; nothing leaves the machine and no verdict
    changes.
    """
    import nbformat

    from autograder.course.library import PACKAGE, PACKAGE_DIR, LibraryError, release_imports
    from autograder.judging.similarity import find_reference_copies, reference_functions, release_stubs

    code = {r.student_id: r.authored_code for r in results if r is not None and r.authored_code}
    if not code:
        return None
    release_nb = nbformat.read(release_notebook, as_version=4)
    try:
        handed_out = release_imports(release_nb)
    except LibraryError:
        handed_out = ()  # such a release is refused at grading; every library function is then compared
    return find_reference_copies(code, reference_functions(PACKAGE_DIR, package=PACKAGE, leave_out=handed_out),
                                 release_stubs(release_nb))


def missing_result(submission, assignment, max_score, sandboxed):
    """The row of a roster student with no submission: status missing, score 0 out of the assignment's points."""
    return Result(submission.student_id, assignment, MISSING, reason=submission.problem, max_score=max_score,
                  sandboxed=sandboxed)


def default_executor(workers):
    """A process pool of ``workers`` forked processes (one per core by default)."""
    # Forked workers start at once with this process's modules already imported.
    method = "fork" if "fork" in multiprocessing.get_all_start_methods() else None
    return concurrent.futures.ProcessPoolExecutor(max_workers=max(1, workers or os.cpu_count() or 1),
                                                  mp_context=multiprocessing.get_context(method))


def grade_submissions(assignment, submissions, *, course_dir, out_dir, settings=Settings(), executor=None,
                      workers=None, progress=None, skipped=(), sandbox_text="", notes=()):
    """Grade ``submissions`` through ``executor`` and write every output; return the results, by student id.

    ``executor`` is any ``concurrent.futures.Executor`` (default: a process
    pool of ``workers`` processes, one per core).  ``progress(done, total,
    result)`` is called as each result arrives.  The gradebook, the
    autograded notebooks and the feedback are written by this process only,
    in submission order.  A roster student with no submission (``missing``)
    gets a row, and nothing is run for them.  ``notes`` are sentences about
    the download for the report.
    """
    from autograder.outputs.gradebook import open_gradebook
    from autograder.judging.judge import judge
    from autograder.outputs.graded_run import GradedRun
    from autograder.outputs.record import finish_batch, question_names, record
    from autograder.running.worker import build_font_list, remove_abandoned_folders, run_submission

    started = time.time()
    release_dir = os.path.join(course_dir, "release", assignment)
    notebook_name = f"{assignment}.ipynb"
    absent = [s for s in submissions if s.missing]
    submissions = [s for s in submissions if not s.missing]
    jobs = make_jobs(assignment, submissions, release_dir, settings)
    os.makedirs(os.path.join(out_dir, "feedback"), exist_ok=True)
    own_executor = executor is None
    if own_executor:
        build_font_list()  # the forked workers inherit it
        executor = default_executor(workers)
    results = [None] * len(jobs)
    members = []  # what was recorded: each result, then the copies for the other members of its group
    written = 0
    gb = open_gradebook(course_dir)
    try:
        labels = question_names(gb, course_dir, assignment)
        futures = {executor.submit(run_submission, job): i for i, job in enumerate(jobs)}
        done = 0
        for future in concurrent.futures.as_completed(futures):
            i = futures[future]
            try:
                results[i] = judge(future.result())
            except Exception as exc:  # a broken worker must not stop the batch
                results[i] = _internal_error(jobs[i], exc)
            results[i] = with_download_facts(results[i], submissions[i])
            done += 1
            if progress:
                progress(done, len(jobs), results[i])
            while written < len(jobs) and results[written] is not None:
                for result in [results[written]] + group_results(results[written], submissions[written]):
                    record(result, gb=gb, course_dir=course_dir, out_dir=out_dir, notebook_name=notebook_name,
                           settings=settings, sandbox_text=sandbox_text, labels=labels)
                    members.append(result)
                written += 1
    finally:
        gb.close()
        if own_executor:
            executor.shutdown(wait=True, cancel_futures=True)
        # A worker killed in the middle of a submission (by the kernel's out-of-memory killer, say) could not
        # remove its folder; the workers of this machine share its temporary folder.
        remove_abandoned_folders()
    # One entry per submission that ran (a group's copies would only find themselves).
    similar = similar_pairs(results, os.path.join(release_dir, notebook_name))
    copies = reference_copies(results, os.path.join(release_dir, notebook_name))
    max_score = max((r.max_score for r in results), default=0.0)
    results = sorted(members + [missing_result(s, assignment, max_score, settings.use_sandbox) for s in absent],
                     key=lambda r: r.student_id)
    people = {s.student_id: s for s in submissions + absent}
    people.update({m.student_id: m for s in submissions for m in s.group})
    return finish_batch(out_dir, GradedRun(assignment, course_dir, results, people, skipped=list(skipped),
                                           notes=list(notes), sandbox_text=sandbox_text, settings=settings,
                                           started=started, seconds=time.time() - started, similar=similar,
                                           copies=copies))
