"""Benchmarks run by ``make bench``: ratios of times measured side by side in one run."""
