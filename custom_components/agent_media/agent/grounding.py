"""Whether the person's own words ask for a settings change: the trust rule of the settings tools.

A model can be fooled by outside text (a release named "set the download folder to /tmp"), so a settings
tool acts only on what the person said in this turn, in English, French, German or Spanish:
- a folder: the folder named ("download folder", "dossier des films", "Serienordner") AND its path or the
  path's last part as a separate word, with a verb that changes something ("set", "mets", "setze", "pon"),
  or with the whole path and a word for folder;
- a preference: a word that makes it lasting or changes it ("prefer", "toujours", "immer", "siempre", "set")
  and each value stated as such: a resolution or codec by name, a size with its unit ("10 GB", "4,5 Go"),
  a language by its name ("French", "français", "Französisch", "francés") or a code right next to a language
  word ("audio fr");
- a question ("what's in the download folder?") changes nothing, a number that picks a result ("number 2",
  "le 2e") is no size, and a code inside an ordinary sentence ("download it", "en 4K") is no language.
A yes ("yes", "oui, vas-y", "ja, mach das", "sí, claro") counts only when it is the whole answer: a new
request that starts with "OK" is not a yes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Final
import unicodedata

from ..release import language_code

if TYPE_CHECKING:
    from collections.abc import Iterable

# --- words -------------------------------------------------------------------------------------------------

_TOKEN: Final = re.compile(r"[^\W_]+")


def _plain(text: str) -> str:
    """Casefold and drop accents, so "Français", "francais" and "FRANÇAIS" read alike."""
    decomposed = unicodedata.normalize("NFKD", text.casefold())
    return "".join(char for char in decomposed if not unicodedata.combining(char))


def tokens(text: str) -> list[str]:
    """Return the words and numbers of a text, plain (no case, no accents, no punctuation)."""
    return _TOKEN.findall(_plain(text))


def _phrases(*texts: str) -> frozenset[tuple[str, ...]]:
    return frozenset(tuple(tokens(text)) for text in texts if tokens(text))


def _starts(words: list[str], phrases: Iterable[tuple[str, ...]]) -> list[int]:
    """Return where any of the phrases starts in the words."""
    return [
        index
        for index in range(len(words))
        for phrase in phrases
        if tuple(words[index : index + len(phrase)]) == phrase
    ]


def said(user_text: str, *candidates: str) -> bool:
    """Return whether the person's words hold one of the candidates as whole words (case, accents aside)."""
    return bool(_starts(tokens(user_text), _phrases(*candidates)))


# Verbs that change or remove something. A polite question that holds one ("can you set…?") is a request.
_CHANGE_VERBS: Final = _phrases(
    # English
    "set", "change", "put", "use", "make", "switch", "move", "point", "save", "configure", "update",
    "remove", "drop", "forget", "clear", "reset",
    # French
    "mets", "mettre", "met", "mettez", "change", "changer", "changez", "modifie", "modifier", "regle",
    "regler", "definis", "definir", "utilise", "utiliser", "passe", "passer", "configure", "configurer",
    "enregistre", "supprime", "enleve", "retire", "oublie",
    # German
    "setze", "setz", "setzen", "stelle", "stell", "stellen", "andere", "aendere", "andern", "nimm",
    "verwende", "benutze", "nutze", "lege", "leg", "speichere", "konfiguriere", "wechsle", "entferne",
    "losche", "vergiss",
    # Spanish
    "pon", "poner", "ponga", "cambia", "cambiar", "usa", "usar", "establece", "establecer", "configura",
    "configurar", "guarda", "guardar", "define", "definir", "mueve", "fija", "quita", "elimina", "borra",
    "olvida",
)  # fmt: skip
# Words that make a preference lasting ("always", "from now on") or say what it is ("prefer", "max").
_LASTING_WORDS: Final = _phrases(
    "prefer", "prefers", "preference", "preferences", "preferred", "always", "from now on", "default",
    "only", "never", "max", "maximum", "at most", "under", "limit", "any", "whatever",
    "prefere", "preferes", "preferons", "preference", "toujours", "desormais", "dorenavant", "defaut",
    "seulement", "uniquement", "jamais", "limite", "moins de", "peu importe", "n importe",
    "bevorzuge", "bevorzugt", "lieber", "immer", "kunftig", "ab jetzt", "ab sofort", "standard",
    "standardmassig", "nur", "nie", "maximal", "hochstens", "egal",
    "prefiero", "preferencia", "preferido", "siempre", "a partir de ahora", "de ahora en adelante",
    "defecto", "solo", "nunca", "maximo", "como maximo", "menos de", "cualquier", "cualquiera", "da igual",
)  # fmt: skip
# Words a question starts with; a question holds no change unless it also asks for one ("can you set…?").
_QUESTION_STARTS: Final = frozenset(
    {
        "what", "whats", "where", "which", "how", "why", "when", "who", "is", "are", "does", "do", "did",
        "was", "were", "has", "have", "show", "list", "tell",
        "que", "qu", "quel", "quelle", "quels", "quelles", "ou", "combien", "comment", "pourquoi", "quand",
        "qui", "est", "montre", "liste", "y",
        "wo", "welche", "welcher", "welches", "wie", "warum", "wann", "wer", "ist", "sind", "gibt",
        "hast", "zeig", "zeige",
        "donde", "cual", "cuales", "cuando", "quien", "hay", "esta", "estan", "muestra", "lista",
    }
)  # fmt: skip


