"""What runs, and what looks like tampering: restoring locked cells and reading the student's code.

:func:`prepare_notebook` (defined in :mod:`perceptron_course.cells`, since
the student's check runs the same notebook grading runs) rebuilds the
student's notebook around the release's locked cells; what was edited,
deleted or duplicated becomes a flag.

:func:`scan_code` reads the code the student wrote (answers and added
cells) for signs of tampering with the grading: IPython hooks, patched
modules and built-ins, ``sys.modules`` and import hooks, files named like
modules, paths outside the folder, environment probing, process control,
objects that claim equality with anything, imports of the reference
implementation, and a function or class of a locked cell defined again
(:func:`locked_definitions`: a hidden check may call a locked helper, such as
ps4's ``train_with_lifting_reversed``, which a student's later cell could
replace).  It works on the syntax tree (after IPython's own
translation of magics and ``!`` commands) and falls back to regular
expressions for code that does not parse.  :func:`scan_folder` looks, after
the run, for module-named files the code left behind.  Flags never change a
score: they tell the instructor where to look.
"""

import ast
import hashlib
import importlib.metadata
import os
import re
import sys
from functools import lru_cache

from perceptron_course.cells import is_solution, prepare_notebook

from autograder.course.library import library_parts
from autograder.results import Flag

__all__ = ["prepare_notebook", "scan_code", "scan_folder", "locked_definitions", "answer_checksum", "is_blank_answer",
           "written_answer_checksum", "REFERENCE_NAMES", "REFERENCE_MODULES"]

# perceptron_lib's reference implementation: every module but the data loaders' and the public names those
# modules define, read from the library's source (autograder.course.library), so a function added to it is
# recognised without a change here.
REFERENCE_NAMES = library_parts().reference_names
REFERENCE_MODULES = library_parts().reference_modules

# %pip is here because the runner replaces it with a message and installs nothing (downloaded notebooks
# open with a %pip install of the course's package).
BENIGN_LINE_MAGICS = frozenset({"matplotlib", "time", "timeit", "precision", "pprint", "who", "whos", "pinfo",
                                "pinfo2", "psearch", "page", "pdoc", "pdef", "psource", "pfile", "lsmagic",
                                "magic", "quickref", "history", "xmode", "doctest_mode", "automagic", "autocall",
                                "pip"})
BENIGN_CELL_MAGICS = frozenset({"time", "timeit", "capture", "markdown", "latex", "html", "HTML", "svg",
                                "javascript", "js"})
IPYTHON_INTERNALS = frozenset({"input_transformers_cleanup", "input_transformers_post", "input_transformer_manager",
                               "ast_transformers", "events", "register_magic_function", "register_magics",
                               "set_custom_exc", "run_cell", "run_ast_nodes", "run_code", "user_ns", "user_global_ns",
                               "showtraceback", "InteractiveShell", "ExecutionResult", "display_formatter",
                               "set_hook", "custom_exceptions", "compile", "prefilter_manager", "ex", "ev",
                               "push", "kernel", "_showtraceback", "magics_manager"})
MODULE_ROOTS = frozenset({"np", "numpy", "builtins", "__builtins__", "sys", "os", "math", "json", "IPython",
                          "perceptron_lib", "pl", "plt", "matplotlib", "unittest", "pytest", "random", "time",
                          "signal", "importlib", "types", "functools", "operator", "inspect", "pathlib", "io"})
PROCESS_CALLS = frozenset({"fork", "forkpty", "kill", "killpg", "_exit", "abort", "system", "popen", "execv",
                           "execve", "execl", "execle", "execlp", "execvp", "execvpe", "spawnv", "spawnl",
                           "posix_spawn", "posix_spawnp", "setsid", "setpgid", "setpgrp", "pidfd_open",
                           "getppid", "startfile", "daemon"})
PROCESS_MODULES = frozenset({"subprocess", "multiprocessing", "signal", "ctypes", "cffi", "pty", "socket",
                             "asyncio.subprocess", "concurrent", "resource", "psutil", "sh", "pexpect"})
DIRECTORY_CALLS = frozenset({"listdir", "scandir", "walk", "glob", "iglob", "rglob", "iterdir", "chdir", "fwalk"})
DETECTION_NAMES = frozenset({"environ", "getenv", "putenv", "unsetenv", "environb", "getuser", "gethostname",
                             "getuid", "geteuid", "getlogin", "node", "uname", "argv", "orig_argv"})
