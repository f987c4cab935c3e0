"""Which words are a time: a weekday or a season the query points at is a window, one that is part of the
content is not; "next …" points forward. English and Chinese, with a fixed clock (Monday 2026-11-30)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from openclaw_memtui.engine.search.timewindow import detect_time_window

NOW = datetime(2026, 11, 30, 12, tzinfo=UTC).timestamp() * 1000  # a Monday


def window(query: str) -> tuple[str, str, str] | None:
    w, _ = detect_time_window(query, NOW)
    return None if w is None else (w.to_dict()["start"], w.to_dict()["end"], w.granularity)


@pytest.mark.parametrize("query, expected", [
    ("what did we decide last Friday", ("2026-11-27", "2026-11-27", "day")),
    ("what did we decide on Friday", ("2026-11-27", "2026-11-27", "day")),
    ("the standup this Friday", ("2026-12-04", "2026-12-04", "day")),
    ("what changed since Friday", ("2026-11-27", "2026-11-30", "since")),
    ("last Monday's incident", ("2026-11-23", "2026-11-23", "day")),  # today is Monday: the one before
    ("上周五开会说了什么", ("2026-11-27", "2026-11-27", "day")),
    ("在周五说了什么", ("2026-11-27", "2026-11-27", "day")),
    ("这周三的评审", ("2026-12-02", "2026-12-02", "day")),
    ("trips in summer", ("2026-06-01", "2026-08-31", "season")),
    ("去年夏天去了哪里", ("2025-06-01", "2025-08-31", "season")),
    ("plans for the summer", ("2026-06-01", "2026-08-31", "season")),
    ("which state did she visit in summer 2021", ("2021-06-01", "2021-08-31", "season")),
    ("what did she finish last Friday on 23 January, 2022", ("2022-01-23", "2022-01-23", "day")),  # the date wins
])
def test_a_time_the_query_asks_about(query, expected):
    assert window(query) == expected


@pytest.mark.parametrize("query", [
    "deploy windows Friday",
    "we never deploy on Fridays",
    "we never deploy on Friday",  # a rule, not an event
    "no meetings on Wednesday",
    "周五不部署",
    "每周五发布",
    "succulent summer shade",
    "多肉夏天要遮阴",
])
def test_a_weekday_or_season_that_is_content_is_searched_as_words(query):
    w, stripped = detect_time_window(query, NOW)
    assert w is None and stripped == query


@pytest.mark.parametrize("query, expected", [
    ("next spring", ("2027-03-01", "2027-05-31", "season")),  # spring 2026 is past
    ("plans for next week", ("2026-12-07", "2026-12-13", "week")),
    ("paternity leave next month", ("2026-12-01", "2026-12-31", "month")),
    ("next year's budget", ("2027-01-01", "2027-12-31", "year")),
    ("the review next Friday", ("2026-12-04", "2026-12-04", "day")),
    ("tomorrow's meeting", ("2026-12-01", "2026-12-01", "day")),
    ("明年春天的计划", ("2027-03-01", "2027-05-31", "season")),
    ("下周的计划", ("2026-12-07", "2026-12-13", "week")),
    ("下个月休假", ("2026-12-01", "2026-12-31", "month")),
    ("明年的预算", ("2027-01-01", "2027-12-31", "year")),
    ("下周五的评审", ("2026-12-11", "2026-12-11", "day")),
    ("明天的会", ("2026-12-01", "2026-12-01", "day")),
])
def test_next_points_forward(query, expected):
    start, end, granularity = window(query) or ("", "", "")
    assert (start, end, granularity) == expected and start > "2026-11-30"


def test_the_time_words_leave_the_query_and_content_words_stay():
    assert detect_time_window("what did we decide on Friday", NOW)[1] == "what did we decide"
    assert detect_time_window("上周五开会说了什么", NOW)[1] == "开会说了什么"
    assert detect_time_window("deploy windows Friday", NOW)[1] == "deploy windows Friday"
    assert detect_time_window("plans for the summer", NOW)[1] == "plans"
