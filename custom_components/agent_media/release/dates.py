"""Air dates in release names: a daily show is named by the day it aired.

Pure Python (standard library only). parse.py reads a date's year, and the date ends the title.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Final

from .scan import token

if TYPE_CHECKING:
    from .scan import Scan

# A date: year, month, day; day and month either way round after the year ("2010.23.11") or before it, as
# an American writes it too ("10/25/2010"); a daily show's written in one number, "Title.20101025.HDTV".
_DATE_RE: Final = re.compile(
    r"(?<![0-9])(?:(?P<year>(?:19|20)\d{2})[ .-](?:0[1-9]|1[0-2])[ .-](?:[0-2]\d|3[01])"
    r"|(?<![a-zA-Z])(?P<year4>(?:19|20)\d{2})(?:0[1-9]|1[0-2])(?:[0-2]\d|3[01])"  # not an id's "tt20101025"
    r"|(?P<year3>(?:19|20)\d{2})[ .-](?:1[3-9]|2\d|3[01])[ .-](?:0[1-9]|1[0-2])"
    r"|(?:[0-3]\d)[ ./-](?:[0-3]\d)(?:[ .-]|(?<=/\d\d)/)(?P<year2>(?:19|20)\d{2}))(?![0-9])"
)
# A date with the month's name, as a daily show is dated: "25.Oct.2010", "25th October 2010", "Oct 25, 2010",
# "2010 Oct 25" (a month and a year alone date nothing: "Sintel.March.2010" may be a title's).
_MONTHS: Final = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?"
    r"|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)
_DAY: Final = r"(?:[0-2]?[1-9]|[123]0|31)(?:st|nd|rd|th)?"
_MONTH_DATE_RE: Final = token(
    rf"{_DAY}[ .-]{_MONTHS}[ .,-]{{1,2}}(?P<year>(?:19|20)\d{{2}})"
    rf"|{_MONTHS}[ .-]{_DAY}[ .,-]{{1,2}}(?P<year2>(?:19|20)\d{{2}})"
    rf"|(?P<year3>(?:19|20)\d{{2}})[ .-]{_MONTHS}[ .-]{_DAY}",
    hints=("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"),
)


def date_year_of(scan: Scan) -> int | None:
    """Take the first air date a name holds and return its year."""
    match = scan.first(_DATE_RE) or scan.first(_MONTH_DATE_RE)
    if match is None:
        return None
    return int(next(year for year in match.groups() if year is not None))  # their only groups are years
