"""Config flow for Agent Media: LLM → qBittorrent → TMDB, then options, reauth, reconfigure, indexers."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import voluptuous as vol
from yarl import URL

from homeassistant.config_entries import (
    ConfigEntryState,
    ConfigFlow,
    ConfigFlowResult,
    ConfigSubentryFlow,
    OptionsFlow,
    SubentryFlowResult,
)
from homeassistant.const import CONF_NAME
from homeassistant.core import HomeAssistant, callback
from homeassistant.data_entry_flow import section
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from homeassistant.helpers.httpx_client import get_async_client
from homeassistant.helpers.selector import (
    BooleanSelector,
    EntitySelector,
    EntitySelectorConfig,
    NumberSelector,
    NumberSelectorConfig,
    NumberSelectorMode,
    SelectSelector,
    SelectSelectorConfig,
    SelectSelectorMode,
    TemplateSelector,
    TextSelector,
    TextSelectorConfig,
    TextSelectorType,
)

from .agent_flow import agent_subentry_flows, default_agent
from .clients._http import NO_RETRY
from .clients.errors import AgentMediaClientError, BannedError, CannotConnectError, InvalidAuthError
from .clients.llm import LLMClient
from .clients.qbittorrent import QBittorrentClient, normalize_url as url_with_scheme
from .clients.tmdb import TMDBClient
from .clients.torznab import TorznabClient, normalize_api_url
from .const import (
    CODEC_CHOICES,
    CONF_ALLOW_NON_ADMIN_SETTINGS,
    CONF_ANNOUNCE_COMPLETIONS,
    CONF_ANNOUNCE_TARGET,
    CONF_INDEXER_API_KEY,
    CONF_INDEXER_TIMEOUT,
    CONF_INDEXER_URL,
    CONF_KNABEN_URL,
    CONF_LIBRARY_REFRESH,
    CONF_LLM_API_KEY,
    CONF_LLM_BASE_URL,
    CONF_LLM_MODEL,
    CONF_LOCAL_SENTENCES,
    CONF_MAX_HISTORY_MESSAGES,
    CONF_MAX_SIZE_GB,
    CONF_MAX_TOOL_ITERATIONS,
    CONF_ORGANIZE_LIBRARY,
    CONF_PREFERRED_CODEC,
    CONF_PREFERRED_LANGUAGES,
    CONF_PREFERRED_RESOLUTION,
    CONF_PROMPT,
    CONF_QBITTORRENT_API_KEY,
    CONF_QBITTORRENT_PASSWORD,
    CONF_QBITTORRENT_URL,
    CONF_QBITTORRENT_USERNAME,
    CONF_QBITTORRENT_VERIFY_SSL,
    CONF_SCAN_INTERVAL,
    CONF_STALLED_TIMEOUT,
    CONF_TEMPERATURE,
    CONF_TMDB_API_KEY,
    CONF_TMDB_URL,
    CONF_TURN_TIMEOUT,
    DEFAULT_AGENT_NAME,
    DEFAULT_ALLOW_NON_ADMIN_SETTINGS,
    DEFAULT_ANNOUNCE_COMPLETIONS,
    DEFAULT_INDEXER_NAME,
    DEFAULT_INDEXER_TIMEOUT,
    DEFAULT_KNABEN_URL,
    DEFAULT_LOCAL_SENTENCES,
    DEFAULT_MAX_HISTORY_MESSAGES,
    DEFAULT_MAX_SIZE_GB,
    DEFAULT_MAX_TOOL_ITERATIONS,
    DEFAULT_ORGANIZE_LIBRARY,
    DEFAULT_PREFERRED_CODEC,
    DEFAULT_PREFERRED_RESOLUTION,
    DEFAULT_SCAN_INTERVAL,
    DEFAULT_STALLED_TIMEOUT,
    DEFAULT_TEMPERATURE,
    DEFAULT_TMDB_URL,
    DEFAULT_TURN_TIMEOUT,
    DOMAIN,
    INDEXER_TIMEOUT_RANGE,
    LLM_PROVIDER_CUSTOM,
    LLM_PROVIDER_MODELS,
    LLM_PROVIDER_NONE,
    LLM_PROVIDER_URLS,
    LOGGER,
    MAX_STALLED_TIMEOUT,
    SUBENTRY_INDEXER,
    SUBENTRY_SATELLITE,
)
from .errors import OperationError
from .library import MOVIE_FOLDER, TV_FOLDER
from .operations import DOWNLOAD_FOLDER
from .requester import SYSTEM
from .satellite_flow import SatellitePersonFlow

if TYPE_CHECKING:
    from collections.abc import Awaitable, Mapping

    from .data import AgentMediaConfigEntry

CONF_PROVIDER = "provider"
DEFAULT_QBITTORRENT_URL = "http://localhost:8080"
RESOLUTIONS = ["2160p", "1080p", "720p", "any"]
LLM_KEYS = frozenset({CONF_LLM_BASE_URL, CONF_LLM_API_KEY, CONF_LLM_MODEL})

PASSWORD = TextSelector(TextSelectorConfig(type=TextSelectorType.PASSWORD))
URL_SELECTOR = TextSelector(TextSelectorConfig(type=TextSelectorType.URL))

# The options form's sections; the stored options stay flat.
SECTION_AGENT = "agent"
SECTION_RELEASES = "releases"
SECTION_DOWNLOADS = "downloads"
SECTION_HOUSEHOLD = "household"
SECTION_SERVICES = "services"
SECTION_FOLDERS = "folders"
SECTION_FOLDERS_UNAVAILABLE = "folders_unavailable"  # shown instead while the entry is not loaded
FORM_FOLDERS = (DOWNLOAD_FOLDER, MOVIE_FOLDER, TV_FOLDER)

type Errors = dict[str, str]


class InvalidUrlError(ValueError):
    """A URL that is not http(s) with a host."""


def normalize_url(value: str) -> str:
    """Return an http(s) URL with a scheme, without a trailing slash, or raise InvalidUrlError.

    Users often type "192.168.1.5:8080"; without a scheme qbittorrent-api probes ports 80 and 443 first.
    """
    if not value.strip() or any(char.isspace() for char in value.strip()):
        raise InvalidUrlError(value)
    text = url_with_scheme(value)
    try:
        url = URL(text)
    except ValueError as err:
        raise InvalidUrlError(value) from err
    if url.scheme not in ("http", "https") or not url.host:
        raise InvalidUrlError(value)
    return text


def _client_error_key(err: AgentMediaClientError) -> str:
    """Map a client error to the config flow's error vocabulary."""
    if isinstance(err, BannedError):
        return "banned"
    if isinstance(err, InvalidAuthError):
        return "invalid_auth"
    if isinstance(err, CannotConnectError):
        return "cannot_connect"
    return "invalid_response"