IMPORT_SYSTEM_ATTRS = frozenset({"modules", "meta_path", "path_hooks", "path_importer_cache", "settrace",
                                 "setprofile", "excepthook", "displayhook", "addaudithook", "breakpointhook",
                                 "_getframe", "path"})
EQUALITY_DUNDERS = frozenset({"__eq__", "__ne__", "__bool__"})
OUTSIDE_PATH = re.compile(r"(?:^|[\s'\"=(:,])(?:/(?:etc|proc|sys|work|root|home|usr|tmp|var|dev|opt|grader|grading|"
                          r"autograder|mnt|srv|run|bin|lib)\b|\.\.(?:/|\\|$)|~/)")
GRADING_WORDS = re.compile(r"autograd|nbgrader|gradebook|bwrap|notebooks/source|grading", re.I)


# -- grade cells and answers ---------------------------------------------------------

def answer_checksum(source):
    """A stable fingerprint of an answer's text, to tell whether it changed between two gradings."""
    return hashlib.sha256(source.replace("\r\n", "\n").strip().encode("utf-8")).hexdigest()


def is_blank_answer(source, released_source):
    """Whether a written answer is blank: nothing written, or the release's text left as it was."""
    return not source.strip() or source == released_source


def written_answer_checksum(source, released_source):
    """:func:`answer_checksum` of a written answer, or ``None`` when it is blank (:func:`is_blank_answer`)."""
    return None if is_blank_answer(source, released_source) else answer_checksum(source)


# -- reading the student's code -------------------------------------------------

@lru_cache(maxsize=1)
def _module_names():
    names = set(sys.stdlib_module_names) | set(sys.builtin_module_names)
    try:
        names |= set(importlib.metadata.packages_distributions())
    except Exception:  # a broken distribution's metadata must not stop grading
        pass
    names |= {"numpy", "matplotlib", "perceptron_lib", "autograder", "IPython", "ipykernel", "nbclient",
              "jupyter_client", "zmq", "sklearn", "scipy", "pandas", "sitecustomize", "usercustomize", "pytest",
              "nbgrader", "nbformat", "traitlets", "probe", "runner", "ipykernel_launcher"}
    return frozenset(n for n in names if not n.startswith("_") or n in ("__future__", "_io", "_ast"))


_MODULE_FILE = re.compile(r"(?:^|[/\\\s'\"])([A-Za-z_][A-Za-z0-9_]*)(?:\.pyc?|\.pth|\.so|/__init__\.py)(?=$|[\s'\"])")


def _module_file_in(text):
    for match in _MODULE_FILE.finditer(text):
        name = match.group(1)
        if name in _module_names() or match.group(0).endswith(".pth"):
            return match.group(0).strip(" '\"/\\")
    if ".pth" in text and re.search(r"\.pth\b", text):
        return ".pth file"
    return None


def _root_name(node):
    while isinstance(node, (ast.Attribute, ast.Subscript, ast.Call)):
        node = node.value if not isinstance(node, ast.Call) else node.func
    return node.id if isinstance(node, ast.Name) else None


def _dotted(node):
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    if isinstance(node, ast.Call):
        inner = _dotted(node.func)
        return (inner + "()." + ".".join(reversed(parts))) if inner and parts else (inner + "()" if inner else None)
    return None


