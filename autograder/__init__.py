"""The instructor's tooling: release assignments, grade submissions safely, report."""
