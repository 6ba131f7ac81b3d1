"""A Store that cannot be written: a translated repair issue, and an error where the caller waits for it.

Home Assistant's Store logs a failed write and carries on, so nobody would know the household's settings
will be gone after a restart. The failure is made at the outer edge of the Store's write (what the test
harness already replaces with its in-memory storage): the disk refuses it, as a full or read-only disk does.
"""

from __future__ import annotations

from datetime import timedelta
import errno
import logging
from typing import TYPE_CHECKING, Any
from unittest.mock import patch

import pytest
from pytest_homeassistant_custom_component.common import async_fire_time_changed

from custom_components.agent_media.const import DOMAIN, storage_key
from custom_components.agent_media.memory import SAVE_DELAY
from homeassistant.exceptions import HomeAssistantError
from homeassistant.helpers import issue_registry as ir
from homeassistant.helpers.storage import Store
from homeassistant.helpers.translation import async_get_translations
from homeassistant.util import dt as dt_util

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from pytest_homeassistant_custom_component.common import MockConfigEntry

    from homeassistant.core import HomeAssistant


class RefusingDisk:
    """The Store's write for one key fails as a read-only disk makes it fail; other keys are written."""

    def __init__(self, key: str) -> None:
        self.key = key
        self.refusing = True
        self.refused = 0
        self._write = Store._async_write_data  # the harness's in-memory write

    async def __call__(self, store: Store[Any], *args: Any) -> None:
        if store.key == self.key and self.refusing:
            self.refused += 1
            raise OSError(errno.EROFS, "Read-only file system", store.path)
        await self._write(store, *args)


@pytest.fixture
def disk(setup_integration: MockConfigEntry) -> Iterator[RefusingDisk]:
    refusing = RefusingDisk(storage_key(setup_integration.entry_id))

    async def write(store: Store[Any], *args: Any) -> None:
        await refusing(store, *args)

    with patch.object(Store, "_async_write_data", write):
        yield refusing


def _issue(hass: HomeAssistant, entry: MockConfigEntry) -> ir.IssueEntry | None:
    return ir.async_get(hass).async_get_issue(DOMAIN, f"memory_not_saved_{entry.entry_id}")


async def test_an_action_answers_with_an_error_and_a_repair_issue_says_why(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    disk: RefusingDisk,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
) -> None:
    entry = setup_integration
    movies = tmp_path / "movies"
    movies.mkdir()
    hass.config.allowlist_external_dirs = {str(tmp_path)}

    with pytest.raises(HomeAssistantError) as err:
        await hass.services.async_call(
            DOMAIN,
            "set_folder",
            {"folder": "movie", "path": str(movies)},
            blocking=True,
            return_response=True,
        )

    assert err.value.translation_key == "memory_not_saved"
    assert "Read-only file system" in str(err.value.translation_placeholders)
    assert disk.refused == 1
    issue = _issue(hass, entry)
    assert issue is not None
    assert (issue.translation_key, issue.severity) == ("memory_not_saved", ir.IssueSeverity.ERROR)
    translations = await async_get_translations(hass, "en", "issues", [DOMAIN])
    title = translations[f"component.{DOMAIN}.issues.memory_not_saved.title"]
    assert title
    description = translations[f"component.{DOMAIN}.issues.memory_not_saved.description"]
    assert "{error}" in description
    # Nothing was lost meanwhile: the change holds until a restart, and is written once it can be.
    assert entry.runtime_data.memory.household.folder("movie") == str(movies)
    assert not [record for record in caplog.records if record.exc_info and record.levelno >= logging.ERROR]

    disk.refusing = False
    response = await hass.services.async_call(
        DOMAIN, "set_folder", {"folder": "movie", "path": str(movies)}, blocking=True, return_response=True
    )
    assert response == {"folder": "movie", "path": str(movies)}
    assert _issue(hass, entry) is None


async def test_a_delayed_save_that_fails_raises_the_repair_issue(
    hass: HomeAssistant,
    setup_integration: MockConfigEntry,
    disk: RefusingDisk,
    hass_storage: dict[str, Any],
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Nobody waits for a conversation's writes: the repair issue is what tells."""
    entry = setup_integration
    entry.runtime_data.memory.journal.add_error("find_torrents", "not_found", "Nothing for Sintel.")
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=SAVE_DELAY + 1))
    await hass.async_block_till_done()

    assert disk.refused == 1
    assert _issue(hass, entry) is not None
    assert not [record for record in caplog.records if record.exc_info and record.levelno >= logging.ERROR]

    disk.refusing = False
    entry.runtime_data.memory.journal.add_error("find_torrents", "not_found", "Nothing for Nosferatu.")
    async_fire_time_changed(hass, dt_util.utcnow() + timedelta(seconds=2 * SAVE_DELAY + 2))
    await hass.async_block_till_done()

    assert _issue(hass, entry) is None
    errors = hass_storage[storage_key(entry.entry_id)]["data"]["journal"]["errors"]
    assert [error["message"] for error in errors] == ["Nothing for Sintel.", "Nothing for Nosferatu."]
