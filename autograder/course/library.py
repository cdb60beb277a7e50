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

Which is which is read from the library's source, never kept by hand
(:func:`library_parts`): the data loaders are those of
``perceptron_lib.datasets`` (:data:`DATA_MODULE`), which may use the modules
it imports; every other module, and every public name those define, is the
reference implementation.  The static scan (:mod:`autograder.judging.integrity`)
flags code that reaches for it (``reference-solution``), and the feedback
explains the failure.  A release that imports a reference implementation
itself cannot be graded this way: :func:`plan_library` refuses it with a
:class:`LibraryError`.
"""

import ast
import importlib.machinery
import os
import shutil
from dataclasses import dataclass, field
from functools import lru_cache

from perceptron_course.cells import library_imports

from autograder.course import ROOT

__all__ = ["LibraryError", "LibraryParts", "library_parts", "release_imports", "plan_library", "build_library",
           "build_test_helpers", "unavailable_message", "PACKAGE", "DATA_MODULE", "TEST_HELPERS_PACKAGE"]

PACKAGE = "perceptron_lib"
PACKAGE_DIR = os.path.join(ROOT, PACKAGE)
# The module of perceptron_lib that holds the course's data loaders: a graded notebook may be handed them (and
# the modules they import); every other module is the reference implementation.
DATA_MODULE = "datasets"
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


@dataclass(frozen=True)
class LibraryParts:
    """``perceptron_lib`` read from its source: what a graded notebook may be handed, and what it may not.

    Attributes
    ----------
    data_modules : frozenset of str
        :data:`DATA_MODULE`, where the course's data loaders live, and every
        module of the package it imports, directly or not.
    reference_modules : frozenset of str
        Every other module: the reference implementation (a compiled module,
        known by its C source, counts too).
    reference_names : frozenset of str
        The public names (functions, classes, other top-level names and those
        of a module's ``__all__``) that the reference modules define.
    exports : dict of str to str
        Each name of the package's ``__all__`` and the module that defines it.
    imports : dict of str to frozenset of str
        Each module and the modules of the package it imports.
    """

    data_modules: frozenset
    reference_modules: frozenset
    reference_names: frozenset
    exports: dict = field(repr=False)
    imports: dict = field(repr=False)


def _module_name(entry):
    """The module a file of the package holds, or None: ``theory.py``, and ``_kernel.c``, a compiled module's
    source, both count; so does the compiled module itself (``_kernel.abi3.so``,
    ``_kernel.cpython-311-x86_64-linux-gnu.so``)."""
    for suffix in (".py", ".c", *importlib.machinery.EXTENSION_SUFFIXES):
        if entry.endswith(suffix) and entry[:-len(suffix)].isidentifier():
            return entry[:-len(suffix)]
    return None


def _statements(body):
    """The statements of a module's top level, including those inside its ``if``, ``try`` and ``with`` blocks."""
    for node in body:
        yield node
        if isinstance(node, (ast.If, ast.Try, ast.With)):
            yield from _statements([child for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt)])


def _bound_names(target):
    if isinstance(target, ast.Name):
        return {target.id}
    if isinstance(target, (ast.Tuple, ast.List)):
        return set().union(*map(_bound_names, target.elts))
    return set()


def _public_names(tree):
    """The names a module's top level defines and does not mark private, and those of its ``__all__``."""
    names, declared = set(), set()
    for node in _statements(tree.body):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = set().union(*map(_bound_names, targets))
            names |= bound
            if "__all__" in bound and node.value is not None:
                try:
                    declared |= set(ast.literal_eval(node.value))
                except ValueError:  # an __all__ computed at import time names nothing that can be read here
                    pass
    return {name for name in names if not name.startswith("_")} | declared


def _package_imports(tree, package):
    """The modules of the package that a module's code imports (relatively or by the package's name)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1 and node.module:
                found.add(node.module.split(".")[0])
            elif node.level == 0 and (node.module or "").startswith(package + "."):
                found.add(node.module.split(".")[1])
            elif node.level == 1 and not node.module:
                found.update(a.name for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith(package + "."))
    return found


@lru_cache(maxsize=8)
def library_parts(package_dir=PACKAGE_DIR):
    """Split the library in ``package_dir`` into its data loaders' modules and its reference implementation.

    Nothing of it is imported: every module's source is read with :mod:`ast`,
    so a function or module added to the library is classified as soon as it
    is written.  The data loaders' modules are :data:`DATA_MODULE` and what it
    imports; everything else is the reference implementation.

    Returns
    -------
    LibraryParts

    Raises
    ------
    LibraryError
        If ``package_dir`` has no ``__init__.py`` or no :data:`DATA_MODULE`.
    """
    package = os.path.basename(os.path.normpath(package_dir))
    init = os.path.join(package_dir, "__init__.py")
    if not os.path.isfile(init):
        raise LibraryError(f"{package_dir} is not the {PACKAGE} package: it has no __init__.py")
    trees = {}  # module -> its syntax tree; None for a compiled module
    for entry in sorted(os.listdir(package_dir)):
        module = _module_name(entry)
        if module is None or module == "__init__":
            continue
        if entry.endswith(".py"):
            with open(os.path.join(package_dir, entry), encoding="utf-8") as f:
                trees[module] = ast.parse(f.read(), filename=os.path.join(package_dir, entry))
        else:
            trees.setdefault(module, None)
    if DATA_MODULE not in trees:
        raise LibraryError(f"{package_dir} has no module {DATA_MODULE}.py: the course's data loaders are expected "
                           "there")
    imports = {module: frozenset(_package_imports(tree, package) & set(trees)) if tree else frozenset()
               for module, tree in trees.items()}
    data, todo = set(), [DATA_MODULE]
    while todo:
        module = todo.pop()
        if module not in data:
            data.add(module)
            todo.extend(imports[module])
    reference = frozenset(trees) - data
    defined = {module: _public_names(tree) for module, tree in trees.items() if tree is not None}
    with open(init, encoding="utf-8") as f:
        init_tree = ast.parse(f.read(), filename=init)
    # The module an export comes from: the one __init__ imports it from, or else (a name loaded on first use)
    # the one that defines it.
    imported_from = {alias.asname or alias.name: node.module.split(".")[0]
                     for node in _statements(init_tree.body)
                     if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module for alias in node.names}
    exports = {}
    for name in sorted(_public_names(init_tree)):
        module = imported_from.get(name) or next((m for m, names in sorted(defined.items()) if name in names), None)
        if module is not None:
            exports[name] = module
    return LibraryParts(
        data_modules=frozenset(data), reference_modules=reference,
        reference_names=frozenset(name for module in reference for name in defined.get(module, ())),
        exports=exports, imports=imports)


def plan_library(names):
    """``(modules, exports)``: the package modules to copy, and ``{name: module}`` for the names to export.

    Raises :class:`LibraryError` when a name is not in the package or needs
    one of the reference implementation's modules.
    """
    parts = library_parts()
    exports = {}
    for name in names:
        if name not in parts.exports:
            raise LibraryError(f"the release imports {name!r} from {PACKAGE}, which defines no such function or class")
        exports[name] = parts.exports[name]
    modules, todo = set(), list(exports.values())
    while todo:
        module = todo.pop()
        if module in modules:
            continue
        modules.add(module)
        todo.extend(parts.imports[module])
    reference = sorted(modules & parts.reference_modules)
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