async def _async_check(
    field: str, errors: Errors, check: Awaitable[Any], auth_field: str | None = None
) -> None:
    """Await a validation call and record its failure under the field that caused it."""
    try:
        await check
    except AgentMediaClientError as err:
        key = _client_error_key(err)
        LOGGER.debug("Validation of %s failed: %s", field, err)
        errors[auth_field if auth_field and key in ("invalid_auth", "banned") else field] = key
    except Exception:  # noqa: BLE001 - the form must stay usable whatever a library raises
        LOGGER.exception("Unexpected error while validating %s", field)
        errors["base"] = "unknown"


async def async_validate_llm(hass: HomeAssistant, data: Mapping[str, Any]) -> Errors:
    """Check the LLM server answers with these settings (lists models, or a 1-token completion)."""
    errors: Errors = {}
    client = await LLMClient.async_create(
        get_async_client(hass),
        base_url=data[CONF_LLM_BASE_URL],
        api_key=data.get(CONF_LLM_API_KEY, ""),
        model=data[CONF_LLM_MODEL],
    )
    await _async_check(CONF_LLM_BASE_URL, errors, client.async_validate(), CONF_LLM_API_KEY)
    return errors


def _with_one_login(data: dict[str, Any], typed: Mapping[str, Any]) -> dict[str, Any]:
    """Return the entry's data where a typed password replaces a saved API key, and the other way round."""
    if typed.get(CONF_QBITTORRENT_API_KEY) and not typed.get(CONF_QBITTORRENT_PASSWORD):
        data[CONF_QBITTORRENT_PASSWORD] = ""
    elif not typed.get(CONF_QBITTORRENT_API_KEY) and (
        typed.get(CONF_QBITTORRENT_PASSWORD) or not data.get(CONF_QBITTORRENT_API_KEY)
    ):
        data.pop(CONF_QBITTORRENT_API_KEY, None)
    return data