class _Scanner(ast.NodeVisitor):
    """Collect ``(code, detail)`` findings from one cell's syntax tree."""

    def __init__(self, label, found):
        self.label = label
        self.found = found
        self.seen = set()
        self.modules = set()  # names bound to modules by imports
        self.reference_aliases = set()  # names bound to perceptron_lib or its modules

    def hit(self, code, node, what):
        line = getattr(node, "lineno", None)
        where = f"{self.label}, line {line}" if line else self.label
        # One finding per kind and line: a call and its attribute chain are the same thing.
        if (code, where) in self.seen:
            return
        self.seen.add((code, where))
        self.found.append((code, f"{where}: {what}"))

    # imports
    def _imported(self, module, node):
        top = module.split(".")[0]
        if top in ("IPython", "ipykernel", "traitlets", "jupyter_client", "nbclient", "nbformat", "nbgrader"):
            self.hit("ipython-hooks", node, f"imports {module}")
        if top in ("importlib", "imp", "runpy", "zipimport", "pkgutil", "site"):
            self.hit("import-system", node, f"imports {module}")
        if module in PROCESS_MODULES or top in PROCESS_MODULES:
            self.hit("processes", node, f"imports {module}")
        if top in ("builtins", "__builtin__", "gc", "unittest", "pytest"):
            self.hit("patched-modules", node, f"imports {module}")
        if top == "autograder":
            self.hit("grading-detection", node, f"imports {module}")

    def visit_Import(self, node):
        for alias in node.names:
            self._imported(alias.name, node)
            bound = alias.asname or alias.name.split(".")[0]
            self.modules.add(bound)
            if alias.name.split(".")[0] == "perceptron_lib":
                if alias.asname and len(alias.name.split(".")) > 1 and alias.name.split(".")[1] in REFERENCE_MODULES:
                    self.hit("reference-solution", node, f"imports {alias.name}")
                self.reference_aliases.add(bound)
        self.generic_visit(node)

    def visit_ImportFrom(self, node):
        module = node.module or ""
        self._imported(module, node)
        if module.split(".")[0] == "perceptron_lib":
            parts = module.split(".")
            for alias in node.names:
                if alias.name == "*" and (len(parts) == 1 or parts[1] in REFERENCE_MODULES):
                    self.hit("reference-solution", node, f"from {module} import *")
                elif alias.name in REFERENCE_NAMES or alias.name in REFERENCE_MODULES \
                        or (len(parts) > 1 and parts[1] in REFERENCE_MODULES):
                    self.hit("reference-solution", node, f"from {module} import {alias.name}")
        else:
            for alias in node.names:
                if module in ("os", "posix") and alias.name in PROCESS_CALLS:
                    self.hit("processes", node, f"from {module} import {alias.name}")
                if alias.name in DETECTION_NAMES and module in ("os", "sys", "getpass", "socket", "platform"):
                    self.hit("grading-detection", node, f"from {module} import {alias.name}")
                if module == "sys" and alias.name in IMPORT_SYSTEM_ATTRS:
                    self.hit("import-system", node, f"from sys import {alias.name}")
        self.generic_visit(node)

    # names and attributes
    def visit_Name(self, node):
        if node.id == "get_ipython":
            pass  # judged at the call, where the magic's name is known
        elif node.id in ("__builtins__", "__import__"):
            self.hit("patched-modules" if node.id == "__builtins__" else "import-system", node, f"uses {node.id}")
        self.generic_visit(node)

    def visit_Attribute(self, node):
        dotted = _dotted(node) or ""
        root = _root_name(node)
        if dotted.startswith("get_ipython()") and node.attr in IPYTHON_INTERNALS:
            self.hit("ipython-hooks", node, f"uses {dotted}")
        if root in self.reference_aliases and (node.attr in REFERENCE_NAMES or node.attr in REFERENCE_MODULES):
            self.hit("reference-solution", node, f"uses {dotted}")
        if root == "sys" and node.attr in IMPORT_SYSTEM_ATTRS and dotted.count(".") == 1:
            self.hit("import-system", node, f"uses {dotted}")
        if node.attr in DETECTION_NAMES and root in ("os", "sys", "getpass", "socket", "platform"):
            self.hit("grading-detection", node, f"uses {dotted}")
        if node.attr in PROCESS_CALLS and root in ("os", "posix"):
            self.hit("processes", node, f"uses {dotted}")
        if node.attr in DIRECTORY_CALLS and root in {"os", "glob", "pathlib", "Path", "shutil"} | self.modules:
            self.hit("outside-paths", node, f"uses {dotted}")
        if node.attr in ("rmtree", "copytree", "move", "copyfile", "chown", "chmod", "symlink", "link", "rename",
                         "replace", "remove", "unlink") and root in ("os", "shutil"):
            self.hit("outside-paths", node, f"uses {dotted}")
        self.generic_visit(node)

    # assignments that patch modules
    def _check_target(self, target, node):
        if isinstance(target, ast.Attribute):
            root = _root_name(target)
            if root in MODULE_ROOTS or root in self.modules:
                self.hit("patched-modules", node, f"assigns {_dotted(target) or root + '...'}")
        elif isinstance(target, (ast.Tuple, ast.List)):
            for elt in target.elts:
                self._check_target(elt, node)
        elif isinstance(target, ast.Subscript):
            root = _root_name(target)
            dotted = _dotted(target.value) or ""
            if dotted in ("sys.modules", "__builtins__", "builtins.__dict__") or root == "__builtins__":
                self.hit("import-system" if "modules" in dotted else "patched-modules", node, f"assigns into {dotted}")

    def visit_Assign(self, node):
        for target in node.targets:
            self._check_target(target, node)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        self._check_target(node.target, node)
        self.generic_visit(node)

    def visit_AnnAssign(self, node):
        self._check_target(node.target, node)
        self.generic_visit(node)

    def visit_Delete(self, node):
        for target in node.targets:
            self._check_target(target, node)
        self.generic_visit(node)

    def visit_Call(self, node):
        func = node.func
        name = _dotted(func) or ""
        if name in ("getattr", "hasattr") and len(node.args) >= 2 and _root_name(node.args[0]) in self.reference_aliases \
                and isinstance(node.args[1], ast.Constant) and node.args[1].value in REFERENCE_NAMES | REFERENCE_MODULES:
            self.hit("reference-solution", node, f"calls {name} for {node.args[1].value!r}")
        if name in ("setattr", "delattr") and node.args:
            root = _root_name(node.args[0])
            if root in MODULE_ROOTS or root in self.modules:
                self.hit("patched-modules", node, f"calls {name} on {_dotted(node.args[0]) or root}")
        if name in ("exec", "eval", "compile") and node.args and not isinstance(node.args[0], ast.Constant):
            self.hit("import-system", node, f"calls {name} on computed code")
        if name.startswith("get_ipython()"):
            method = name[len("get_ipython()."):]
            first = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
            if method == "run_line_magic" and first in BENIGN_LINE_MAGICS:
                pass
            elif method == "run_cell_magic" and first in BENIGN_CELL_MAGICS:
                pass
            elif method in ("system", "getoutput"):
                self.hit("processes", node, "runs a shell command")
            else:
                what = f"the %{first} magic" if method in ("run_line_magic", "run_cell_magic") else f"get_ipython().{method or '...'}"
                self.hit("ipython-hooks", node, f"uses {what}")
        elif name == "get_ipython":
            parent = getattr(node, "_parent", None)
            if not isinstance(parent, ast.Attribute):
                self.hit("ipython-hooks", node, "uses get_ipython()")
        if name in ("reload", "importlib.reload", "importlib.import_module", "import_module"):
            self.hit("import-system", node, f"calls {name}")
        self.generic_visit(node)

    def visit_ClassDef(self, node):
        for item in node.body:
            names = []
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names = [item.name]
            elif isinstance(item, ast.Assign):
                names = [t.id for t in item.targets if isinstance(t, ast.Name)]
            for name in names:
                if name in EQUALITY_DUNDERS:
                    self.hit("custom-equality", item, f"class {node.name} defines {name}")
        self.generic_visit(node)

    def visit_Constant(self, node):
        # A bare string statement (a docstring) does nothing; only strings the code uses count.
        if isinstance(node.value, str) and not isinstance(getattr(node, "_parent", None), ast.Expr):
            self._scan_string(node.value, node)
        self.generic_visit(node)

    def _scan_string(self, text, node):
        if text in EQUALITY_DUNDERS:
            self.hit("custom-equality", node, f"names {text}")
        module_file = _module_file_in(text)
        if module_file:
            self.hit("module-file", node, f"names the file {module_file!r}")
        if OUTSIDE_PATH.search(text):
            self.hit("outside-paths", node, f"refers to {text[:60]!r}")
        if GRADING_WORDS.search(text):
            self.hit("grading-detection", node, f"mentions {GRADING_WORDS.search(text).group(0)!r}")


