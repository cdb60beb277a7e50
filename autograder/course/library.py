"""What a graded notebook may import of ``perceptron_lib``: the data loaders its release imports, and nothing else.

``perceptron_lib`` is both the course's data library and its reference
solution.  The release notebooks import a few data loaders from it
(``four_point_example``, ``make_separable`` ...); everything else in it is an
answer some assignment asks for.  So the sandbox is not given the package
itself but a copy built for the assignment (:func:`build_library`):

* its ``__init__`` exports exactly the names the release notebook imports
  from ``perceptron_lib`` (:func:`release_imports`), from copies of the
  modules that define them and the package modules those import;
* any other name, and every other module of the package, raises an
  ``ImportError`` that says why: the reference implementation is not
  available while the notebook is graded, and what is.

Beside it goes the visible tests' helpers the release's test cells import,
``perceptron_course.test_helpers``, alone in a ``perceptron_course``
package of their own (:func:`build_test_helpers`): nothing else of the
student package (its check, runner or probe) is there.

The static scan (:mod:`autograder.judging.integrity`) still flags code that tries
(``reference-solution``), and the feedback explains the failure.  A release
that imports a reference implementation itself cannot be graded this way:
:func:`plan_library` refuses it with a :class:`LibraryError`.
"""

import ast
import importlib
import os
import shutil

from perceptron_course.cells import library_imports

from autograder.course import ROOT

__all__ = ["LibraryError", "release_imports", "plan_library", "build_library", "build_test_helpers",
           "unavailable_message", "PACKAGE", "TEST_HELPERS_PACKAGE"]

PACKAGE = "perceptron_lib"
PACKAGE_DIR = os.path.join(ROOT, PACKAGE)
TEST_HELPERS_PACKAGE = "perceptron_course"
TEST_HELPERS_MODULE = "test_helpers"
TEST_HELPERS_SOURCE = os.path.join(os.path.dirname(PACKAGE_DIR), TEST_HELPERS_PACKAGE, f"{TEST_HELPERS_MODULE}.py")

TEST_HELPERS_INIT = '''"""{package} as a graded notebook sees it: the visible tests' helpers ({package}.{module}), nothing else."""
'''

INIT_TEMPLATE = '''"""{package} as a graded notebook sees it: the data loaders its assignment imports, and nothing else."""

{imports}

__all__ = {names!r}
_WHY = {why!r}


def __getattr__(name):
    if name.startswith("_"):
        raise AttributeError(name)
    raise ImportError(_WHY.format(name=name), name=__name__)
'''

STUB_TEMPLATE = '''"""A module of {package} that is not available while a notebook is graded."""

raise ImportError({message!r}, name=__name__)
'''


class LibraryError(ValueError):
    """The release imports something from perceptron_lib that cannot be offered to a graded notebook."""


def unavailable_message(what, available):
    """The sentence a graded notebook sees when it reaches for the reference implementation."""
    return (f"{what} is part of the course's reference implementation, which is not available while your "
            f"notebook is graded: write it yourself. Only the data loaders this assignment imports can be "
            f"imported from {PACKAGE} here: {', '.join(available) or 'none'}.")


def release_imports(release_nb):
    """The names the release notebook's code cells import from ``perceptron_lib`` (or its modules), sorted."""
    names = set()
    for cell in release_nb.cells:
        if cell.cell_type != "code":
            continue
        imported, modules = library_imports(cell.source)
        if modules:
            raise LibraryError(f"the release imports the {PACKAGE} package itself; import the data loaders it "
                               f"needs by name (from {PACKAGE} import ...), so the grader knows what to offer")
        names.update(imported)
    return tuple(sorted(names))


def _package_imports(module_name):
    """The modules of the package that ``module_name`` imports (relatively or by the package's name)."""
    path = os.path.join(PACKAGE_DIR, module_name.split(".")[-1] + ".py")
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                found.add(node.module.split(".")[0])
            elif node.level == 0 and (node.module or "").startswith(PACKAGE + "."):
                found.add(node.module.split(".")[1])
            elif node.level == 1 and not node.module:
                found.update(a.name for a in node.names)
    return found