async def async_validate_qbittorrent(data: Mapping[str, Any]) -> Errors:
    """Log in to qBittorrent with these settings: a password, or an API key (qBittorrent 5.2+), not both."""
    errors: Errors = {}
    password, api_key = data.get(CONF_QBITTORRENT_PASSWORD, ""), data.get(CONF_QBITTORRENT_API_KEY, "")
    if bool(password) == bool(api_key):
        return {"base": "password_or_api_key"}
    client = QBittorrentClient(
        data[CONF_QBITTORRENT_URL],
        data[CONF_QBITTORRENT_USERNAME],
        password,
        verify_ssl=data[CONF_QBITTORRENT_VERIFY_SSL],
        api_key=api_key or None,
    )
    auth_field = CONF_QBITTORRENT_API_KEY if api_key else CONF_QBITTORRENT_PASSWORD
    try:
        await _async_check(CONF_QBITTORRENT_URL, errors, client.async_login(), auth_field)
    finally:
        await client.async_close()
    return errors


async def async_validate_tmdb(hass: HomeAssistant, api_key: str, base_url: str) -> Errors:
    """Check the TMDB key (v3 key or read-access token) against the configured TMDB URL.

    Without retries: the form reports at once what the service answers now.
    """
    errors: Errors = {}
    client = TMDBClient(async_get_clientsession(hass), api_key, base_url=base_url, retry=NO_RETRY)
    await _async_check(CONF_TMDB_URL, errors, client.async_validate(), CONF_TMDB_API_KEY)
    return errors


def _normalize_urls(user_input: dict[str, Any], fields: tuple[str, ...], errors: Errors) -> None:
    """Normalise the URL fields in place, recording invalid ones."""
    for field in fields:
        if field not in user_input:
            continue
        try:
            user_input[field] = normalize_url(user_input[field])
        except InvalidUrlError:
            errors[field] = "invalid_url"


def _llm_schema(defaults: Mapping[str, Any]) -> vol.Schema:
    return vol.Schema(
        {
            vol.Required(CONF_PROVIDER, default=defaults.get(CONF_PROVIDER, "deepseek")): SelectSelector(
                SelectSelectorConfig(
                    options=[*LLM_PROVIDER_URLS, LLM_PROVIDER_CUSTOM, LLM_PROVIDER_NONE],
                    translation_key=CONF_PROVIDER,
                    mode=SelectSelectorMode.LIST,
                )
            ),
            vol.Optional(
                CONF_LLM_BASE_URL, description={"suggested_value": defaults.get(CONF_LLM_BASE_URL)}
            ): URL_SELECTOR,
            vol.Optional(CONF_LLM_API_KEY, default=""): PASSWORD,
            vol.Optional(CONF_LLM_MODEL, description={"suggested_value": defaults.get(CONF_LLM_MODEL)}): str,
        }
    )


def _qbittorrent_schema(defaults: Mapping[str, Any]) -> vol.Schema:
    return vol.Schema(
        {
            vol.Required(
                CONF_QBITTORRENT_URL, default=defaults.get(CONF_QBITTORRENT_URL, DEFAULT_QBITTORRENT_URL)
            ): URL_SELECTOR,
            vol.Required(
                CONF_QBITTORRENT_USERNAME, default=defaults.get(CONF_QBITTORRENT_USERNAME, "admin")
            ): str,
            vol.Optional(CONF_QBITTORRENT_PASSWORD, default=""): PASSWORD,
            vol.Optional(CONF_QBITTORRENT_API_KEY, default=""): PASSWORD,
            vol.Required(
                CONF_QBITTORRENT_VERIFY_SSL, default=defaults.get(CONF_QBITTORRENT_VERIFY_SSL, True)
            ): BooleanSelector(),
        }
    )


def _tmdb_schema(defaults: Mapping[str, Any]) -> vol.Schema:
    return vol.Schema(
        {
            vol.Required(CONF_TMDB_API_KEY): PASSWORD,
            vol.Required(CONF_TMDB_URL, default=defaults.get(CONF_TMDB_URL, DEFAULT_TMDB_URL)): URL_SELECTOR,
            vol.Required(
                CONF_KNABEN_URL, default=defaults.get(CONF_KNABEN_URL, DEFAULT_KNABEN_URL)
            ): URL_SELECTOR,
        }
    )