def _link_parents(tree):
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            child._parent = parent


_REGEX_RULES = [
    ("ipython-hooks", re.compile(r"get_ipython|input_transformers|ast_transformers|\bIPython\b|events\.register")),
    ("patched-modules", re.compile(r"\b(?:np|numpy|builtins|__builtins__|sys|os|math)\.[\w.]+\s*=[^=]|setattr\(\s*(?:np|numpy|builtins|__builtins__)")),
    ("import-system", re.compile(r"sys\.modules|sys\.meta_path|sys\.path|\bimportlib\b|__import__|\breload\(")),
    ("processes", re.compile(r"os\.(?:fork|kill|killpg|_exit|system|popen|exec\w*)\b|\bsubprocess\b|\bmultiprocessing\b|^\s*!", re.M)),
    ("grading-detection", re.compile(r"os\.environ|getenv|autograd|nbgrader|gradebook", re.I)),
    ("outside-paths", OUTSIDE_PATH),
    ("custom-equality", re.compile(r"def\s+__(?:eq|ne|bool)__")),
    ("reference-solution", re.compile(r"perceptron_lib[\w.]*\s+import\s+[^\n]*\b(?:" + "|".join(sorted(REFERENCE_NAMES)) + r"|\*)\b"
                                      r"|perceptron_lib\.(?:" + "|".join(sorted(REFERENCE_NAMES | REFERENCE_MODULES)) + r")\b")),
]


