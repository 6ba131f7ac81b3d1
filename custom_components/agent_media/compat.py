"""Every difference between the Home Assistant versions we support (2025.4 up to the newest), in one place.

Code elsewhere calls these helpers instead of testing versions or attributes itself.
"""

from __future__ import annotations