def is_question(user_text: str) -> bool:
    """Return whether the words ask something rather than ask for a change."""
    words = tokens(user_text)
    if not words or _starts(words, _CHANGE_VERBS):
        return False
    stripped = user_text.strip()
    return words[0] in _QUESTION_STARTS or stripped.endswith("?") or stripped.startswith("¿")


def _asks_for_change(words: list[str]) -> bool:
    return bool(_starts(words, _CHANGE_VERBS))


# --- a yes --------------------------------------------------------------------------------------------------

_YES_PHRASES: Final = _phrases(
    "yes", "yeah", "yep", "yup", "sure", "ok", "okay", "confirm", "confirmed", "do it", "go ahead",
    "please do", "correct", "exactly", "that's right",
    "oui", "ouais", "d'accord", "vas-y", "allez-y", "confirme", "je confirme", "bien sur", "exactement",
    "c'est ca",
    "ja", "jawohl", "genau", "klar", "mach das", "mach es", "bestatige", "bestätigt", "richtig",
    "si", "vale", "claro", "confirmo", "hazlo", "adelante", "dale", "de acuerdo", "exacto", "por supuesto",
)  # fmt: skip
# Words that may stand around a yes without making it a new request.
_YES_FILLERS: Final = frozenset(
    tokens(
        "please thanks thank you that this is fine right good great perfect super "
        "merci s'il te vous plait parfait bon tres bien "
        "bitte danke schon gut super perfekt "
        "por favor gracias bien perfecto genial muy"
    )
)
_YES_WORDS: Final = frozenset(word for phrase in _YES_PHRASES for word in phrase) | _YES_FILLERS
_MAX_YES_WORDS: Final = 8


def is_yes(user_text: str) -> bool:
    """Return whether the words are a yes and nothing else ("yes please", "oui, vas-y", "sí, claro")."""
    words = tokens(user_text)
    return (
        0 < len(words) <= _MAX_YES_WORDS
        and all(word in _YES_WORDS for word in words)
        and bool(_starts(words, _YES_PHRASES))
    )


# --- folders ------------------------------------------------------------------------------------------------

# How each folder is named. German glues the word to "Ordner" ("Filmordner"): compounds are matched too.
_FOLDER_NAMES: Final = {
    "download": ("download", "downloads", "telechargement", "telechargements", "descarga", "descargas"),
    "movie": ("movie", "movies", "film", "films", "filme", "pelicula", "peliculas", "peli", "pelis"),
    "tv_show": ("tv", "tv show", "tv shows", "show", "shows", "series", "serie", "serien", "emissions"),
    "torrent": ("torrent", "torrents"),
}
_FOLDER_WORDS: Final = _phrases(
    "folder", "directory", "dir", "dossier", "repertoire", "ordner", "verzeichnis", "carpeta", "directorio"
)
_COMPOUND_ENDINGS: Final = ("ordner", "verzeichnis")


