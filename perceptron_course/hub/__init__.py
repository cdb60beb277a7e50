"""The course on a JupyterHub: the exchange that moves work between students and the instructor.

* :mod:`~perceptron_course.hub.courses`: which hub groups make a user a student, a TA or an
  instructor of which course (the one place that knows the groups' names);
* :mod:`~perceptron_course.hub.transfer`: the files of a release, a submission or a feedback as
  they cross the exchange, parsed once (names, sizes, counts);
* :mod:`~perceptron_course.hub.store`: the exchange's disk, which only the exchange's own user reads;
* :mod:`~perceptron_course.hub.service`: the exchange itself, a JupyterHub service that learns who
  is calling from the hub and decides what each may do;
* :mod:`~perceptron_course.hub.client`: its HTTP client, for nbgrader's commands and ``autograder``;
* :mod:`~perceptron_course.hub.nbgrader_exchange`: nbgrader 0.9's pluggable exchange on top of the
  client, so the Assignments panel and ``nbgrader fetch_assignment|submit|collect|...`` use it unchanged;
* :mod:`~perceptron_course.hub.lti_launch`: what an LTI 1.3 launch from Canvas or Moodle means on the hub
  (who, which course, which role, which assignment), read from claims the hub's authenticator verified;
* :mod:`~perceptron_course.hub.landing`: the server extension an assignment's link lands on, which fetches
  the assignment and opens it in JupyterLab.

Nothing here holds a secret of the course: the package is installed for every student's server.
"""
