"""Calling the student's functions and writing what they return as plain data.

This module is the only code the grader runs inside the student's kernel
after the notebook itself.  It reads the probe inputs (``probes.json`` plus
arrays in ``probes.npz``), calls each named function on them with a time
limit, and writes ``results.json`` and ``results.npz``.  Nothing is
pickled: values are numbers, strings, lists, dicts and numeric arrays, and
any other object is recorded only by its type name.

Nothing here is trusted.  The student's code ran first in the same process
and may have changed anything, so the host treats the results as untrusted
data: it checks their types and shapes before it compares any value.
"""

import copy
import json
import os
import signal

import numpy as np

MAX_ARRAY_ELEMENTS = 1_000_000
MAX_STRING = 2_000


_NUMPY_INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)


class ProbeTimeout(Exception):
    """A probed call ran past its time limit."""


def encode(value, arrays, *, depth=0):
    """Turn a returned value into JSON-able data, storing arrays in ``arrays``."""
    if depth > 4:
        return {"type": "too-deep"}
    if value is None:
        return {"type": "None"}
    if isinstance(value, (bool, np.bool_)):
        return {"type": "bool", "value": bool(value)}
    # Exact types only: a subclass of int or float could redefine comparison.
    if type(value) is int or type(value) in _NUMPY_INTS:
        return {"type": "int", "value": int(value)}
    if type(value) in (float, np.float64, np.float32, np.float16):
        value = float(value)
        return {"type": "float", "value": value if np.isfinite(value) else str(value)}
    if type(value) is str:
        return {"type": "str", "value": value[:MAX_STRING]}
    if type(value) is np.ndarray:
        if value.dtype.kind not in "biuf":
            return {"type": "ndarray", "dtype": str(value.dtype), "shape": list(value.shape), "key": None}
        if value.size > MAX_ARRAY_ELEMENTS:
            return {"type": "ndarray", "dtype": str(value.dtype), "shape": list(value.shape), "key": None, "too_large": True}
        key = f"a{len(arrays)}"
        arrays[key] = np.array(value, copy=True)
        return {"type": "ndarray", "dtype": str(value.dtype), "shape": list(value.shape), "key": key}
    if type(value) in (list, tuple):
        return {"type": type(value).__name__, "items": [encode(v, arrays, depth=depth + 1) for v in value[:1000]]}
    if type(value) is dict:
        return {"type": "dict", "items": {str(k)[:100]: encode(v, arrays, depth=depth + 1) for k, v in list(value.items())[:100]}}
    return {"type": "object", "class": type(value).__name__[:100]}


def _decode_args(spec, arrays):
    kind = spec["type"]
    if kind == "ndarray":
        return np.array(arrays[spec["key"]], copy=True)
    if kind in ("list", "tuple"):
        items = [_decode_args(s, arrays) for s in spec["items"]]
        return items if kind == "list" else tuple(items)
    if kind == "dict":
        return {k: _decode_args(s, arrays) for k, s in spec["items"].items()}
    if kind == "None":
        return None
    return spec["value"]


def _same(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return True


def _on_alarm(signum, frame):
    raise ProbeTimeout()


def run_probes(namespace, in_dir, out_dir, *, seconds_per_call=10):
    """Call every probe listed in ``in_dir`` on functions from ``namespace``; write the results to ``out_dir``."""
    with open(os.path.join(in_dir, "probes.json")) as f:
        probes = json.load(f)
    with np.load(os.path.join(in_dir, "probes.npz"), allow_pickle=False) as data:
        inputs = {k: data[k] for k in data.files}
    arrays = {}
    results = {}
    for probe in probes:
        pid = probe["id"]
        fn = namespace.get(probe["function"])
        if not callable(fn):
            results[pid] = {"status": "missing", "detail": f"no function named {probe['function']!r} was defined"}
            continue
        args = _decode_args(probe["args"], inputs)
        kwargs = _decode_args(probe["kwargs"], inputs)
        before = (copy.deepcopy(args), copy.deepcopy(kwargs))
        previous = signal.signal(signal.SIGALRM, _on_alarm)
        signal.setitimer(signal.ITIMER_REAL, seconds_per_call)
        try:
            value = fn(*args, **kwargs)
            signal.setitimer(signal.ITIMER_REAL, 0)
            record = {"status": "returned", "value": encode(value, arrays)}
        except ProbeTimeout:
            record = {"status": "timeout", "detail": f"did not return within {seconds_per_call} seconds"}
        except BaseException as exc:  # the student's code may raise anything, even SystemExit
            signal.setitimer(signal.ITIMER_REAL, 0)
            record = {"status": "raised", "exception": type(exc).__name__[:100], "detail": str(exc)[:MAX_STRING]}
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
        record["mutated"] = not (_same(before[0], args) and all(_same(before[1][k], kwargs[k]) for k in kwargs))
        results[pid] = record
    os.makedirs(out_dir, exist_ok=True)
    np.savez(os.path.join(out_dir, "results.npz"), **arrays)
    with open(os.path.join(out_dir, "results.json"), "w") as f:
        json.dump(results, f)
