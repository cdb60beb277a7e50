"""The probe's per-call time limit, tested on ``perceptron_course.probe.run_probes`` directly (no sandbox)."""

import json
import subprocess
import sys
import textwrap

import numpy as np

from perceptron_course import probe


def _write_probes(in_dir, calls):
    """``calls``: (probe id, function name, positional arguments) triples, encoded in the probe schema."""
    in_dir.mkdir()
    arrays = {}
    probes = [{"id": pid, "function": name, "args": probe.encode(list(args), arrays), "kwargs": probe.encode({}, arrays)}
              for pid, name, args in calls]
    (in_dir / "probes.json").write_text(json.dumps(probes))
    np.savez(in_dir / "probes.npz", **arrays)


def test_a_function_that_catches_exception_cannot_swallow_its_time_limit(tmp_path):
    # A training loop with `except Exception: continue` inside must lose that one call, not hang the notebook.
    _write_probes(tmp_path / "in", [("p0", "swallows", (1,)), ("p1", "swallows", (2,)), ("p2", "double", (21,))])
    script = textwrap.dedent(f"""
        import time
        from perceptron_course import probe

        def swallows(n):
            while True:
                try:
                    time.sleep(0.01)
                except Exception:
                    continue

        def double(n):
            return 2 * n

        probe.run_probes({{"swallows": swallows, "double": double}}, {str(tmp_path / "in")!r},
                         {str(tmp_path / "out")!r}, seconds_per_call=0.5)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    results = json.loads((tmp_path / "out" / "results.json").read_text())
    assert results["p0"]["status"] == "timeout"
    assert results["p1"]["status"] == "timeout"  # not called again once it hung
    assert results["p2"]["status"] == "returned" and results["p2"]["value"] == {"type": "int", "value": 42}
