"""Print requirements to install into a test or demo environment, one per line.

pytest-homeassistant-custom-component installs Home Assistant without the requirements of its components
(hassil for conversation, for example). Given component names, this walks their manifests and those of
their dependencies and prints their requirements, so pip can install them under HA's own constraints.

  --integration   also print Agent Media's own requirements, from its manifest.json
  --floors        print only Agent Media's requirements pinned at their floors (">=1.2" becomes "==1.2"):
                  what a Home Assistant whose core integrations pin those very versions gives it
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import homeassistant.components

COMPONENTS_DIR = Path(next(iter(homeassistant.components.__path__)))
MANIFEST = Path(__file__).parent.parent / "custom_components" / "agent_media" / "manifest.json"


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


def integration_requirements() -> list[str]:
    """Return Agent Media's requirements as its manifest states them."""
    requirements: list[str] = json.loads(MANIFEST.read_text())["requirements"]
    return requirements


def at_floor(requirement: str) -> str:
    """Pin a "name>=version" requirement at its floor."""
    name, separator, version = requirement.partition(">=")
    if not separator or not version:
        raise SystemExit(f"{MANIFEST}: {requirement!r} has no >= floor")
    return f"{name}=={version}"


def main() -> None:
    """Print the requirements the arguments ask for."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("components", nargs="*", help="Home Assistant components the environment loads")
    parser.add_argument("--integration", action="store_true", help="add Agent Media's requirements")
    parser.add_argument("--floors", action="store_true", help="only Agent Media's requirements, at floor")
    args = parser.parse_args()
    if args.floors:
        print("\n".join(at_floor(requirement) for requirement in integration_requirements()))
        return
    requirements = collect(args.components)
    if args.integration:
        requirements.update(integration_requirements())
    print("\n".join(sorted(requirements)))


if __name__ == "__main__":
    main()
