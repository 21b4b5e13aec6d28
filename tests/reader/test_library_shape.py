"""One ``Library`` class over plain operation functions (#23 item 7): every operation is
declared where it is defined, every public method that answers from ``dist/`` runs one
through ``Library._run`` (counted, locked when it spends, pinned to one build), and no
reader module reaches into the Library or a private member of another object."""
from __future__ import annotations

import ast
import importlib
import pkgutil
import threading
from pathlib import Path

import skillsite.reader
from skillsite.reader import Library
from skillsite.reader.session import BUDGET, SAFE_COUNTS, Operation

READER = Path(skillsite.reader.__file__).parent
#: Library methods that run no operation: views of the Library, a cheap membership test
#: and the libraries refused.
NOT_OPERATIONS = {"client", "counting", "forget_client", "session", "has_skill", "refused"}
CALLS = {"context": (), "search": ("pdf",), "recommend": ("fill a pdf form",),
         "open": ("pdf-forms",), "read": ("pdf-forms",), "resolve": ("pdf-forms",),
         "related": ("pdf-forms",), "compose": ("pdf-forms",), "prompt": (["pdf-forms"],),
         "verify": (), "skill_file": ("pdf-forms",), "skill_files": ("pdf-forms",),
         "front_matter": ("pdf-forms",), "front_matter_data": ("pdf-forms",), "names": ()}


def declared_operations() -> dict[str, Operation]:  # type: ignore[type-arg]
    found = {}
    for module in pkgutil.iter_modules([str(READER)]):
        loaded = importlib.import_module(f"skillsite.reader.{module.name}")
        for value in vars(loaded).values():
            if isinstance(value, Operation) and value.function.__module__ == loaded.__name__:
                found[value.name] = value
    return found


def test_every_public_method_runs_a_declared_operation_and_is_counted(dist: Path) -> None:
    operations = declared_operations()
    public = {name for name in dir(Library) if not name.startswith("_")
              and callable(getattr(Library, name))} - NOT_OPERATIONS
    assert public == set(operations) == set(CALLS)
    library = Library(dist)
    for name, args in CALLS.items():
        getattr(library, name)(*args)
        assert library.retrieval.calls.get(name) == 1, name


def test_what_an_operation_spends_is_declared_with_it() -> None:
    operations = declared_operations()
    assert {n for n, o in operations.items() if o.spends == BUDGET} == {
        "read", "resolve", "skill_file"}
    assert {n for n, o in operations.items() if o.spends == SAFE_COUNTS} == {
        "compose", "open", "recommend", "related", "search"}


def test_an_operation_that_spends_a_budget_waits_for_the_clients_running_call(
        dist: Path) -> None:
    library = Library(dist, max_chars=100_000)
    done = {name: threading.Event() for name in ("read", "context")}

    def call(name: str) -> None:
        getattr(library, name)(*CALLS[name])
        done[name].set()

    assert library._lock is not None
    with library._lock:  # as a running call of this client holds it
        threads = [threading.Thread(target=call, args=(name,)) for name in done]
        for thread in threads:
            thread.start()
        assert done["context"].wait(10)     # spends nothing: served meanwhile
        assert not done["read"].wait(0.3)   # spends the budget: waits
    assert done["read"].wait(10)
    for thread in threads:
        thread.join(10)


def own_names(tree: ast.Module) -> dict[ast.AST, set[str]]:
    """For each function of a class: the names that hold an object of that class (``self``,
    ``cls``, a ``copy.copy(self)``, a new instance), whose private members it may touch."""
    found: dict[ast.AST, set[str]] = {}
    for cls in (n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)):
        for function in (n for n in ast.walk(cls) if isinstance(n, ast.FunctionDef)):
            names = {"self", "cls"}
            for node in ast.walk(function):
                if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                        and (ast.unparse(node.value.func) == cls.name
                             or ast.unparse(node.value) == "copy.copy(self)")):
                    names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            for node in ast.walk(function):
                found[node] = names
    return found


def test_no_reader_module_imports_the_library_or_reaches_into_private_members() -> None:
    offenders = []
    for path in sorted(READER.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        own = own_names(tree)
        for node in ast.walk(tree):
            if (isinstance(node, ast.ImportFrom) and node.module == "skillsite.reader.library"
                    and path.name != "__init__.py"):
                offenders.append(f"{path.name}: imports the Library")
            if (isinstance(node, ast.Attribute) and node.attr.startswith("_")
                    and not node.attr.startswith("__")
                    and not (isinstance(node.value, ast.Name)
                             and node.value.id in own.get(node, {"self", "cls"}))):
                offenders.append(f"{path.name}:{node.lineno}: .{node.attr}")
    assert offenders == []