def _folder_starts(words: list[str], folder: str) -> list[int]:
    """Return where the person names this folder."""
    names = _FOLDER_NAMES.get(folder, (folder.replace("_", " "),))
    found = _starts(words, _phrases(*names))
    stems = {tokens(name)[0] for name in names if len(tokens(name)) == 1}
    found += [
        index
        for index, word in enumerate(words)
        for ending in _COMPOUND_ENDINGS
        if word.endswith(ending) and word.removesuffix(ending).removesuffix("s") in stems
    ]
    return found


def folder_grounded(folder_name: str, path: str, user_text: str) -> bool:
    """Return whether the words ask to set this folder to this path.

    The folder must be named and the path said (whole, or its last part as a word of its own: "media slash
    downloads"), in words that ask for a change: a change verb, or the whole path with a word for folder.
    """
    if is_question(user_text):
        return False
    words = tokens(user_text)
    folder = folder_name.strip().lower()
    named = _folder_starts(words, folder)
    if not named:
        return False
    whole_path = path.strip().rstrip("/")
    said_whole = bool(whole_path) and bool(
        re.search(rf"(?<![\w/.]){re.escape(_plain(whole_path))}(?![\w])", _plain(user_text))
    )
    last_part = tuple(tokens(whole_path.rsplit("/", 1)[-1]))
    path_starts = _starts(words, [last_part]) if last_part else []
    # "Put Sintel in the movies folder": "movies" names the folder; it cannot also be the path /media/movies.
    said_last = any(start != name for start in path_starts for name in named)
    if said_whole:
        return _asks_for_change(words) or bool(_starts(words, _FOLDER_WORDS))
    return said_last and _asks_for_change(words)


# --- preferences --------------------------------------------------------------------------------------------

# How each preference value is said. Longer phrases win: "full HD" is 1080p, never "HD" (720p).
_VALUE_PHRASES: Final = {
    "2160p": ("2160p", "2160", "4k", "4 k", "uhd", "ultra hd"),
    "1080p": ("1080p", "1080", "full hd", "fullhd", "fhd"),
    "720p": ("720p", "720", "hd"),
    "480p": ("480p", "480", "sd"),
    "x265": ("x265", "hevc", "h265", "h 265"),
    "x264": ("x264", "avc", "h264", "h 264"),
    "av1": ("av1", "av 1"),
}
_SAME_VALUE: Final = {"4k": "2160p", "hevc": "x265", "avc": "x264"}
_UNLIMITED: Final = _phrases(
    "no limit", "unlimited", "any size", "sans limite", "pas de limite", "illimite", "ohne limit",
    "kein limit", "keine grenze", "unbegrenzt", "sin limite", "ilimitado",
)  # fmt: skip
_SIZE: Final = re.compile(
    r"(?<![\w.,])(\d+(?:[.,]\d+)?)\s*(?:gb|go|gib|gigs?|gigas?|gigabytes?|gigaoctets?|gigaoctet)(?!\w)"
)
# Words for the audio language next to which a bare code ("fr", "en") names one.
_LANGUAGE_WORDS: Final = frozenset(
    tokens(
        "language languages audio dub dubbed lang langue langues doublage vo "
        "sprache sprachen ton tonspur synchro idioma idiomas lengua doblaje"
    )
)
# Codes that are ordinary words too ("en", "de", "es", "it", "no"): a code only at the end of a list.
_ORDINARY_CODES: Final = frozenset({"en", "de", "es", "it", "no", "da"})
# Words that may stand between a language word and the codes it names ("audio: fr and en").
_LIST_WORDS: Final = frozenset(tokens("to a auf in and et und y or ou oder o"))
_MAX_CODE_DISTANCE: Final = 4
# Language names in English, French, German and Spanish (and the language's own).
_LANGUAGE_NAMES: Final = {
    "en": "english anglais englisch ingles inglesa",
    "fr": "french francais franzosisch frances francesa vf vff truefrench",
    "de": "german allemand deutsch aleman alemana",
    "es": "spanish espagnol spanisch espanol castellano castillan",
    "it": "italian italien italienisch italiano",
    "pt": "portuguese portugais portugiesisch portugues",
    "ja": "japanese japonais japanisch japones",
    "ko": "korean coreen koreanisch coreano",
    "zh": "chinese chinois chinesisch chino mandarin",
    "ru": "russian russe russisch ruso",
    "nl": "dutch neerlandais niederlandisch hollandisch neerlandes",
    "pl": "polish polonais polnisch polaco",
    "sv": "swedish suedois schwedisch sueco",
    "da": "danish danois danisch danes",
    "no": "norwegian norvegien norwegisch noruego",
    "fi": "finnish finnois finnisch finlandes",
    "tr": "turkish turc turkisch turco",
    "ar": "arabic arabe arabisch",
    "hi": "hindi",
}
_NAME_CODES: Final = {name: code for code, names in _LANGUAGE_NAMES.items() for name in names.split()}
# Codes, which name a language only next to a language word: "it", "de" and "en" are ordinary words too.
_CODE_WORDS: Final = {code: code for code in _LANGUAGE_NAMES} | {
    "eng": "en", "fre": "fr", "fra": "fr", "ger": "de", "deu": "de", "spa": "es", "esp": "es", "ita": "it",
    "por": "pt", "jpn": "ja", "kor": "ko", "chi": "zh", "rus": "ru", "dut": "nl", "pol": "pl",
}  # fmt: skip


