"""The course's JupyterHub as an intake: what the course exchange holds, laid out as a download.

``grade ASSIGNMENT --from-hub`` calls :func:`download`, which asks the
exchange (as the instructor, with their hub token) for every submission of
the assignment and writes each into ``hub+<course>+<stamp>+<user>/``, the
layout :mod:`autograder.intake.lms` reads like any LMS's: the exchange's time
is the submission's time (so ``--deadline`` flags late ones), every earlier
submission is listed as superseded, and the latest is graded.  The files come
through the exchange's parser (:func:`perceptron_course.hub.transfer.parse_files`)
and are written without following any link; from here on the submission is
read by the same code as an LMS's download.  :func:`roster` is the course's
students as the hub's groups say, so that whoever submitted nothing gets a row.

:func:`return_feedback` is the other way: after ``export``, each student's
feedback page goes back to the submission it was made from, where the
student's *Fetch Feedback* finds it.
"""

import os

from autograder.intake.roster import RosterStudent
from perceptron_course.hub.client import ExchangeClient, ExchangeClientError
from perceptron_course.hub.transfer import File, TransferError, write_files

__all__ = ["download", "roster", "return_feedback", "HubIntakeError", "FOLDER"]

FOLDER = "hub+{course}+{stamp}+{user}"


class HubIntakeError(Exception):
    """The exchange cannot be read or written: not configured, unreachable, or it refused (the message says which)."""


def _client(client):
    try:
        return client or ExchangeClient()
    except ExchangeClientError as exc:
        raise HubIntakeError(str(exc)) from None


def download(course, assignment, folder, *, client=None):
    """Write every submission of ``assignment`` in ``course`` into ``folder``; returns how many."""
    client = _client(client)
    try:
        records = client.submissions(course, assignment)
        for record in records:
            target = os.path.join(folder, FOLDER.format(course=course, stamp=record["stamp"], user=record["student"]))
            os.makedirs(target)
            write_files(client.submission_files(course, assignment, record["student"], record["stamp"]), target)
    except (ExchangeClientError, TransferError) as exc:
        raise HubIntakeError(str(exc)) from None
    return len(records)


def roster(course, *, client=None):
    """The course's students, from the hub's group ``course-<course>-students``."""
    try:
        people = _client(client).roster(course)
    except ExchangeClientError as exc:
        raise HubIntakeError(str(exc)) from None
    return [RosterStudent(student_id=name, name=name) for name in people["student"]]


def return_feedback(assignment, deliveries, *, client=None):
    """Give each ``(route, page_html)`` back to its submission in the exchange; returns how many were given.

    The page is named ``<assignment>.html``, as nbgrader's *Fetch Feedback*
    names a notebook's feedback, and replaces any earlier feedback for that
    submission, so returning twice changes nothing.
    """
    client = _client(client)
    given = 0
    for route, page in deliveries:
        user, stamp = route.key.split("/", 1)
        try:
            client.give_feedback(route.name, assignment, user, stamp, [File(f"{assignment}.html", page.encode())])
        except ExchangeClientError as exc:
            raise HubIntakeError(f"{given} of {len(deliveries)} feedback pages were returned to the hub; "
                                 f"{user}'s was refused: {exc}") from None
        given += 1
    return given
