"""Build the optional compiled epoch loop; everything else is configured in pyproject.toml.

The extension is optional: without a C compiler the install still succeeds and
``perceptron_lib`` trains with its numpy engine, with the same results.

It uses only Python's limited API (the stable ABI of Python 3.11 and later), so
one compiled file serves every Python from 3.11 on.  The student package's
compiled wheel (``tools/student_package.py``) is built by this same file, and is
tagged ``cp311-abi3`` for that reason.
"""

import sys

from setuptools import Extension, setup

WINDOWS = sys.platform == "win32"
# Contraction would fuse the update's product and sum into one rounding and
# break the bit-for-bit match with numpy (see perceptron_lib/_kernel.c).
FLAGS = [] if WINDOWS else ["-O3", "-ffp-contract=off"]
# sqrt and fmax come from the C maths library, which Windows' C runtime holds itself.
LIBRARIES = [] if WINDOWS else ["m"]
LIMITED_API = "0x030B0000"  # Python 3.11, the oldest the project supports (pyproject.toml)

setup(ext_modules=[Extension("perceptron_lib._kernel", ["perceptron_lib/_kernel.c"], extra_compile_args=FLAGS,
                             libraries=LIBRARIES, define_macros=[("Py_LIMITED_API", LIMITED_API)],
                             py_limited_api=True, optional=True)],
      options={"bdist_wheel": {"py_limited_api": "cp311"}})