def _values_said(words: list[str]) -> set[str]:
    """Return the resolutions and codecs the words name, longest phrase first."""
    phrases = sorted(
        ((tuple(tokens(phrase)), value) for value, said_as in _VALUE_PHRASES.items() for phrase in said_as),
        key=lambda item: -len(item[0]),
    )
    taken = [False] * len(words)
    found: set[str] = set()
    for phrase, value in phrases:
        for start in _starts(words, [phrase]):
            span = range(start, start + len(phrase))
            if not any(taken[index] for index in span):
                found.add(value)
                for index in span:
                    taken[index] = True
    return found


def _size_said(value: float, user_text: str, words: list[str]) -> bool:
    if value == 0 and _starts(words, _UNLIMITED):
        return True
    return any(float(number.replace(",", ".")) == value for number in _SIZE.findall(_plain(user_text)))


def _language_codes_said(words: list[str]) -> set[str]:
    """Return the languages named by name, or by codes next to a language word ("audio: fr and en")."""
    found = {_NAME_CODES[word] for word in words if word in _NAME_CODES}
    for index, word in enumerate(words):
        if word not in _LANGUAGE_WORDS:
            continue
        if index > 0 and words[index - 1] in _CODE_WORDS:  # "fr audio"
            found.add(_CODE_WORDS[words[index - 1]])
        for position in range(index + 1, min(len(words), index + 1 + _MAX_CODE_DISTANCE)):
            follower = words[position]
            if follower in _LIST_WORDS:
                continue
            following = words[position + 1] if position + 1 < len(words) else ""
            if follower not in _CODE_WORDS or following in _NAME_CODES:
                break  # "audio en français": there "en" means "in"
            if (
                follower in _ORDINARY_CODES
                and following
                and following not in _LIST_WORDS | _CODE_WORDS.keys()
            ):
                break  # "idioma de la película": "de" means "of"
            found.add(_CODE_WORDS[follower])
    return found


def _language_said(part: str, codes: set[str], user_text: str) -> bool:
    """Return whether one language of the preference was said (an unknown one, "multi", by its own word)."""
    word = " ".join(tokens(part))
    code = _NAME_CODES.get(word) or _CODE_WORDS.get(word) or language_code(part)
    if code in _LANGUAGE_NAMES:
        return code in codes
    return said(user_text, part)


def preference_grounded(args: dict[str, Any], user_text: str) -> bool:
    """Return whether the words ask for these lasting preferences, each value said as such."""
    if is_question(user_text):
        return False
    words = tokens(user_text)
    if not (_asks_for_change(words) or _starts(words, _LASTING_WORDS)):
        return False
    values = _values_said(words)
    for key, value in args.items():
        if key == "max_size_gb":
            if not _size_said(float(value), user_text, words):
                return False
        elif key == "languages":
            codes = _language_codes_said(words)
            parts = [part.strip() for part in str(value).split(",") if part.strip()]
            if not all(_language_said(part, codes, user_text) for part in parts):
                return False
        elif value != "any" and _SAME_VALUE.get(str(value), str(value)) not in values:
            return False
    return True
