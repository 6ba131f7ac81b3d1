"""Playing the library: its titles and files, and "play Sintel on the living room TV".

The library is what the lifecycle organised (memory's `library` section, by title key) in the movie and
tv_show folders. Files are found in the executor, only inside the title's own folder as resolved now (a
symlink cannot lead outside). Playing goes through Home Assistant's `media_player.play_media` with the file's
media-source id, in the caller's context: a person cannot play on a player they cannot control.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Final

from homeassistant.auth.permissions.const import POLICY_CONTROL
from homeassistant.core import Context
from homeassistant.exceptions import HomeAssistantError, Unauthorized

from ..const import DOMAIN, VIDEO_EXTENSIONS
from ..errors import CANNOT_CONTROL_PLAYER, ErrorCode, OperationError
from ..ranking import normalize_title, parse_release
from ..requester import Permission, RequesterKind
from .base import OperationsPart
from .describe import media_label
from .folders import real_folder_path
from .wanted import named_keys

if TYPE_CHECKING:
    from ..memory import LibraryTitle
    from ..requester import Requester
    from .base import Request

MEDIA_SOURCE_PREFIX: Final = f"media-source://{DOMAIN}/"
PLAYER_DOMAIN: Final = "media_player"
LIBRARY_FOLDERS: Final = {"movie": "movie", "tv": "tv_show"}  # the household folder of each kind
MAX_FILES: Final = 500  # videos listed per title


@dataclass(frozen=True, slots=True)
class LibraryFile:
    """A video of a title: its path inside the title's folder, and the episode it is, when it is one."""

    relative: str
    season: int | None = None
    episode: int | None = None


@dataclass(frozen=True, slots=True)
class Played:
    """What was sent to a player."""

    label: str
    entity_id: str
    media_content_id: str


def media_source_id(entry_id: str, key: str, relative: str | None = None) -> str:
    """Return the media-source id of a title (a folder to browse) or of one of its files."""
    identifier = f"{entry_id}/{key}" if relative is None else f"{entry_id}/{key}/{relative}"
    return f"{MEDIA_SOURCE_PREFIX}{identifier}"


def _scan(root: Path) -> list[LibraryFile]:
    """Return the videos under a title's folder, episodes in order. Blocking (executor)."""
    real_root = root.resolve()
    if not real_root.is_dir():
        return []
    found = []
    for path in sorted(real_root.rglob("*")):
        if path.suffix.lower() not in VIDEO_EXTENSIONS or not path.resolve().is_relative_to(real_root):
            continue
        if not path.is_file():
            continue
        parsed = parse_release(path.name)
        found.append(
            LibraryFile(
                relative=path.relative_to(real_root).as_posix(),
                season=parsed.seasons[0] if len(parsed.seasons) == 1 else None,
                episode=parsed.episodes[0] if parsed.episodes else None,
            )
        )
        if len(found) >= MAX_FILES:
            break
    found.sort(key=lambda item: (item.season or 0, item.episode or 0, item.relative))
    return found


