"""The probe data: its schema, its one encoder and its one decoder, and the calls of the student's functions.

This module is the only grading code besides the runner that runs where
the student's code runs: the runner imports it beside itself, before the
notebook runs, and calls :func:`run_probes` on the notebook's namespace
after the last cell (it imports nothing but numpy, the standard library,
:mod:`perceptron_course.protocol`, which names the files, and
:mod:`perceptron_course.platform_support`, whose timer limits each call).
It reads the probe inputs (``PROBES_FILE`` plus arrays in
``PROBE_ARRAYS_FILE``), calls each named function on them with a time
limit, and writes ``RESULTS_FILE`` and ``RESULT_ARRAYS_FILE``.

``PROBES_FILE`` is a list of calls, each ``{"id", "function", "args",
"kwargs"}`` (``args`` a ``tuple`` value, ``kwargs`` a ``dict`` value).
``RESULTS_FILE`` maps each id to what its call gave: ``status`` (one of
:data:`STATUSES`), ``value`` when it returned, ``exception`` (the type's
name) and ``detail`` (the message) when it raised, and ``seconds`` and
``mutated`` (whether the call changed its inputs) when it was called.

Both directions use one schema.  A value is a JSON object with a ``type``
(one of :data:`KINDS`) and that kind's fields:

===========  ==============================================================
``None``     nothing else
``bool``     ``value``: true or false
``int``      ``value``: a JSON integer
``float``    ``value``: a JSON number, or ``"nan"``, ``"inf"``, ``"-inf"``; ``dtype``
             ``"float32"`` or ``"float16"`` for a numpy scalar of that type
             (exact in a JSON number), none for a float or a float64
``str``      ``value``: a string of at most :data:`MAX_STRING` characters
``ndarray``  ``key``: the array's name in the ``.npz`` file (``null`` when the
             array was not kept), ``dtype``, ``shape``
``list``     ``items``: a list of values (at most :data:`MAX_ITEMS`)
``tuple``    ``items``: as ``list``
``dict``     ``items``: an object of string keys to values (at most :data:`MAX_ITEMS`)
``object``   ``class``: the type name of something that is not plain data
``too-deep`` nesting deeper than :data:`MAX_DEPTH`
===========  ==============================================================

Nothing is pickled.  :func:`encode` writes a value in this schema;
:func:`decode` reads one back and never trusts it: anything that does not
follow the schema becomes an :class:`Opaque` marker, which no hidden test
accepts.  The host decodes the results with the same :func:`decode`
(through :mod:`autograder.boundary.from_sandbox`), so the two sides cannot drift apart.
"""

import copy
import json
import math
import os
import sys
import time
import zipfile  # used by np.savez: imported now, before the notebook can put a zipfile.py in its folder

import numpy as np

from . import platform_support, protocol

KINDS = ("None", "bool", "int", "float", "str", "ndarray", "list", "tuple", "dict", "object", "too-deep")
MAX_DEPTH = 4  # containers inside containers
MAX_ITEMS = 1000  # items of one list, tuple or dict
MAX_STRING = 2000  # characters of a string, a dict key or an exception's message
MAX_ARRAY_ELEMENTS = 1_000_000
NUMERIC_DTYPE_KINDS = "biuf"  # bool, signed and unsigned int, float: the only arrays kept
STATUSES = ("returned", "raised", "timeout", "missing")  # of one call, in protocol.RESULTS_FILE

# numpy's scalar types the probe sends as numbers (exact types: a subclass could redefine comparison).
NUMPY_INTS = (np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64)
NUMPY_FLOATS = (np.float64, np.float32, np.float16)
_NARROW_FLOATS = (np.float32, np.float16)
# The numbers the probe sends as a Python int or float, and the host reads back as one: a judge that runs the
# functions in its own process takes exactly these as plain numbers too, so both judge a value alike.
PLAIN_NUMBER_TYPES = (int, float, np.float64) + NUMPY_INTS
_NARROW_FLOATS_BY_NAME = {kind.__name__: kind for kind in _NARROW_FLOATS}


