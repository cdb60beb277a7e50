"""Downloads laid out as each learning management system hands them out, for the tests.

Each builder writes files into a folder following that system's naming
rules (see :mod:`autograder.intake.lms`); ``notebook`` is the bytes every notebook
file gets (a placeholder for the layout tests, a real submission for the
grading run).
"""

import os

PLACEHOLDER = b'{"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}'

BLACKBOARD_RECEIPT = """Name: {name} ({username})
Assignment: {assignment}
Date Submitted: {date}
Current Grade: Needs Grading

Submission Field:
There is no student submission text data for this assignment.

Comments:
There are no student comments for this assignment.

Files:
{files}
"""

GRADESCOPE_METADATA = """submission_2287731:
  :submitters:
  - :name: Dorothy Vaughan
    :sid: dv0042
    :email: dvaughan@example.edu
  :created_at: 2025-01-31 23:40:12.518113000 +00:00
  :score: 0.0
  :status: processed
submission_2287790:
  :submitters:
  - :name: Mary Jackson
    :sid: mj0077
    :email: mjackson@example.edu
  - :name: Annie Easley
    :sid: ae0013
    :email: aeasley@example.edu
  :created_at: 2025-02-01 08:05:00.000000000 +00:00
  :score: !ruby/object:BigDecimal 18:0.0
  :status: processed
"""


def write(folder, relative, data):
    path = os.path.join(folder, relative)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode("utf-8"))
    return path


def blackboard_attempt(folder, assignment_title, username, name, stamp, files, notebook=PLACEHOLDER):
    """One Blackboard attempt: a file per ``(original name, data)`` and the attempt's receipt."""
    stored = []
    for original, data in files:
        stored_name = f"{assignment_title}_{username}_attempt_{stamp}_{original}"
        write(folder, stored_name, notebook if data is None else data)
        stored.append(f"\tOriginal filename: {original}\n\tFilename: {stored_name}")
    year, month, day, hour, minute, second = stamp.split("-")
    receipt = BLACKBOARD_RECEIPT.format(name=name, username=username, assignment=assignment_title,
                                        date=f"{day}/{month}/{year} {hour}:{minute}:{second}", files="\n".join(stored))
    write(folder, f"{assignment_title}_{username}_attempt_{stamp}.txt", receipt)


def issue_example(folder, assignment="ps1_hyperplanes", notebook=PLACEHOLDER, gradescope=True):
    """Eight students as Canvas, Moodle, Blackboard, Gradescope and plain folders hand them out.

    Returns ``{display name: expected student id without a roster}``.
    """
    nb = f"{assignment}.ipynb"
    write(folder, f"lovelaceada_104233_5512301_{nb}", notebook)                         # Canvas
    write(folder, f"hopper grace_LATE_104871_5512377_{assignment}-1.ipynb", notebook)   # Canvas, late, resubmitted
    write(folder, f"Alan Turing_88123_assignsubmission_file_/{nb}", notebook)           # Moodle, folder
    write(folder, f"Émilie du Châtelet_88131_assignsubmission_file_{nb}", notebook)     # Moodle, flat file
    blackboard_attempt(folder, "PS1 Hyperplanes", "kjohnson", "Katherine Johnson", "2025-01-30-22-15-07",
                       [(nb, None)], notebook)                                           # Blackboard + receipt
    write(folder, f"Barbara Liskov (2)/{nb}", notebook)                                 # plain folder
    write(folder, "mhamilton.ipynb", notebook)                                          # plain file
    expected = {"Ada Lovelace": "lovelaceada", "Grace Hopper": "hopper-grace", "Alan Turing": "alan-turing",
                "Émilie du Châtelet": "emilie-du-chatelet", "Katherine Johnson": "kjohnson",
                "Barbara Liskov": "barbara-liskov", "Margaret Hamilton": "mhamilton"}
    if gradescope:
        write(folder, "submission_metadata.yml", GRADESCOPE_METADATA.split("submission_2287790:")[0])
        write(folder, f"submission_2287731/{nb}", notebook)                             # Gradescope
        expected["Dorothy Vaughan"] = "dv0042"
    return expected
