"""Print the requirements of the Home Assistant components the tests load.

pytest-homeassistant-custom-component installs Home Assistant without the
requirements of its components (hassil for conversation, for example); this
walks the manifests of the components we load, with their dependencies, and
prints their requirements so pip can install them under HA's own constraints.
"""

from __future__ import annotations

import json
from pathlib import Path
import sys

import homeassistant.components

COMPONENTS_DIR = Path(next(iter(homeassistant.components.__path__)))


def collect(roots: list[str]) -> set[str]:
    """Return the requirements of roots and their dependencies."""
    seen: set[str] = set()
    requirements: set[str] = set()
    pending = list(roots)
    while pending:
        domain = pending.pop()
        if domain in seen:
            continue
        seen.add(domain)
        manifest_path = COMPONENTS_DIR / domain / "manifest.json"
        if not manifest_path.exists():
            continue
        manifest = json.loads(manifest_path.read_text())
        requirements.update(manifest.get("requirements", []))
        pending.extend(manifest.get("dependencies", []))
    return requirements


if __name__ == "__main__":
    print("\n".join(sorted(collect(sys.argv[1:]))))