class ProbeTimeout(BaseException):
    """A probed call ran past its time limit.

    A ``BaseException``, as ``KeyboardInterrupt`` is, so that a student's
    ``except Exception:`` around a training step does not swallow it; and
    raised again every :data:`REPEAT_SECONDS` while the call keeps running, so
    that one ``except`` that catches it once does not end the time limit.
    """


REPEAT_SECONDS = 1.0


class BudgetSpent(Exception):
    """The notebook's time budget ran out while the probes were running."""


class Opaque:
    """Stands for a value that is not plain data in the schema; it never equals anything."""

    __slots__ = ("description",)

    def __init__(self, description):
        self.description = description

    def __repr__(self):
        return self.description

    def __reduce__(self):
        return (Opaque, (self.description,))


def encode(value, arrays, *, depth=0):
    """Turn ``value`` into data in the schema, storing numeric arrays in ``arrays`` (name -> array)."""
    if depth > MAX_DEPTH:
        return {"type": "too-deep"}
    if value is None:
        return {"type": "None"}
    if type(value) in (bool, np.bool_):
        return {"type": "bool", "value": bool(value)}
    # Exact types only: a subclass of int or float could redefine comparison.
    if type(value) is int or type(value) in NUMPY_INTS:
        return {"type": "int", "value": int(value)}
    if type(value) is float or type(value) in NUMPY_FLOATS:
        spec = {"type": "float", "value": float(value) if math.isfinite(value) else str(float(value))}
        if type(value) in _NARROW_FLOATS:  # kept, so that a float32 is not judged as the float it widens to
            spec["dtype"] = value.dtype.name
        return spec
    if type(value) is str:
        return {"type": "str", "value": value[:MAX_STRING]}
    if type(value) is np.ndarray:
        spec = {"type": "ndarray", "dtype": str(value.dtype), "shape": list(value.shape), "key": None}
        if value.dtype.kind in NUMERIC_DTYPE_KINDS and value.size <= MAX_ARRAY_ELEMENTS:
            spec["key"] = f"a{len(arrays)}"
            arrays[spec["key"]] = np.array(value, copy=True)
        return spec
    if type(value) in (list, tuple):
        return {"type": type(value).__name__, "items": [encode(v, arrays, depth=depth + 1) for v in value[:MAX_ITEMS]]}
    if type(value) is dict:
        return {"type": "dict", "items": {str(k)[:MAX_STRING]: encode(v, arrays, depth=depth + 1)
                                          for k, v in list(value.items())[:MAX_ITEMS]}}
    return {"type": "object", "class": type(value).__name__[:100]}


def decode(spec, arrays, *, copy_arrays=False, depth=0):
    """The value ``spec`` describes, or an :class:`Opaque` marker when it does not follow the schema.

    ``arrays`` maps names to the arrays loaded from the ``.npz`` file (never
    with pickles).  Only numeric arrays are accepted.  ``copy_arrays`` gives
    each value its own copy, so a function that changes its inputs cannot
    change another call's.
    """
    if not isinstance(spec, dict):
        return Opaque("malformed data")
    kind = spec.get("type")
    value = spec.get("value")
    if kind == "None":
        return None
    if kind == "bool" and type(value) is bool:
        return value
    if kind == "int" and type(value) is int:
        return value
    # An integer beyond float's range (a JSON number of 400 digits) would raise OverflowError in float().
    if kind == "float" and ((type(value) is int and abs(value) <= sys.float_info.max) or type(value) is float
                            or value in ("nan", "inf", "-inf")):
        narrow = spec.get("dtype")
        if narrow is None:
            return float(value)
        if type(narrow) is str and narrow in _NARROW_FLOATS_BY_NAME:  # exact in its dtype, as the encoder writes it, or a lie
            with np.errstate(over="ignore"):
                number = _NARROW_FLOATS_BY_NAME[narrow](float(value))
            if float(number) == float(value) or not math.isfinite(float(value)):
                return number
    if kind == "str" and type(value) is str and len(value) <= MAX_STRING:
        return value
    if kind == "ndarray":
        key = spec.get("key")
        array = arrays.get(key) if type(key) is str else None
        if isinstance(array, np.ndarray) and array.dtype.kind in NUMERIC_DTYPE_KINDS:
            return np.array(array, copy=True) if copy_arrays else array
        dtype = spec.get("dtype")
        return Opaque(f"an array of dtype {dtype[:40] if type(dtype) is str else '?'} that is not numeric or "
                      "too large")
    if depth >= MAX_DEPTH + 1:
        return Opaque("data nested too deeply")
    items = spec.get("items")
    if kind in ("list", "tuple") and type(items) is list and len(items) <= MAX_ITEMS:
        decoded = [decode(s, arrays, copy_arrays=copy_arrays, depth=depth + 1) for s in items]
        return decoded if kind == "list" else tuple(decoded)
    if kind == "dict" and type(items) is dict and len(items) <= MAX_ITEMS:
        return {k: decode(s, arrays, copy_arrays=copy_arrays, depth=depth + 1) for k, s in items.items()}
    if kind == "object":
        name = spec.get("class")
        return Opaque(f"an object of type {name[:100] if type(name) is str else '?'}")
    if kind == "too-deep":
        return Opaque("data nested too deeply")
    return Opaque("malformed data")