def _resolve_llm_input(user_input: dict[str, Any], errors: Errors) -> dict[str, Any]:
    """Fill the base URL and model from the provider preset when left empty."""
    provider = user_input.get(CONF_PROVIDER, LLM_PROVIDER_CUSTOM)
    base_url = (user_input.get(CONF_LLM_BASE_URL) or LLM_PROVIDER_URLS.get(provider, "")).strip()
    model = (user_input.get(CONF_LLM_MODEL) or LLM_PROVIDER_MODELS.get(provider, "")).strip()
    resolved = {
        CONF_LLM_BASE_URL: base_url,
        CONF_LLM_API_KEY: user_input.get(CONF_LLM_API_KEY, "").strip(),
        CONF_LLM_MODEL: model,
    }
    if not base_url:
        errors[CONF_LLM_BASE_URL] = "url_required"
    else:
        _normalize_urls(resolved, (CONF_LLM_BASE_URL,), errors)
    if not model:
        errors[CONF_LLM_MODEL] = "model_required"
    return resolved


def has_model(data: Mapping[str, Any]) -> bool:
    """Whether an entry's data names a model (else it answers the common commands only)."""
    return bool(data.get(CONF_LLM_BASE_URL) and data.get(CONF_LLM_MODEL))


def _reconfigured_llm(
    current: Mapping[str, Any], user_input: Mapping[str, Any], errors: Errors
) -> dict[str, Any]:
    """Return the model keys the reconfigure form asks for: none when the URL and model are both empty.

    An empty API key keeps the current one.
    """
    base_url = str(user_input.get(CONF_LLM_BASE_URL) or "").strip()
    model = str(user_input.get(CONF_LLM_MODEL) or "").strip()
    if not base_url and not model:
        return {}
    return _resolve_llm_input(
        {
            CONF_PROVIDER: LLM_PROVIDER_CUSTOM,
            CONF_LLM_BASE_URL: base_url,
            CONF_LLM_MODEL: model,
            CONF_LLM_API_KEY: user_input.get(CONF_LLM_API_KEY) or current.get(CONF_LLM_API_KEY, ""),
        },
        errors,
    )


