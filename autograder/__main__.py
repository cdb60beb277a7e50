"""Command line: ``python -m autograder COMMAND ...``, one of release, grade, mark, export, send-grades, gradescope,
verify, check, audit and publish."""

import sys

USAGE = """usage: python -m autograder COMMAND [options]

commands:
  release [ASSIGNMENT ...]   build the student versions in notebooks/release/
  grade ASSIGNMENT SUBMISSIONS --out DIR [--workers N] [--timeout SECONDS]
                             grade a folder or .zip of submissions
  mark ASSIGNMENT [--port N] [--ta NAME] | --to-csv FILE.csv | --from-csv FILE.csv
                             the marking page for TAs on 127.0.0.1; or the written answers to a CSV
                             and booklet, and their marks back
  export OUT [--allow-unmarked]
                             write a grading run's files in OUT again, with the written answers' marks
  send-grades OUT [--dry-run] [--allow-unmarked] [--comment] | --history | --new-key | --public-key
                             send each student's total in OUT to the LMS's gradebook (LTI Advantage)
  gradescope ASSIGNMENT --out DIR [--hidden-visibility WHEN]
                             write DIR/autograder.zip, a Gradescope autograder for ASSIGNMENT
  verify [ASSIGNMENT ...]    check that the hidden checks still grade each assignment right
  check NOTEBOOK.ipynb       (students) say whether a notebook is ready to submit
  audit PATH ...             find anything secret in files meant to be published
  publish                    build the public course (_build/site/) and audit it

Run 'python -m autograder COMMAND --help' for a command's options."""


def main(argv=None):
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help"):
        print(USAGE)
        return 0 if argv else 2
    command, rest = argv[0], argv[1:]
    if command == "release":
        from autograder.commands.release import main as run
    elif command == "grade":
        from autograder.commands.grade import main as run
    elif command == "mark":
        from autograder.commands.mark import main as run
    elif command == "export":
        from autograder.commands.export import main as run
    elif command == "send-grades":
        from autograder.commands.send_grades import main as run
    elif command == "gradescope":
        from autograder.commands.gradescope import main as run
    elif command == "verify":
        from autograder.commands.verify import main as run
    elif command == "check":
        from autograder.commands.check import main as run
    elif command == "audit":
        from autograder.commands.audit import main as run
    elif command == "publish":
        from autograder.commands.publish import main as run
    else:
        print(f"autograder: unknown command {command!r}; expected 'release', 'grade', 'mark', 'export', "
              f"'send-grades', 'gradescope', 'verify', 'check', 'audit' or 'publish'.\n\n{USAGE}", file=sys.stderr)
        return 2
    return run(rest)


if __name__ == "__main__":
    sys.exit(main())
