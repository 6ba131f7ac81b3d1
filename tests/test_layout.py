"""The layers of the package, read from the source as a reader sees it (TYPE_CHECKING imports included).

Data flows one way (docs/architecture.md): the coordinator only watches, the lifecycle reacts, the operations
act below every surface; no module imports one that imports it back; classes and modules stay small; nothing
of ours listens to our own bus events (they are for people's automations).
"""

from __future__ import annotations

import ast
from pathlib import Path

import custom_components.agent_media as integration
from custom_components.agent_media.const import DOMAIN

PACKAGE = Path(integration.__file__).parent
OPERATIONS = "operations"
# What the operations may never import: the set-up and runtime data, the lifecycle, the surfaces.
ABOVE_OPERATIONS = (
    "__init__",
    "data",
    "coordinator",
    "lifecycle",
    "replacement",
    "wanted",
    "library",
    "announce",
    "services",
    "config_flow",
    "conversation",
    "http",
    "llm_api",
    "llm",
    "agent",
    "sensor",
    "event",
    "image",
)
# What acts on downloads, or reaches what does: the coordinator imports none of it.
ACTING = ("announce", "data", "library", "lifecycle", "news", "operations", "replacement", "wanted")
MAX_CLASS_LINES = 400
MAX_MODULE_LINES = 800


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts) or "__init__"


MODULES = {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _imports(name: str) -> set[str]:
    """Return the package's modules a module imports (`from package import submodule` names the submodule)."""
    path = MODULES[name]
    base = [] if name == "__init__" else name.split(".")
    if path.name != "__init__.py":
        base = base[:-1]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom) or not node.level:
            continue
        parent = base[: len(base) - (node.level - 1)] if node.level > 1 else base
        target = ".".join([*parent, *([node.module] if node.module else [])]) or "__init__"
        for alias in node.names:
            sub = f"{target}.{alias.name}" if target != "__init__" else alias.name
            found.add(sub if sub in MODULES else target)
    return found & MODULES.keys() - {name}


GRAPH = {name: _imports(name) for name in MODULES}


def _reachable(start: str) -> set[str]:
    seen: set[str] = set()
    todo = list(GRAPH[start])
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(GRAPH[name])
    return seen


def _operations_modules() -> list[str]:
    return sorted(name for name in MODULES if name == OPERATIONS or name.startswith(f"{OPERATIONS}."))


def test_the_operations_import_nothing_above_them() -> None:
    for name in _operations_modules():
        above = {
            target
            for target in _reachable(name)
            if any(target == banned or target.startswith(f"{banned}.") for banned in ABOVE_OPERATIONS)
        }
        assert not above, f"operations module {name} reaches {sorted(above)}"


def test_no_module_is_in_an_import_cycle() -> None:
    cycles = sorted(name for name in MODULES if name in _reachable(name))
    assert not cycles, f"these import themselves through others: {cycles}"


def test_the_coordinator_only_watches() -> None:
    acting = {
        target
        for target in _reachable("coordinator")
        if any(target == banned or target.startswith(f"{banned}.") for banned in ACTING)
    }
    assert not acting, f"the coordinator reaches {sorted(acting)}"


def test_classes_and_modules_are_small() -> None:
    for name, path in MODULES.items():
        source = path.read_text(encoding="utf-8")
        assert source.count("\n") <= MAX_MODULE_LINES, name
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.ClassDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                assert lines <= MAX_CLASS_LINES, f"{name}.{node.name}: {lines} lines"


def test_nothing_of_ours_listens_to_our_bus_events() -> None:
    """Inside an entry, signals go through the dispatcher: a bus listener here would bend the flow back up."""
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in {"async_listen", "async_listen_once"}
            ):
                first = ast.unparse(node.args[0]) if node.args else ""
                assert not first.startswith("EVENT_"), f"{name} listens to {first}"
                assert DOMAIN not in first, f"{name} listens to {first}"
