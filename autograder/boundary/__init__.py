"""The trust boundary: every byte that came from a student or from inside a sandbox is parsed in this package.

A security review of the grader starts here.  What students control arrives
in the shapes below, and each has one reader, in the module for its job,
that returns a frozen, documented record (or a plain reason why there is
none); the rest of the grader only ever sees those records, and imports each
reader from its module (this package itself exports nothing).

From the students, in the download an LMS hands out:

* a submitted notebook file (:mod:`.notebook`): :func:`~.notebook.read_untrusted_file`
  reads it (no links followed, size capped whatever ``stat`` says) and
  :func:`~.notebook.parse_notebook` gives a
  :class:`~.notebook.SubmittedNotebook`;
* a ``.zip`` of submissions (:mod:`.archive`): :func:`~.archive.extract_zip`
  extracts it member by member (no absolute or escaping paths, no links
  followed, members and bytes capped while reading, not as declared);
* the files an LMS adds to its download, which carry names students chose
  (:mod:`.lms_files`): :func:`~.lms_files.read_blackboard_receipt` gives a
  :class:`~.lms_files.BlackboardReceipt`, :func:`~.lms_files.read_gradescope_metadata`
  a :class:`~.lms_files.GradescopeSubmission` per submission folder.

The names of the download's files and folders are not read here: they are
only matched against the layouts of :mod:`autograder.intake.lms` and turned
into ids by its :func:`~autograder.intake.lms.safe_id`.

From inside the sandbox, where the runner (:mod:`perceptron_course.runner`)
shares its process with the student's code, so that anything it writes may
have been rewritten (:mod:`perceptron_course.protocol` names these files and
gives their formats), all in :mod:`.from_sandbox`:

* the runner's report: :func:`~.from_sandbox.read_runner_report` gives a
  :class:`~perceptron_course.protocol.RunnerReport`, whose cell numbers are
  checked against the notebook that ran; it adds detail, never decides a
  status (the host decides from the exit status and the time it observed);
* the executed notebook: :func:`~.from_sandbox.read_executed_cells` gives one
  :class:`~.from_sandbox.ExecutedCell` per cell (outputs reduced
  to plain text, PNG and JPEG, size-capped);
* the hidden tests' results: :func:`~.from_sandbox.read_probe_results` gives
  :class:`~.from_sandbox.ProbeResults`, decoded with the probe's own schema
  (:func:`perceptron_course.probe.decode`; nothing is unpickled).

The readers of a notebook and of a run are shared with the student's check,
which reads them exactly as grading does: they are defined in
:mod:`perceptron_course.boundary` and imported into the modules above.

Every reader is total: malformed, truncated, oversized, deeply nested,
wrongly typed or lying input gives an empty or explicit record, never an
exception, and text is returned as valid Unicode (lone surrogates, which
JSON allows and UTF-8 does not, are replaced).  The tests hold them to that
with generated inputs by the thousand (``tests/grader/boundary/``, and
``tests/grader/intake/test_lms.py`` for the LMS's files).
"""
