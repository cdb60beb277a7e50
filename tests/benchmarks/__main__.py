"""``python -m tests.benchmarks [NAME ...]``: run the benchmarks and print one table of ratios.

Each ``bench_*.py`` module here has ``run(quick=False)`` returning rows of
``(benchmark, case, ours_seconds, baseline_name, baseline_seconds)``, optionally
followed by a note, and may have ``summarize(rows)`` returning lines printed
under the table (targets and whether they were met).  Times are
the best of a few interleaved repetitions; only their ratio is meaningful,
since the machine is shared and its absolute speed varies from run to run.
"""

import argparse
import importlib
import pkgutil
import sys
import time

from . import __path__ as _here


def available():
    return sorted(m.name[len("bench_"):] for m in pkgutil.iter_modules(_here) if m.name.startswith("bench_"))


def format_table(rows):
    header = ("benchmark", "case", "ours (s)", "baseline", "baseline (s)", "ratio", "note")
    body = [
        (bench, case, f"{ours:.4f}", base, f"{base_s:.4f}" if base_s is not None else "-",
         f"{ours / base_s:.2f}" if base_s else "-", note[0] if note else "")
        for bench, case, ours, base, base_s, *note in rows
    ]
    widths = [max(len(str(r[i])) for r in [header, *body]) for i in range(len(header))]
    line = lambda r: "  ".join(
        str(c).ljust(w) if i in (0, 1, 3, 6) else str(c).rjust(w) for i, (c, w) in enumerate(zip(r, widths))).rstrip()
    return "\n".join([line(header), line(["-" * w for w in widths]), *(line(r) for r in body)])


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.benchmarks", description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"benchmarks to run (default: all of {', '.join(available())})")
    parser.add_argument("--quick", action="store_true", help="smaller sizes, for checking that the benchmarks run")
    args = parser.parse_args(argv)
    names = args.names or available()
    unknown = sorted(set(names) - set(available()))
    if unknown:
        parser.error(f"unknown benchmark(s) {', '.join(unknown)}; available: {', '.join(available())}")
    rows, summaries = [], []
    started = time.perf_counter()
    for name in names:
        module = importlib.import_module(f"{__package__}.bench_{name}")
        print(f"running {name} ...", file=sys.stderr, flush=True)
        module_rows = module.run(quick=args.quick)
        rows.extend(module_rows)
        if hasattr(module, "summarize"):
            summaries.extend(module.summarize(module_rows))
    print(format_table(rows))
    for summary in summaries:
        print(summary)
    print(f"\nratio = ours / baseline, measured in the same run (below 1: ours is faster). "
          f"Total {time.perf_counter() - started:.0f} s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
