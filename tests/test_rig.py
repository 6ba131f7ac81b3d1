"""The rig itself: a qbittorrent-nox whose port was taken meanwhile is started again on other ports."""

from __future__ import annotations

import socket
from typing import TYPE_CHECKING

from .rig import qbittorrent as rig

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


async def test_a_port_taken_after_it_was_chosen_is_chosen_again(
    socket_enabled: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a busy machine another process can bind the free port before qBittorrent does."""
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", 0))
        squatter.listen()
        taken = squatter.getsockname()[1]
        choose_free_port = rig.free_port
        chosen = iter([taken])  # the Web UI port comes first
        monkeypatch.setattr(rig, "free_port", lambda: next(chosen, None) or choose_free_port())

        instance = await rig.start_instance(tmp_path)
        try:
            assert instance.port != taken
            assert instance.running
            assert await rig._http_answers(instance.port)
        finally:
            await rig.close_instance(instance)