def _scan_regex(label, source, found):
    for code, pattern in _REGEX_RULES:
        match = pattern.search(source)
        if match:
            line = source[:match.start()].count("\n") + 1
            found.append((code, f"{label}, line {line}: {match.group(0).strip()[:60]!r} (code that does not parse, read as text)"))
    module_file = _module_file_in(source)
    if module_file:
        found.append(("module-file", f"{label}: names the file {module_file!r} (read as text)"))


def locked_definitions(release_nb):
    """The functions and classes the release's locked cells (not answers, not tests) define at their top level."""
    from perceptron_course.cells import is_test_cell, nbgrader_metadata

    names = set()
    for cell in release_nb.cells:
        meta = nbgrader_metadata(cell)
        if cell.cell_type != "code" or not meta.get("locked") or is_solution(cell) or is_test_cell(cell):
            continue
        try:
            tree = ast.parse(cell.source)
        except SyntaxError:
            continue
        names.update(node.name for node in tree.body
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)))
    return frozenset(names)


def _rebinds(tree, names):
    """``(line, name)`` of every top-level statement of ``tree`` that binds one of ``names``."""
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound = [node.name]
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            bound = [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            bound = [(alias.asname or alias.name).split(".")[0] for alias in node.names]
        else:
            continue
        for name in bound:
            if name in names:
                yield node.lineno, name


def scan_code(authored, locked=frozenset()):
    """Flags for the student's code: ``authored`` is a list of ``(label, source)``; ``locked`` the names the
    release's locked cells define (:func:`locked_definitions`), which the student's code must not replace."""
    from IPython.core.inputtransformer2 import TransformerManager

    transformer = TransformerManager()
    found = []
    for label, source in authored:
        if not source.strip():
            continue
        try:
            python = transformer.transform_cell(source)
            tree = ast.parse(python)
        except Exception:  # IPython's translation and the parser may fail in many ways on broken code
            _scan_regex(label, source, found)
            continue
        for line, name in _rebinds(tree, locked):
            found.append(("redefines-locked", f"{label}, line {line}: defines {name} again, which a locked cell "
                                              "of the release defines (a hidden check may call it)"))
        _link_parents(tree)
        try:
            _Scanner(label, found).visit(tree)
        except RecursionError:
            _scan_regex(label, source, found)
    by_code = {}
    for code, detail in found:
        by_code.setdefault(code, [])
        if detail not in by_code[code]:
            by_code[code].append(detail)
    return [Flag(code, "; ".join(details[:3]) + (f"; and {len(details) - 3} more" if len(details) > 3 else ""))
            for code, details in sorted(by_code.items())]


def scan_folder(folder, original_names, *, max_entries=10_000):
    """Flag module-named files the run created in the student's folder (not those it started with)."""
    created = []
    seen = 0
    for root, dirs, files in os.walk(folder):
        dirs[:] = [d for d in dirs if not os.path.islink(os.path.join(root, d))]
        for name in dirs + files:
            seen += 1
            if seen > max_entries:
                break
            rel = os.path.relpath(os.path.join(root, name), folder)
            if rel in original_names:
                continue
            stem, ext = os.path.splitext(name)
            is_package = name in dirs and os.path.exists(os.path.join(root, name, "__init__.py"))
            if ext == ".pth" or (ext in (".py", ".pyc", ".so") or is_package) and stem in _module_names():
                created.append(rel)
    if created:
        return [Flag("module-file", "left in its folder: " + ", ".join(sorted(created)[:5]))]
    return []
