"""The time-window factor's slope: it halves per half-window of distance, pinned at exact distances.

The ranking tests check only the ends of the curve (× 1.25 inside, the 0.25 floor far away, "nearer ranks
higher"), so a change of slope would pass them; these pin the values between.
"""

from __future__ import annotations

import pytest

from openclaw_memtui.engine.search.rank import SearchParams, time_factor
from openclaw_memtui.engine.search.timewindow import TimeWindow

DAY_MS = 86_400_000.0
START = 1_795_000_000_000.0  # any instant; the factor depends only on distances
PARAMS = SearchParams()  # the shipped defaults: boost 0.25, floor 0.25


def window(days: float) -> TimeWindow:
    return TimeWindow(start_ms=START, end_ms=START + days * DAY_MS, text="last week", granularity="week")


def test_half_a_window_away_the_factor_is_half_the_peak_on_either_side():
    week = window(7)
    peak = 1.0 + PARAMS.time_boost
    assert time_factor(week, START + 3 * DAY_MS, PARAMS) == pytest.approx(peak)  # inside
    assert time_factor(week, START - 3.5 * DAY_MS, PARAMS) == pytest.approx(peak * 0.5)  # half a week before
    assert time_factor(week, START + 10.5 * DAY_MS, PARAMS) == pytest.approx(peak * 0.5)  # half a week after
    assert time_factor(week, START - 7 * DAY_MS, PARAMS) == pytest.approx(peak * 0.25)  # a whole week: halved twice
    assert time_factor(week, START - 1.75 * DAY_MS, PARAMS) == pytest.approx(peak * 0.5 ** 0.5)  # smooth between


def test_a_day_window_halves_over_two_days_not_half_a_day():
    day = window(1)
    assert time_factor(day, START - 2 * DAY_MS, PARAMS) == pytest.approx((1.0 + PARAMS.time_boost) * 0.5)


def test_the_floor_and_the_boost_are_the_settings():
    week = window(7)
    params = SearchParams(time_boost=1.0, time_floor=0.6)
    assert time_factor(week, START - 3.5 * DAY_MS, params) == pytest.approx(1.0)  # peak 2, halved
    assert time_factor(week, START - 70 * DAY_MS, params) == pytest.approx(0.6)  # the floor holds
    assert time_factor(week, None, params) == 1.0  # undated (evergreen): untouched
    assert time_factor(week, START - 3.5 * DAY_MS, SearchParams(time_mode="filter")) is None
