"""Running submissions: the host side of the sandbox.

:mod:`~autograder.running.sandbox` starts one untrusted command in bubblewrap with limits (or as an
unprivileged user id where bubblewrap cannot start); :mod:`~autograder.running.worker` prepares one
submission's folder, runs :mod:`perceptron_course.runner` in a sandbox and reads back what it wrote through
:mod:`autograder.boundary`; :mod:`~autograder.running.batch` sends many to any executor (a local process
pool, or :mod:`~autograder.running.cluster` on Dask) and has each judged and recorded as it arrives;
:mod:`~autograder.running.calibrate` measures the time limits on the instructor's solution.

The code that runs inside the sandbox is not here: it is :mod:`perceptron_course.runner` and
:mod:`perceptron_course.probe`, which import nothing from :mod:`autograder`.
"""