class Playing(OperationsPart):
    """The organised library, and playing it on a media player."""

    def titles(self, requester: Requester) -> dict[str, LibraryTitle]:
        """Return the organised titles by key."""
        self.require(requester, Permission.READ)
        return self.memory.library.titles()

    def _title_root(self, title: LibraryTitle) -> Path:
        """Return a title's folder, resolved and checked now. Blocking (executor)."""
        folder = self.memory.household.folder(
            LIBRARY_FOLDERS.get(str(title["media"].get("media_type")), "movie")
        )
        if folder is None:
            raise OperationError(ErrorCode.NOT_FOUND, "not_in_library", title=media_label(title["media"]))
        real_root, problem = real_folder_path(self.hass, folder)
        if problem is not None:
            raise OperationError(problem[0], problem[1], path=folder)
        root = Path(real_root)
        title_root = (root / title["folder"]).resolve()
        if not title_root.is_relative_to(root):
            raise OperationError(ErrorCode.NOT_ALLOWED, "not_in_library", title=title["folder"])
        return title_root

    def _title(self, key: str) -> LibraryTitle:
        if (title := self.memory.library.titles().get(key)) is None:
            raise OperationError(ErrorCode.NOT_FOUND, "not_in_library", title=key[:60])
        return title

    async def async_files(self, requester: Requester, key: str) -> list[LibraryFile]:
        """Return a title's videos (a film's, or a show's episodes in order)."""
        self.require(requester, Permission.READ)
        title = self._title(key)

        def scan() -> list[LibraryFile]:
            return _scan(self._title_root(title))

        return await self.hass.async_add_executor_job(scan)

    async def async_file_path(self, requester: Requester, key: str, relative: str) -> Path:
        """Return the real path of one of a title's videos; not_found for anything else."""
        self.require(requester, Permission.READ)
        title = self._title(key)
        wanted = PurePosixPath(relative)
        if wanted.is_absolute() or ".." in wanted.parts or wanted.suffix.lower() not in VIDEO_EXTENSIONS:
            raise OperationError(ErrorCode.NOT_FOUND, "not_in_library", title=relative[:60])

        def locate() -> Path:
            root = self._title_root(title)
            path = (root / wanted).resolve()
            if not path.is_relative_to(root) or not path.is_file():
                raise OperationError(ErrorCode.NOT_FOUND, "not_in_library", title=relative[:60])
            return path

        return await self.hass.async_add_executor_job(locate)

    async def async_play(
        self,
        request: Request,
        *,
        player: str,
        title: str | None = None,
        media_content_id: str | None = None,
    ) -> Played:
        """Play a title of the library (none: the one organised last, "play it") on the player named."""
        requester = request.requester
        self.require(requester, Permission.READ)
        entity_id = self._player(player)
        await self._async_check_control(requester, entity_id)
        if media_content_id is not None:
            if not media_content_id.startswith(MEDIA_SOURCE_PREFIX):
                raise OperationError(ErrorCode.BAD_ARGS, "not_in_library", title=media_content_id[:60])
            label = media_content_id.removeprefix(MEDIA_SOURCE_PREFIX).rsplit("/", 1)[-1]
        else:
            key = self._named_title(title)
            files = await self.async_files(requester, key)
            if not files:
                raise OperationError(ErrorCode.NOT_FOUND, "not_in_library", title=title or key)
            chosen = files[-1] if len(files) > 1 and files[-1].episode is not None else files[0]
            media = self._title(key)["media"]
            label = media_label(media, chosen.season, chosen.episode)
            media_content_id = media_source_id(self.collaborators.entry_id, key, chosen.relative)
        try:
            await self.hass.services.async_call(
                PLAYER_DOMAIN,
                "play_media",
                {"entity_id": entity_id, "media_content_id": media_content_id, "media_content_type": "video"},
                blocking=True,
                context=Context(user_id=requester.user_id),
            )
        except Unauthorized as err:
            raise OperationError(ErrorCode.NOT_ALLOWED, CANNOT_CONTROL_PLAYER, player=entity_id) from err
        except HomeAssistantError as err:
            raise OperationError(
                ErrorCode.REJECTED, "play_failed", player=entity_id, error=str(err)[:200]
            ) from err
        return Played(label=label, entity_id=entity_id, media_content_id=media_content_id)

    def _named_title(self, words: str | None) -> str:
        """Return the key of the title the words name; none: the one organised last."""
        titles = self.memory.library.titles()
        if not titles:
            raise OperationError(ErrorCode.NOT_FOUND, "not_in_library", title=words or "")
        if words is None:
            return max(titles, key=lambda key: titles[key]["updated"])
        keys = named_keys(words, {key: title["media"] for key, title in titles.items()})
        if not keys:
            raise OperationError(ErrorCode.NOT_FOUND, "not_in_library", title=words)
        return keys[0]

    def _player(self, words: str) -> str:
        """Return the media player an entity id or its name's words name ("the living room TV")."""
        players = self.hass.states.async_all(PLAYER_DOMAIN)
        if any(state.entity_id == words for state in players):
            return words
        said = set(normalize_title(words).split())
        best: tuple[int, str] | None = None
        for state in players:
            name = set(normalize_title(str(state.name)).split())
            if name and said and (name <= said or said <= name):
                common = len(name & said)
                if best is None or common > best[0]:
                    best = (common, state.entity_id)
        if best is None:
            raise OperationError(ErrorCode.NOT_FOUND, "no_such_player", player=words[:60])
        return best[1]

    async def _async_check_control(self, requester: Requester, entity_id: str) -> None:
        """Raise not_allowed when a person may not control the player (Home Assistant's own permissions)."""
        if requester.kind is not RequesterKind.USER or requester.user_id is None:
            return
        user = await self.hass.auth.async_get_user(requester.user_id)
        if user is None or not user.permissions.check_entity(entity_id, POLICY_CONTROL):
            raise OperationError(ErrorCode.NOT_ALLOWED, CANNOT_CONTROL_PLAYER, player=entity_id)
