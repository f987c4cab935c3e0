"""Time expressions in a query ("last week", "in March", "上周", "2026-11-02") → a date window.

`dateparser` finds and anchors the expression in English or Chinese relative to an injected "now";
this module only decides the window's size from the words matched (a day, an ISO week, a month, a
year, a season) and strips the expression from the query so "last week" does not match text that
merely says "week". A cheap regex guards the import: queries without time-like words never load
dateparser (slow to import: a one-shot search without time words never pays for it).

Weekdays, seasons and "next …" are read here, not by dateparser, because their meaning depends on the
words around them: a weekday or a season is a time only when the query points at one ("last Friday",
"on Friday", "上周五", "in spring", "去年夏天"); a bare or plural one is content ("deploy windows Friday",
"never on Fridays", "周五不部署", "多肉夏天要遮阴"). "next …" and "下…"/"明…" point forward from now.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

MONTHS = ("january|february|march|april|may|june|july|august|september|october|november|december|"
          "jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec")
WEEKDAYS = "monday|tuesday|wednesday|thursday|friday|saturday|sunday"
_HINT = re.compile(
    rf"(?i)\b(yesterday|today|tomorrow|next|ago|last|past|previous|this|since|week|weeks|month|months|year|years|weekend|"
    rf"spring|summer|autumn|fall|winter|{MONTHS}|{WEEKDAYS}|\d{{4}}-\d{{1,2}}-\d{{1,2}}|(19|20)\d\d)\b"
    r"|昨天|前天|今天|明天|后天|明年|下周|下个?星期|下个?礼拜|下个?月|[周礼拜期][一二三四五六日天]|上周|本周|这周|上个?星期|上个?礼拜|上个?月|这个月|本月|今年|去年|前年|[一二三四五六七八九十\d]+月|[一二三四五六七八九十两\d]+(天|周|个星期|个月|年)前|[春夏秋冬]天"
)
_WEEK = re.compile(r"(?i)week|周|星期|礼拜")
_MONTH = re.compile(rf"(?i)month|月|\b({MONTHS})\b")
_YEAR = re.compile(r"(?i)year|年|^\s*(19|20)\d\d\s*$")
_DAY_IN_MONTH = re.compile(r"(?i)\b\d{1,2}(st|nd|rd|th)?\b|[日号]")
# a season is a time only with a word that points at one: "succulents need shade in summer" is about summers
_SEASON = re.compile(r"(?i)\b(last|this|previous|next|in|during|since|for|over|the)\s+(?:the\s+)?"
                     r"(spring|summer|autumn|fall|winter)\b(?:\s+((?:19|20)\d\d)\b)?"
                     r"|(去年|今年|明年|这个|在)([春夏秋冬])天")
_SEASON_MONTHS = {"spring": 3, "summer": 6, "autumn": 9, "fall": 9, "winter": 12, "春": 3, "夏": 6, "秋": 9, "冬": 12}
_LEAD_IN = re.compile(r"(?i)\b(in|on|during|from|since|at|of|for|over)\s*$")


@dataclass(frozen=True, slots=True)
class TimeWindow:
    start_ms: float
    end_ms: float  # exclusive
    text: str  # the words that set the window
    granularity: str  # day | week | month | year | season | since

    def to_dict(self) -> dict[str, str]:
        def iso(ms: float) -> str:
            return datetime.fromtimestamp(ms / 1000, tz=UTC).date().isoformat()

        return {"start": iso(self.start_ms), "end": iso(self.end_ms - 1), "text": self.text, "granularity": self.granularity}

    def distance_days(self, ts_ms: float) -> float:
        if ts_ms < self.start_ms:
            return (self.start_ms - ts_ms) / 86_400_000
        if ts_ms >= self.end_ms:
            return (ts_ms - self.end_ms) / 86_400_000
        return 0.0

    @property
    def days(self) -> float:
        return (self.end_ms - self.start_ms) / 86_400_000


def _ms(dt: datetime) -> float:
    return dt.replace(tzinfo=UTC).timestamp() * 1000


def _add_months(dt: datetime, months: int) -> datetime:
    y, m = divmod(dt.month - 1 + months, 12)
    return datetime(dt.year + y, m + 1, 1)


def _window(anchor: datetime, granularity: str) -> tuple[datetime, datetime]:
    day = datetime(anchor.year, anchor.month, anchor.day)
    if granularity == "week":
        start = day - timedelta(days=day.weekday())  # ISO weeks start on Monday
        return start, start + timedelta(days=7)
    if granularity == "month":
        start = datetime(day.year, day.month, 1)
        return start, _add_months(start, 1)
    if granularity == "year":
        return datetime(day.year, 1, 1), datetime(day.year + 1, 1, 1)
    return day, day + timedelta(days=1)


def _names_a_day_of_the_month(text: str) -> bool:
    """"March 3" or "3月5日" name a day; "March 2026" or "三月" a whole month."""
    if "月" in text:
        return bool(re.search(r"月(\d+|[一二三四五六七八九十]+)[日号]", text))
    return bool(_DAY_IN_MONTH.search(re.sub(r"\b(19|20)\d\d\b", "", text)))


def _tomorrow(now: datetime) -> datetime:
    """Midnight after today: windows that reach the present end here."""
    return datetime(now.year, now.month, now.day) + timedelta(days=1)


def _granularity(text: str) -> str:
    if _WEEK.search(text):
        return "week"
    if _MONTH.search(text):
        return "day" if _names_a_day_of_the_month(text) else "month"
    if _YEAR.search(text):
        return "year"
    return "day"


def _season(query: str, now: datetime) -> tuple[TimeWindow, str] | None:
    m = _SEASON.search(query)
    if not m:
        return None
    word = (m.group(2) or m.group(5)).lower()
    which = (m.group(1) or m.group(4) or "").lower()
    first = _SEASON_MONTHS[word]
    if m.group(3):  # "summer 2021": that year's
        start = datetime(int(m.group(3)), first, 1)
        return TimeWindow(_ms(start), _ms(_add_months(start, 3)), m.group(0), "season"), m.group(0)
    # the most recent season of that name that has started (winter spans the new year)
    year = now.year if now.month >= first else now.year - 1
    if which in ("last", "previous", "去年"):
        still_running = _add_months(datetime(year, first, 1), 3) > now
        if still_running or which == "去年":  # "last spring" is the one before; 去年 always is
            year -= 1
    if which in ("next", "明年"):  # the next one to start: asked in November, "next spring" is next year's
        year = year + 1
        start = datetime(year, first, 1)
        return TimeWindow(_ms(start), _ms(_add_months(start, 3)), m.group(0), "season"), m.group(0)
    leads = ("in", "during", "since", "for", "over", "the", "在", "这个")
    text = m.group(0).split(None, 1)[-1] if which in leads else m.group(0)
    start = datetime(year, first, 1)
    end = min(_add_months(start, 3), _tomorrow(now))
    if which == "since":
        end = _tomorrow(now)
    return TimeWindow(_ms(start), _ms(end), m.group(0), "since" if which == "since" else "season"), text


_DAYS_EN = {d: i for i, d in enumerate(WEEKDAYS.split("|"))}
_DAYS_ZH = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
# a weekday the query points at: "last Friday", "this Friday", "next Friday", "on Friday", "since Friday"
# (a plural, "on Fridays", never matches: \b after the day)
_WEEKDAY_EN = re.compile(rf"(?i)\b(last|previous|past|this|next|on|since)\s+({WEEKDAYS})\b")
# habits and rules, not events: "we never deploy on Friday", "always on Monday", "no meetings on Friday"
_HABIT = re.compile(r"(?i)\b(never|always|every|usually|no|not|don't|dont|avoid|each)\b(\W+\w+){0,3}\W*$")
# 上周五 / 上星期五 / 这周五 / 本周五 / 下周五 / 在周五 / 周五那天; 每周五 (every Friday) is a habit
_WEEKDAY_ZH = re.compile(r"(?<!每)(上个?|这个?|本|下个?|在)?(周|星期|礼拜)([一二三四五六日天])(那天)?")
_WEEKDAY_WORD = re.compile(rf"(?i)\b({WEEKDAYS})s?\b|(周|星期|礼拜)[一二三四五六日天]")


# a date written out ("23 January, 2022", "March 3", "2026-11-02", "3月5日"): it says more than a weekday beside it
_EXPLICIT_DATE = re.compile(rf"(?i)\d{{4}}-\d{{1,2}}-\d{{1,2}}|\b\d{{1,2}}(st|nd|rd|th)?\s+({MONTHS})\b"
                            rf"|\b({MONTHS})\s+\d{{1,2}}\b|\d+月\d+[日号]")


def _weekday(query: str, now: datetime) -> tuple[TimeWindow, str] | None:
    """A weekday the query asks about, as a one-day window (a "since" window from it)."""
    if _EXPLICIT_DATE.search(query):
        return None  # dateparser reads the date; the weekday beside it adds nothing
    today = datetime(now.year, now.month, now.day)
    monday = today - timedelta(days=today.weekday())
    for m in _WEEKDAY_EN.finditer(query):
        which, day = m.group(1).lower(), _DAYS_EN[m.group(2).lower()]
        if which == "on" and _HABIT.search(query[: m.start()]):
            continue
        back = (today.weekday() - day) % 7
        if which in ("last", "previous", "past"):
            date = today - timedelta(days=back or 7)  # the one before today
        elif which == "this":
            date = monday + timedelta(days=day)
        elif which == "next":
            date = today + timedelta(days=(day - today.weekday()) % 7 or 7)  # the first one after today
        else:  # on / since: the latest one up to today
            date = today - timedelta(days=back)
        return _day_window(date, now, m.group(0), which == "since"), m.group(0)
    for m in _WEEKDAY_ZH.finditer(query):
        which, day, that_day = m.group(1) or "", _DAYS_ZH[m.group(3)], m.group(4)
        if not which and not that_day:
            continue  # a bare 周五 is content: "周五不部署"
        week = monday - timedelta(days=7) if which.startswith("上") else (
            monday + timedelta(days=7) if which.startswith("下") else monday)
        date = week + timedelta(days=day)
        if which in ("在", "") and date > today:  # 在周五 / 周五那天: the latest one up to today
            date -= timedelta(days=7)
        return _day_window(date, now, m.group(0), False), m.group(0)
    return None


def _day_window(date: datetime, now: datetime, text: str, since: bool) -> TimeWindow:
    end = _tomorrow(now) if since else date + timedelta(days=1)
    return TimeWindow(_ms(date), _ms(end), text, "since" if since else "day")


# "next week", "next month", "next year", "tomorrow"; 下周, 下个月, 明年, 明天, 后天: windows ahead of now
_FORWARD = re.compile(r"(?i)\bnext\s+(week|month|year)\b|\b(tomorrow)\b"
                      r"|(下个?星期|下个?礼拜|下周)|(下个?月)|(明年)|(明天)|(后天)")


def _forward(query: str, now: datetime) -> tuple[TimeWindow, str] | None:
    m = _FORWARD.search(query)
    if not m:
        return None
    today = datetime(now.year, now.month, now.day)
    unit = (m.group(1) or "").lower()
    if unit == "week" or m.group(3):
        start = today - timedelta(days=today.weekday()) + timedelta(days=7)
        start, end, granularity = start, start + timedelta(days=7), "week"
    elif unit == "month" or m.group(4):
        start = _add_months(datetime(today.year, today.month, 1), 1)
        end, granularity = _add_months(start, 1), "month"
    elif unit == "year" or m.group(5):
        start, end, granularity = datetime(today.year + 1, 1, 1), datetime(today.year + 2, 1, 1), "year"
    else:
        start = today + timedelta(days=2 if m.group(7) else 1)
        end, granularity = start + timedelta(days=1), "day"
    return TimeWindow(_ms(start), _ms(end), m.group(0), granularity), m.group(0)


def detect_time_window(query: str, now_ms: float) -> tuple[TimeWindow | None, str]:
    """Returns (window or None, the query with the time expression removed).

    A window that would end past year 9999 or start before year 1 ("since 9999-12-31", "last year"
    with --now 0001-01-01) cannot be a datetime: such a query has no window, it is searched as text.
    """
    if not _HINT.search(query):
        return None, query
    try:
        return _detect_time_window(query, now_ms)
    except (OverflowError, ValueError, OSError):  # OSError: fromtimestamp out of the platform's range
        return None, query


def _detect_time_window(query: str, now_ms: float) -> tuple[TimeWindow | None, str]:
    now = datetime.fromtimestamp(now_ms / 1000, tz=UTC).replace(tzinfo=None)
    for read in (_weekday, _season, _forward):  # 明年春天: the season (next year's) before the year
        found_here = read(query, now)
        if found_here:
            window, text = found_here
            return window, _strip(query, text)
    try:
        from dateparser.search import search_dates
    except ImportError:  # pragma: no cover - dependency missing: behave as before
        return None, query
    settings = {"RELATIVE_BASE": now, "PREFER_DATES_FROM": "past", "RETURN_AS_TIMEZONE_AWARE": False}
    query = _arabic_numerals(query)  # dateparser reads 3周前 but not 三周前
    try:
        found = search_dates(query, languages=["en", "zh"], settings=settings) or []
    except Exception:
        return None, query
    tomorrow = _tomorrow(now)
    for text, anchor in found:
        text = _trim(text)
        if not text or not _HINT.search(text):
            continue  # dateparser also reads "we" alone as a date; keep real time words only
        if re.fullmatch(r"(?i)(may|march)", text) and not _AMBIGUOUS_MONTH_OK.search(query):
            continue  # modal "may" / verb "march" is not a month without a preposition or a number
        if _WEEKDAY_WORD.search(text) and not re.search(rf"\d|\b({MONTHS})\b", text, re.I):
            continue  # a weekday _weekday did not read is content ("deploy windows Friday", "周五不部署")
        granularity = _granularity(text)
        start, end = _window(anchor, granularity)
        before = query[: query.find(text)]
        if re.search(r"(?i)\bsince\s*$|自从\s*$|从\s*$", before):
            start, end, granularity = start, max(end, tomorrow), "since"
            text = before[before.lower().rfind("since") :] + text if "since" in before.lower() else text
        end = min(end, max(tomorrow, start + timedelta(days=1)))  # "this week" ends with today
        return TimeWindow(_ms(start), _ms(end), text.strip(), granularity), _strip(query, text)
    return None, query


_AMBIGUOUS_MONTH_OK = re.compile(r"(?i)\b(in|since|during|of|last|this|early|late|mid|until)\s+(may|march)\b"
                                 r"|\b(may|march)\s+\d|\d\s+(may|march)\b")
_TIMEISH_TOKEN = re.compile(rf"(?i)^(\d+(st|nd|rd|th)?|{MONTHS}|{WEEKDAYS}|yesterday|today|ago|last|past|previous|this|"
                            r"week|weeks|month|months|year|years|weekend|one|two|three|four|five|six|seven|eight|nine|ten|a|"
                            r"\d{4}-\d{1,2}-\d{1,2}|.*[^\x00-\x7f].*)$")


_ZH_DIGITS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_ZH_COUNT = re.compile(r"([一二两三四五六七八九十]{1,3})(?=(天|周|个星期|星期|个月|年)前)")


def _zh_number(text: str) -> int:
    if text.startswith("十"):
        return 10 + (_ZH_DIGITS.get(text[1:], 0) if len(text) > 1 else 0)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return _ZH_DIGITS[tens] * 10 + (_ZH_DIGITS[ones] if ones else 0)
    return _ZH_DIGITS[text]


def _arabic_numerals(query: str) -> str:
    return _ZH_COUNT.sub(lambda m: str(_zh_number(m.group(1))), query)


def _trim(text: str) -> str:
    """Drop words dateparser swallowed at either end ("On 3 March 2026 we" → "3 March 2026")."""
    words = text.split()
    while words and not _TIMEISH_TOKEN.match(words[0].strip(",.")):
        words.pop(0)
    while words and not _TIMEISH_TOKEN.match(words[-1].strip(",.")):
        words.pop()
    return " ".join(words)


def _strip(query: str, text: str) -> str:
    idx = query.find(text)
    if idx < 0:
        return query
    head = _LEAD_IN.sub("", query[:idx])
    stripped = " ".join((head + " " + query[idx + len(text) :]).split())
    return stripped
