"""Build the optional compiled epoch loop; everything else is configured in pyproject.toml.

The extension is optional: without a C compiler the install still succeeds and
``perceptron_lib`` trains with its numpy engine, with the same results.
"""

import sys

from setuptools import Extension, setup

# Contraction would fuse the update's product and sum into one rounding and
# break the bit-for-bit match with numpy (see perceptron_lib/_kernel.c).
FLAGS = [] if sys.platform == "win32" else ["-O3", "-ffp-contract=off"]

setup(ext_modules=[Extension("perceptron_lib._kernel", ["perceptron_lib/_kernel.c"],
                             extra_compile_args=FLAGS, optional=True)])
