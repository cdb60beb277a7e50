"""No module of the grader imports a module that imports it back, however long the way round.

A circle of imports works only in the order Python happens to meet it, and it
hides which of the modules is the lower one.  Every import counts: at the top
of a module and inside a function (where the grader keeps its slower
imports), absolute or relative.  An ``importlib`` call with a computed name
(the registry of assignments loading each one's checks) is not read.
"""

import ast
import os
from collections import deque

from tests.support import ROOT


def package_modules(root, package):
    """``{dotted name: path}`` of every module of ``package`` under ``root`` (a package by its own name)."""
    found = {}
    for folder, subfolders, files in os.walk(os.path.join(root, package)):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for name in files:
            if name.endswith(".py"):
                parts = os.path.relpath(os.path.join(folder, name), root)[:-len(".py")].split(os.sep)
                found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = os.path.join(folder, name)
    return found


def imports_between(modules):
    """``{module: {imported module: first line}}`` among ``modules``, at every depth of each module's code."""
    graph = {}
    for module, path in modules.items():
        with open(path, encoding="utf-8") as f:
            tree = ast.parse(f.read(), path)
        here = module.split(".") if path.endswith("__init__.py") else module.split(".")[:-1]
        graph[module] = edges = {}
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    base = ".".join(here[:len(here) - node.level + 1] + ([node.module] if node.module else []))
                # "from package import module" names the module; "from module import name" the module
                names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
            else:
                continue
            for name in names:
                while name and name not in modules:  # "import a.b.c" of a function c: the module a.b
                    name = name.rpartition(".")[0]
                if name and name != module:
                    edges.setdefault(name, node.lineno)
    return graph


def cycles(graph):
    """Each circle of ``graph`` once, as the shortest way from one of its modules back to it."""
    found, seen = [], set()
    for start in sorted(graph):
        came_from, queue = {start: None}, deque([start])
        while queue:
            module = queue.popleft()
            if start in graph[module]:
                way = [module]
                while came_from[way[-1]] is not None:
                    way.append(came_from[way[-1]])
                way = way[::-1] + [start]
                if frozenset(way) not in seen:
                    seen.add(frozenset(way))
                    found.append(way)
                break
            for target in sorted(graph[module]):
                if target not in came_from:
                    came_from[target] = module
                    queue.append(target)
    return found


def described(way, graph, modules):
    return " -> ".join(f"{a} (line {graph[a][b]} of {os.path.relpath(modules[a], ROOT)})"
                       for a, b in zip(way, way[1:])) + f" -> {way[-1]}"


def test_no_module_of_the_grader_imports_one_that_imports_it_back():
    modules = package_modules(ROOT, "autograder")
    graph = imports_between(modules)
    assert "autograder.outputs.graded_run" in graph["autograder.outputs.record"], "the finder reads the package"
    found = cycles(graph)
    assert not found, "import cycles in autograder/:\n" + "\n".join(described(w, graph, modules) for w in found)


def test_the_finder_sees_a_circle_through_an_import_inside_a_function(tmp_path):
    package = tmp_path / "pkg"
    (package / "outputs").mkdir(parents=True)
    for name in ("pkg/__init__.py", "pkg/outputs/__init__.py", "pkg/results.py"):
        (tmp_path / name).write_text("")
    (package / "outputs" / "record.py").write_text("from pkg.outputs import graded_run\nimport pkg.results\n")
    (package / "outputs" / "graded_run.py").write_text("def save():\n    from .record import write\n")
    modules = package_modules(str(tmp_path), "pkg")
    graph = imports_between(modules)
    assert graph["pkg.outputs.graded_run"] == {"pkg.outputs.record": 2}
    assert cycles(graph) == [["pkg.outputs.graded_run", "pkg.outputs.record", "pkg.outputs.graded_run"]]
    (package / "outputs" / "graded_run.py").write_text("def save():\n    from ..results import Result\n")
    assert cycles(imports_between(modules)) == []
