"""The test rig: real qbittorrent-nox and loopback HTTP servers standing in for the outside services.

Fixtures (defined in tests/conftest.py): ``qbittorrent``, ``llm_server``, ``tmdb_server``, ``knaben_server``,
``torznab_server``, ``entry_data``, ``entry_data_without_qbittorrent``, ``entry_options``, ``core_setup``,
``config_entry``, ``setup_integration``, ``snapshot``.
Helpers to import: ``from tests.rig.torrents import make_local_torrent``; waiting on a condition and what
qBittorrent lists: ``tests/helpers.py`` (``wait_until``, ``wait_for_torrent``, ``torrents_in_qbittorrent``).
"""

from .knaben_server import KnabenServer
from .llm_server import ScriptedLLMServer
from .qbittorrent import QBittorrentInstance
from .tmdb_server import TMDBServer
from .torrents import LocalTorrent, make_local_torrent
from .torznab_server import TorznabServer

__all__ = [
    "KnabenServer",
    "LocalTorrent",
    "QBittorrentInstance",
    "ScriptedLLMServer",
    "TMDBServer",
    "TorznabServer",
    "make_local_torrent",
]