class AgentMediaConfigFlow(ConfigFlow, domain=DOMAIN):
    """Set up Agent Media in three steps: the LLM, qBittorrent, then TMDB and Knaben."""

    VERSION = 1
    MINOR_VERSION = 2  # 1.2: conversation agents are subentries (1.1 entries migrate to one)

    def __init__(self) -> None:
        """Start with nothing collected."""
        self._data: dict[str, Any] = {}

    @staticmethod
    @callback
    def async_get_options_flow(config_entry: AgentMediaConfigEntry) -> AgentMediaOptionsFlow:  # noqa: ARG004
        """Return the options flow."""
        return AgentMediaOptionsFlow()

    @classmethod
    @callback
    def async_get_supported_subentry_types(
        cls,
        config_entry: AgentMediaConfigEntry,  # noqa: ARG003
    ) -> dict[str, type[ConfigSubentryFlow]]:
        """Agents, AI tasks, Torznab indexers and satellites' persons are subentries, each on its own."""
        return {
            **agent_subentry_flows(),
            SUBENTRY_INDEXER: TorznabIndexerFlow,
            SUBENTRY_SATELLITE: SatellitePersonFlow,
        }

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Choose the LLM provider and check it answers."""
        errors: Errors = {}
        if user_input is not None:
            if user_input.get(CONF_PROVIDER) == LLM_PROVIDER_NONE:
                return await self.async_step_qbittorrent()  # no model: no model keys in the entry's data
            llm = _resolve_llm_input(user_input, errors)
            if not errors:
                errors = await async_validate_llm(self.hass, llm)
            if not errors:
                self._data.update(llm)
                return await self.async_step_qbittorrent()
        return self.async_show_form(
            step_id="user",
            data_schema=_llm_schema(user_input or {}),
            errors=errors,
        )

    async def async_step_qbittorrent(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Connect to qBittorrent's Web UI."""
        errors: Errors = {}
        if user_input is not None:
            user_input = dict(user_input)
            _normalize_urls(user_input, (CONF_QBITTORRENT_URL,), errors)
            if not errors:
                self._async_abort_entries_match({CONF_QBITTORRENT_URL: user_input[CONF_QBITTORRENT_URL]})
                errors = await async_validate_qbittorrent(user_input)
            if not errors:
                if not user_input.get(CONF_QBITTORRENT_API_KEY):
                    user_input.pop(CONF_QBITTORRENT_API_KEY, None)  # a password login: no key kept
                self._data.update(user_input)
                return await self.async_step_tmdb()
        return self.async_show_form(
            step_id="qbittorrent", data_schema=_qbittorrent_schema(user_input or {}), errors=errors
        )

    async def async_step_tmdb(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Check the TMDB key; the TMDB and Knaben URLs can point at mirrors."""
        errors: Errors = {}
        if user_input is not None:
            user_input = dict(user_input)
            user_input[CONF_TMDB_API_KEY] = user_input[CONF_TMDB_API_KEY].strip()
            _normalize_urls(user_input, (CONF_TMDB_URL, CONF_KNABEN_URL), errors)
            if not errors:
                errors = await async_validate_tmdb(
                    self.hass, user_input[CONF_TMDB_API_KEY], user_input[CONF_TMDB_URL]
                )
            if not errors:
                self._data[CONF_TMDB_API_KEY] = user_input[CONF_TMDB_API_KEY]
                return self.async_create_entry(
                    title=DEFAULT_AGENT_NAME,
                    data=self._data,
                    options={
                        CONF_TMDB_URL: user_input[CONF_TMDB_URL],
                        CONF_KNABEN_URL: user_input[CONF_KNABEN_URL],
                    },
                    subentries=[default_agent(DEFAULT_AGENT_NAME)],
                )
        return self.async_show_form(step_id="tmdb", data_schema=_tmdb_schema(user_input or {}), errors=errors)

    async def async_step_reauth(self, entry_data: Mapping[str, Any]) -> ConfigFlowResult:  # noqa: ARG002
        """Credentials were refused: ask for new ones."""
        return await self.async_step_reauth_confirm()

    async def async_step_reauth_confirm(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Take a new qBittorrent password and/or LLM key; empty fields keep the current value.

        An entry without a model is asked for the qBittorrent password only.
        """
        entry = self._get_reauth_entry()
        errors: Errors = {}
        if user_input is not None:
            typed = {key: value for key, value in user_input.items() if value}
            data = _with_one_login({**entry.data, **typed}, typed)
            errors = await async_validate_qbittorrent(data)
            if not errors and has_model(data):
                errors = await async_validate_llm(self.hass, data)
            if not errors:
                return self.async_update_reload_and_abort(entry, data=data)
        fields: dict[vol.Marker, Any] = {
            vol.Optional(CONF_QBITTORRENT_PASSWORD): PASSWORD,
            vol.Optional(CONF_QBITTORRENT_API_KEY): PASSWORD,
        }
        if has_model(entry.data):
            fields[vol.Optional(CONF_LLM_API_KEY)] = PASSWORD
        return self.async_show_form(
            step_id="reauth_confirm",
            data_schema=vol.Schema(fields),
            description_placeholders={"url": entry.data[CONF_QBITTORRENT_URL]},
            errors=errors,
        )

    async def async_step_reconfigure(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Change any connection setting; empty secret fields keep the current value.

        The model is optional here as in the first step: an entry without one shows the model fields empty
        and gets one when they are filled; emptying the base URL and the model leaves the entry without one.
        """
        entry = self._get_reconfigure_entry()
        errors: Errors = {}
        if user_input is not None:
            llm = _reconfigured_llm(entry.data, user_input, errors)
            data = {key: value for key, value in entry.data.items() if key not in LLM_KEYS} | llm
            data |= {key: value for key, value in user_input.items() if key not in LLM_KEYS and value != ""}
            data = _with_one_login(data, user_input)
            _normalize_urls(data, (CONF_QBITTORRENT_URL,), errors)
            if not errors and llm:
                errors = await async_validate_llm(self.hass, data)
            if not errors:
                errors = await async_validate_qbittorrent(data)
            if not errors:
                errors = await async_validate_tmdb(
                    self.hass, data[CONF_TMDB_API_KEY], entry.options.get(CONF_TMDB_URL, DEFAULT_TMDB_URL)
                )
            if not errors:
                return self.async_update_reload_and_abort(entry, data=data)
        # After an error the form shows what was typed (secrets aside), else the entry's settings.
        shown: Mapping[str, Any] = entry.data
        if user_input is not None:
            shown = {key: value for key, value in entry.data.items() if key not in LLM_KEYS} | user_input
        return self.async_show_form(
            step_id="reconfigure",
            data_schema=vol.Schema(
                {
                    vol.Optional(
                        CONF_LLM_BASE_URL, description={"suggested_value": shown.get(CONF_LLM_BASE_URL)}
                    ): URL_SELECTOR,
                    vol.Optional(CONF_LLM_API_KEY, default=""): PASSWORD,
                    vol.Optional(
                        CONF_LLM_MODEL, description={"suggested_value": shown.get(CONF_LLM_MODEL)}
                    ): str,
                    vol.Required(CONF_QBITTORRENT_URL, default=shown[CONF_QBITTORRENT_URL]): URL_SELECTOR,
                    vol.Required(CONF_QBITTORRENT_USERNAME, default=shown[CONF_QBITTORRENT_USERNAME]): str,
                    vol.Optional(CONF_QBITTORRENT_PASSWORD, default=""): PASSWORD,
                    vol.Optional(CONF_QBITTORRENT_API_KEY, default=""): PASSWORD,
                    vol.Required(
                        CONF_QBITTORRENT_VERIFY_SSL, default=shown[CONF_QBITTORRENT_VERIFY_SSL]
                    ): BooleanSelector(),
                    vol.Optional(CONF_TMDB_API_KEY, default=""): PASSWORD,
                }
            ),
            errors=errors,
        )


def _int_box(low: int, high: int, unit: str | None = None) -> vol.All:
    """Return a whole-number box (the selector gives floats)."""
    config = NumberSelectorConfig(min=low, max=high, mode=NumberSelectorMode.BOX)
    if unit is not None:
        config["unit_of_measurement"] = unit
    return vol.All(NumberSelector(config), vol.Coerce(int))


def _option_sections(options: Mapping[str, Any]) -> dict[str, dict[vol.Marker, Any]]:
    """Each section's fields, filled from the flat options (or the input being shown again)."""

    def required(key: str, default: Any) -> vol.Required:
        return vol.Required(key, default=options.get(key, default))

    def suggested(key: str) -> vol.Optional:
        return vol.Optional(key, description={"suggested_value": options.get(key)})

    return {
        SECTION_AGENT: {
            suggested(CONF_PROMPT): TemplateSelector(),
            required(CONF_TEMPERATURE, DEFAULT_TEMPERATURE): NumberSelector(
                NumberSelectorConfig(min=0, max=2, step=0.05)
            ),
            required(CONF_MAX_TOOL_ITERATIONS, DEFAULT_MAX_TOOL_ITERATIONS): _int_box(1, 30),
            required(CONF_MAX_HISTORY_MESSAGES, DEFAULT_MAX_HISTORY_MESSAGES): _int_box(0, 100),
            required(CONF_TURN_TIMEOUT, DEFAULT_TURN_TIMEOUT): _int_box(10, 600, "s"),
            required(CONF_LOCAL_SENTENCES, DEFAULT_LOCAL_SENTENCES): BooleanSelector(),
        },
        SECTION_RELEASES: {
            required(CONF_PREFERRED_RESOLUTION, DEFAULT_PREFERRED_RESOLUTION): SelectSelector(
                SelectSelectorConfig(options=RESOLUTIONS, translation_key=CONF_PREFERRED_RESOLUTION)
            ),
            required(CONF_PREFERRED_CODEC, DEFAULT_PREFERRED_CODEC): SelectSelector(
                SelectSelectorConfig(options=list(CODEC_CHOICES), translation_key=CONF_PREFERRED_CODEC)
            ),
            required(CONF_MAX_SIZE_GB, DEFAULT_MAX_SIZE_GB): NumberSelector(
                NumberSelectorConfig(
                    min=0, max=500, step=0.5, unit_of_measurement="GB", mode=NumberSelectorMode.BOX
                )
            ),
            suggested(CONF_PREFERRED_LANGUAGES): TextSelector(),
        },
        SECTION_DOWNLOADS: {
            required(CONF_SCAN_INTERVAL, DEFAULT_SCAN_INTERVAL): _int_box(2, 300, "s"),
            required(CONF_STALLED_TIMEOUT, DEFAULT_STALLED_TIMEOUT): _int_box(0, MAX_STALLED_TIMEOUT, "s"),
            required(CONF_ORGANIZE_LIBRARY, DEFAULT_ORGANIZE_LIBRARY): BooleanSelector(),
            suggested(CONF_LIBRARY_REFRESH): EntitySelector(
                EntitySelectorConfig(domain=["script", "button"])
            ),
        },
        SECTION_HOUSEHOLD: {
            required(CONF_ALLOW_NON_ADMIN_SETTINGS, DEFAULT_ALLOW_NON_ADMIN_SETTINGS): BooleanSelector(),
            required(CONF_ANNOUNCE_COMPLETIONS, DEFAULT_ANNOUNCE_COMPLETIONS): BooleanSelector(),
            suggested(CONF_ANNOUNCE_TARGET): EntitySelector(EntitySelectorConfig(domain="notify")),
        },
        SECTION_SERVICES: {
            required(CONF_TMDB_URL, DEFAULT_TMDB_URL): URL_SELECTOR,
            required(CONF_KNABEN_URL, DEFAULT_KNABEN_URL): URL_SELECTOR,
        },
    }


def _folder_fields(folders: Mapping[str, str]) -> dict[vol.Marker, Any]:
    """One path field per folder the form sets; empty keeps the folder as it is."""
    return {
        vol.Optional(name, description={"suggested_value": folders.get(name)}): TextSelector()
        for name in FORM_FOLDERS
    }


class AgentMediaOptionsFlow(OptionsFlow):
    """Tune the agent, releases, downloads and the household, in sections; set the folders while loaded.

    The sections are the form's only: the entry's options stay flat (automations read
    ``entry.options["scan_interval"]``). The folders live in the entry's memory, so they are set through
    the operations layer, checked exactly like the voice command and the action.
    """

    async def async_step_init(self, user_input: dict[str, Any] | None = None) -> ConfigFlowResult:
        """Show every option in its section with its current value, and the folders' current paths."""
        errors: Errors = {}
        placeholders = {"entry_state": self.config_entry.state.value, "folder": ""}
        loaded = self.config_entry.state is ConfigEntryState.LOADED
        shown_options: Mapping[str, Any] = self.config_entry.options
        shown_folders = self.config_entry.runtime_data.memory.household.folders() if loaded else {}
        if user_input is not None:
            options = {
                key: value
                for name, fields in user_input.items()
                if name != SECTION_FOLDERS
                for key, value in fields.items()
            }
            url_errors: Errors = {}
            _normalize_urls(options, (CONF_TMDB_URL, CONF_KNABEN_URL), url_errors)
            if url_errors:  # shown on its section: a field's own error is not shown inside a section
                errors[SECTION_SERVICES] = "invalid_url"
            typed_folders = user_input.get(SECTION_FOLDERS, {})
            if not errors and loaded:
                await self._async_set_folders(shown_folders, typed_folders, errors, placeholders)
            if not errors:
                return self.async_create_entry(data=options)
            shown_options, shown_folders = options, shown_folders | typed_folders  # lose nothing typed
        sections = _option_sections(shown_options)
        # While the entry is not loaded its memory is not there: that section only says why (its description).
        if loaded:
            sections[SECTION_FOLDERS] = _folder_fields(shown_folders)
        else:
            sections[SECTION_FOLDERS_UNAVAILABLE] = {}
        schema = {
            vol.Required(name): section(
                vol.Schema(fields), {"collapsed": name != SECTION_AGENT and name not in errors}
            )
            for name, fields in sections.items()
        }
        return self.async_show_form(
            step_id="init",
            data_schema=vol.Schema(schema),
            errors=errors,
            description_placeholders=placeholders,
        )

    async def _async_set_folders(
        self,
        current: Mapping[str, str],
        typed: Mapping[str, str],
        errors: Errors,
        placeholders: dict[str, str],
    ) -> None:
        """Set the changed folders, checked as by voice: all of them, or none when one is refused."""
        settings = self.config_entry.runtime_data.operations.settings
        changed = {
            name: path
            for name in FORM_FOLDERS
            if (path := typed.get(name, "").strip()) and path != current.get(name)
        }
        for name, path in changed.items():
            try:
                await settings.async_check_folder(SYSTEM, name, path)
            except OperationError as err:
                errors[SECTION_FOLDERS] = err.translation_key
                placeholders["folder"] = name
                return
        for name, path in changed.items():
            try:
                await settings.async_set_folder(SYSTEM, name, path)
            except OperationError as err:  # full: at most MAX_FOLDERS folders
                errors[SECTION_FOLDERS] = err.translation_key
                placeholders["folder"] = name
                return


def _indexer_schema(*, key_required: bool) -> vol.Schema:
    low, high = INDEXER_TIMEOUT_RANGE
    return vol.Schema(
        {
            vol.Optional(CONF_NAME): TextSelector(),
            vol.Required(CONF_INDEXER_URL): URL_SELECTOR,
            (vol.Required if key_required else vol.Optional)(CONF_INDEXER_API_KEY): PASSWORD,
            vol.Required(CONF_INDEXER_TIMEOUT, default=DEFAULT_INDEXER_TIMEOUT): vol.All(
                NumberSelector(
                    NumberSelectorConfig(
                        min=low, max=high, unit_of_measurement="s", mode=NumberSelectorMode.BOX
                    )
                ),
                vol.Coerce(int),
            ),
        }
    )


class TorznabIndexerFlow(ConfigSubentryFlow):
    """Add or change a Torznab indexer (Jackett, Prowlarr…), searched together with Knaben.

    The indexer is checked with a caps request, which also proves the API key (Jackett and Prowlarr ask
    for it there too). Its subentry's title is its name; the URL, normalised to ``…/api``, is its unique id.
    """

    async def async_step_user(self, user_input: dict[str, Any] | None = None) -> SubentryFlowResult:
        """Ask for the indexer's Torznab URL, API key, name and timeout."""
        errors: Errors = {}
        if user_input is not None:
            data = self._indexer_data(user_input, user_input.get(CONF_INDEXER_API_KEY, ""), errors)
            if not errors and self._is_configured(data[CONF_INDEXER_URL]):
                return self.async_abort(reason="already_configured")
            title = await self._async_validated_title(data, user_input.get(CONF_NAME), errors)
            if not errors:
                return self.async_create_entry(title=title, data=data, unique_id=data[CONF_INDEXER_URL])
        return self.async_show_form(
            step_id="user",
            data_schema=self.add_suggested_values_to_schema(
                _indexer_schema(key_required=True), _without_secret(user_input)
            ),
            errors=errors,
        )

    async def async_step_reconfigure(self, user_input: dict[str, Any] | None = None) -> SubentryFlowResult:
        """Change the indexer; an empty API key keeps the current one."""
        subentry = self._get_reconfigure_subentry()
        errors: Errors = {}
        if user_input is not None:
            api_key = user_input.get(CONF_INDEXER_API_KEY) or subentry.data[CONF_INDEXER_API_KEY]
            data = self._indexer_data(user_input, api_key, errors)
            if not errors and self._is_configured(data[CONF_INDEXER_URL], subentry.subentry_id):
                return self.async_abort(reason="already_configured")
            title = await self._async_validated_title(data, user_input.get(CONF_NAME), errors)
            if not errors:
                return self.async_update_and_abort(
                    self._get_entry(), subentry, title=title, data=data, unique_id=data[CONF_INDEXER_URL]
                )
        current = {
            CONF_NAME: subentry.title,
            CONF_INDEXER_URL: subentry.data[CONF_INDEXER_URL],
            CONF_INDEXER_TIMEOUT: subentry.data[CONF_INDEXER_TIMEOUT],
        }
        return self.async_show_form(
            step_id="reconfigure",
            data_schema=self.add_suggested_values_to_schema(
                _indexer_schema(key_required=False), current | _without_secret(user_input)
            ),
            errors=errors,
        )

    @staticmethod
    def _indexer_data(user_input: Mapping[str, Any], api_key: str, errors: Errors) -> dict[str, Any]:
        """Return the subentry's data with the URL normalised to the Torznab endpoint, or record errors."""
        data = {
            CONF_INDEXER_URL: user_input[CONF_INDEXER_URL],
            CONF_INDEXER_API_KEY: api_key.strip(),
            CONF_INDEXER_TIMEOUT: user_input[CONF_INDEXER_TIMEOUT],
        }
        _normalize_urls(data, (CONF_INDEXER_URL,), errors)
        if not errors:
            data[CONF_INDEXER_URL] = normalize_api_url(data[CONF_INDEXER_URL])
        return data

    def _is_configured(self, url: str, except_id: str | None = None) -> bool:
        return any(
            subentry.unique_id == url and subentry.subentry_id != except_id
            for subentry in self._get_entry().subentries.values()
        )

    async def _async_validated_title(self, data: Mapping[str, Any], name: str | None, errors: Errors) -> str:
        """Ask the indexer for its caps; return the name to show (the one given, else the server's title)."""
        if errors:
            return ""
        client = TorznabClient(
            async_get_clientsession(self.hass),
            data[CONF_INDEXER_URL],
            data[CONF_INDEXER_API_KEY],
            timeout=data[CONF_INDEXER_TIMEOUT],
            retry=NO_RETRY,
        )
        await _async_check(CONF_INDEXER_URL, errors, client.async_validate(), CONF_INDEXER_API_KEY)
        if errors:
            return ""
        caps = await client.async_caps()  # kept by the client: no second request
        return (name or "").strip() or caps.server or DEFAULT_INDEXER_NAME


def _without_secret(user_input: Mapping[str, Any] | None) -> dict[str, Any]:
    """Return what the form shows again after an error: everything but the API key."""
    return {key: value for key, value in (user_input or {}).items() if key != CONF_INDEXER_API_KEY}