def _same(a, b):
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.shape == b.shape and a.dtype == b.dtype and np.array_equal(a, b, equal_nan=True)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return True


def _on_alarm(signum, frame):
    raise ProbeTimeout()


def run_probes(namespace, in_dir, out_dir, *, seconds_per_call, deadline=None):
    """Call every probe listed in ``in_dir`` on functions from ``namespace``; write the results to ``out_dir``.

    A function that runs past ``seconds_per_call`` on one input is not called
    again: its remaining probes are recorded as timed out at once, so a
    function that never returns costs one time limit, not one per input.
    No call runs past ``deadline`` (a ``time.monotonic()`` value): when it
    comes, :class:`BudgetSpent` is raised and nothing is written.
    """
    with open(os.path.join(in_dir, protocol.PROBES_FILE), encoding="utf-8") as f:
        probes = json.load(f)
    with np.load(os.path.join(in_dir, protocol.PROBE_ARRAYS_FILE), allow_pickle=False) as data:
        inputs = {k: data[k] for k in data.files}
    arrays = {}
    results = {}
    hung = set()
    for probe in probes:
        pid, name = probe["id"], probe["function"]
        fn = namespace.get(name)
        if not callable(fn):
            results[pid] = {"status": "missing"}
            continue
        if name in hung:
            results[pid] = {"status": "timeout"}
            continue
        args = decode(probe["args"], inputs, copy_arrays=True)
        kwargs = decode(probe["kwargs"], inputs, copy_arrays=True)
        before = (copy.deepcopy(args), copy.deepcopy(kwargs))
        seconds = seconds_per_call
        if deadline is not None:
            seconds = min(seconds, deadline - time.monotonic())
            if seconds <= 0:
                raise BudgetSpent()
        previous = platform_support.install_timer_handler(_on_alarm)
        started = time.perf_counter()
        platform_support.set_timer(seconds, REPEAT_SECONDS)
        try:
            value = fn(*args, **kwargs)
            platform_support.set_timer(0)
            record = {"status": "returned", "value": encode(value, arrays)}
        except ProbeTimeout:
            platform_support.set_timer(0)
            if deadline is not None and time.monotonic() >= deadline:
                raise BudgetSpent() from None
            hung.add(name)
            record = {"status": "timeout"}
        except BaseException as exc:  # the student's code may raise anything, even SystemExit
            platform_support.set_timer(0)
            record = {"status": "raised", "exception": type(exc).__name__[:100], "detail": str(exc)[:MAX_STRING]}
        finally:
            platform_support.set_timer(0)
            platform_support.restore_timer_handler(previous)
        record["seconds"] = round(time.perf_counter() - started, 6)
        record["mutated"] = not (_same(before[0], args) and all(_same(before[1][k], kwargs[k]) for k in kwargs))
        results[pid] = record
    os.makedirs(out_dir, exist_ok=True)
    np.savez(os.path.join(out_dir, protocol.RESULT_ARRAYS_FILE), **arrays)
    with open(os.path.join(out_dir, protocol.RESULTS_FILE), "w", encoding="utf-8") as f:
        json.dump(results, f)