def plan_library(names):
    """``(modules, exports)``: the package modules to copy, and ``{name: module}`` for the names to export.

    Raises :class:`LibraryError` when a name is not in the package or needs
    one of the reference implementation's modules.
    """
    from autograder.judging.integrity import REFERENCE_MODULES

    package = importlib.import_module(PACKAGE)
    exports = {}
    for name in names:
        value = getattr(package, name, None)
        module = getattr(value, "__module__", None) or ""
        if not module.startswith(PACKAGE + "."):
            raise LibraryError(f"the release imports {name!r} from {PACKAGE}, which defines no such function or class")
        exports[name] = module.split(".")[1]
    modules, todo = set(), list(exports.values())
    while todo:
        module = todo.pop()
        if module in modules:
            continue
        modules.add(module)
        todo.extend(_package_imports(module))
    reference = sorted(modules & REFERENCE_MODULES)
    if reference:
        raise LibraryError(f"the release imports from {PACKAGE} something that needs its reference implementation "
                           f"(module {', '.join(reference)}); a graded notebook cannot be given that")
    return frozenset(modules), exports


def build_test_helpers(target):
    """Write ``perceptron_course`` with only its visible tests' helpers into the folder ``target``; return its path.

    Every other module of the package is there as a stub that raises
    ``ImportError``, as for ``perceptron_lib``: a stub is found before any
    installed copy of the package (an editable install, say) could be.
    """
    package_dir = os.path.join(target, TEST_HELPERS_PACKAGE)
    os.makedirs(package_dir)
    with open(os.path.join(package_dir, "__init__.py"), "w", encoding="utf-8") as f:
        f.write(TEST_HELPERS_INIT.format(package=TEST_HELPERS_PACKAGE, module=TEST_HELPERS_MODULE))
    source_dir = os.path.dirname(TEST_HELPERS_SOURCE)
    for entry in sorted(os.listdir(source_dir)):
        stem, ext = os.path.splitext(entry)
        if ext != ".py" or stem == "__init__":
            continue
        destination = os.path.join(package_dir, entry)
        if stem == TEST_HELPERS_MODULE:
            shutil.copyfile(TEST_HELPERS_SOURCE, destination)
        else:
            message = (f"{TEST_HELPERS_PACKAGE}.{stem} is not available while your notebook is graded; only the "
                       f"visible tests' helpers, {TEST_HELPERS_PACKAGE}.{TEST_HELPERS_MODULE}, are.")
            with open(destination, "w", encoding="utf-8") as f:
                f.write(STUB_TEMPLATE.format(package=TEST_HELPERS_PACKAGE, message=message))
    return package_dir


def build_library(names, target):
    """Write the graded notebook's ``perceptron_lib`` into the folder ``target``, and the visible tests' helpers
    beside it (:func:`build_test_helpers`); return the path of ``perceptron_lib``."""
    build_test_helpers(target)
    modules, exports = plan_library(names)
    package_dir = os.path.join(target, PACKAGE)
    os.makedirs(package_dir)
    available = sorted(exports)
    imports = "\n".join(f"from .{module} import {', '.join(sorted(n for n, m in exports.items() if m == module))}"
                        for module in sorted(set(exports.values())))
    with open(os.path.join(package_dir, "__init__.py"), "w", encoding="utf-8") as f:
        f.write(INIT_TEMPLATE.format(package=PACKAGE, imports=imports, names=available,
                                     why=unavailable_message(f"{PACKAGE}.{{name}}", available)))
    for entry in sorted(os.listdir(PACKAGE_DIR)):
        stem, ext = os.path.splitext(entry)
        if ext != ".py" or stem == "__init__":
            continue
        destination = os.path.join(package_dir, entry)
        if stem in modules:
            shutil.copyfile(os.path.join(PACKAGE_DIR, entry), destination)
        else:
            with open(destination, "w", encoding="utf-8") as f:
                f.write(STUB_TEMPLATE.format(package=PACKAGE,
                                             message=unavailable_message(f"{PACKAGE}.{stem}", available)))
    return package_dir
