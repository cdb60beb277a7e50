"""Grades back into the LMS's gradebook through LTI Advantage, without a CSV: ``python -m autograder send-grades``.

The course is an LTI 1.3 *tool* registered in Canvas or Moodle (the
*platform*).  With the platform's Assignment and Grade Services (AGS) the
tool finds or creates the assignment's gradebook column (a *line item*) and
posts each student's score into it; with its Names and Role Provisioning
Service (NRPS) it learns which LMS user each student of a run is.  Each step
is a module:

* :mod:`~autograder.lti.registration`: what the LMS's administrator
  registered, as the instructor writes it in ``lti_grades.toml`` in the
  course directory, read and checked field by field;
* :mod:`~autograder.lti.tool_key`: the tool's RSA key (``0600`` in the
  course directory, never printed), its public key set (JWKS) for the LMS,
  and the signed client assertion (RFC 7523) that asks for an access token;
* :mod:`~autograder.lti.services`: the platform's token endpoint, line items,
  scores and memberships over HTTPS, and the one parser of every byte the
  platform answers with;
* :mod:`~autograder.lti.outgoing`: what a run sends: each student's total as
  ``export`` wrote it in ``grades.csv``, held to the gradebook's marks, and
  the feedback summary as the score's comment;
* :mod:`~autograder.lti.sends`: the record of every send in the course
  directory (``.autograder/lti/sends.jsonl``), appended one whole line at a
  time, from which a second send learns what is already in the LMS.

:mod:`autograder.commands.send_grades` is the command that puts them together.
"""
