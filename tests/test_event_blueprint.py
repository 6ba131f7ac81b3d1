"""The completion blueprint: valid for Home Assistant, triggered by our event, and a message that reads well.

The notification itself is a mobile_app device action, which needs a Companion-app device (and PyNaCl, which
the test environments lack); what the blueprint contributes — the trigger, the entry filter and the message —
is checked with Home Assistant's own blueprint, condition and template machinery.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from custom_components.agent_media.const import EVENT_DOWNLOAD_COMPLETED
from homeassistant.components.blueprint.models import Blueprint, BlueprintInputs
from homeassistant.components.blueprint.schemas import BLUEPRINT_SCHEMA
from homeassistant.helpers import condition, config_validation as cv, template
from homeassistant.util.yaml import load_yaml_dict

if TYPE_CHECKING:
    from homeassistant.core import HomeAssistant

BLUEPRINT_PATH = (
    Path(__file__).parent.parent
    / "blueprints"
    / "automation"
    / "agent_media"
    / "download_completed_notify.yaml"
)
ENTRY_ID = "01JAGENTMEDIAENTRY0000000"
DEVICE_ID = "0123456789abcdef0123456789abcdef"


def automation_config(**inputs: Any) -> dict[str, Any]:
    """Return the automation the blueprint makes with these inputs."""
    blueprint = Blueprint(
        load_yaml_dict(str(BLUEPRINT_PATH)), expected_domain="automation", schema=BLUEPRINT_SCHEMA
    )
    assert blueprint.validate() is None  # runs on this Home Assistant version
    config_inputs = BlueprintInputs(
        blueprint, {"use_blueprint": {"path": "agent_media/download_completed_notify.yaml", "input": inputs}}
    )
    config_inputs.validate()
    return config_inputs.async_substitute()


def trigger_variables(config: dict[str, Any], data: dict[str, Any]) -> dict[str, Any]:
    """Variables as the automation sees them when our event triggers it."""
    variables = {
        "trigger": {"platform": "event", "event": {"event_type": EVENT_DOWNLOAD_COMPLETED, "data": data}}
    }
    return {**variables, **config["variables"]}


async def render_message(hass: HomeAssistant, config: dict[str, Any], data: dict[str, Any]) -> str:
    message = template.Template(config["actions"][0]["message"], hass)
    return str(message.async_render(trigger_variables(config, data), parse_result=False)).strip()


async def passes_conditions(hass: HomeAssistant, config: dict[str, Any], data: dict[str, Any]) -> bool:
    results = []
    for condition_config in config["conditions"]:
        validated = await condition.async_validate_condition_config(
            hass, cv.CONDITION_SCHEMA(condition_config)
        )
        check = await condition.async_from_config(hass, validated)
        results.append(check(hass, trigger_variables(config, data)))
    return all(results)


async def test_blueprint_notifies_the_chosen_device(hass: HomeAssistant) -> None:
    config = automation_config(notify_device=DEVICE_ID)
    assert config["triggers"] == [{"trigger": "event", "event_type": EVENT_DOWNLOAD_COMPLETED}]
    action = config["actions"][0]
    assert (action["domain"], action["type"], action["device_id"]) == ("mobile_app", "notify", DEVICE_ID)
    assert action["title"] == "Download complete"


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        (
            {
                "entry_id": ENTRY_ID,
                "hash": "a" * 40,
                "name": "Big.Buck.Bunny.2008.1080p.mkv",
                "title": "Big Buck Bunny",
                "year": 2008,
                "imdb_id": "tt1254207",
                "media_type": "movie",
            },
            "Big Buck Bunny (2008) has finished downloading.",
        ),
        (
            {"entry_id": ENTRY_ID, "hash": "b" * 40, "name": "Sintel", "title": "Sintel"},
            "Sintel has finished downloading.",
        ),
        (
            {"entry_id": ENTRY_ID, "hash": "c" * 40, "name": "Elephants.Dream.2006.mkv"},
            "Elephants.Dream.2006.mkv has finished downloading.",
        ),
    ],
)
async def test_message_names_the_media(hass: HomeAssistant, data: dict[str, Any], expected: str) -> None:
    config = automation_config(notify_device=DEVICE_ID)
    assert await render_message(hass, config, data) == expected


async def test_entry_filter(hass: HomeAssistant) -> None:
    ours = {"entry_id": ENTRY_ID, "hash": "a" * 40, "name": "Sintel"}
    theirs = {"entry_id": "another-entry", "hash": "b" * 40, "name": "Sintel"}
    every_entry = automation_config(notify_device=DEVICE_ID)
    assert await passes_conditions(hass, every_entry, ours)
    assert await passes_conditions(hass, every_entry, theirs)

    one_entry = automation_config(notify_device=DEVICE_ID, config_entry=ENTRY_ID, title="Film ready")
    assert await passes_conditions(hass, one_entry, ours)
    assert not await passes_conditions(hass, one_entry, theirs)
    assert one_entry["actions"][0]["title"] == "Film ready"
