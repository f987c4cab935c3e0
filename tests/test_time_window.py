"""Time expressions → windows with a fixed clock, and how the window changes ranking."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime

import pytest

from openclaw_memtui.engine.index import MemoryIndex
from openclaw_memtui.engine.search.rank import SearchParams, rank
from openclaw_memtui.engine.search.timewindow import detect_time_window

from .helpers import env_for_subprocess, write


def ms(*args) -> float:
    return datetime(*args, tzinfo=UTC).timestamp() * 1000


def window(query: str, now: tuple) -> tuple[str, str, str] | None:
    w, _ = detect_time_window(query, ms(*now))
    if w is None:
        return None
    d = w.to_dict()
    return d["start"], d["end"], d["granularity"]


MONDAY = (2026, 11, 30, 12)  # a Monday


@pytest.mark.parametrize("query, expected", [
    ("what did we discuss yesterday", ("2026-11-29", "2026-11-29", "day")),
    ("notes from last week", ("2026-11-23", "2026-11-29", "week")),
    ("what happened two weeks ago", ("2026-11-16", "2026-11-22", "week")),
    ("decisions this month", ("2026-11-01", "2026-11-30", "month")),
    ("the offsite in March", ("2026-03-01", "2026-03-31", "month")),
    ("what changed since May", ("2026-05-01", "2026-11-30", "since")),
    ("the 2026-11-02 standup", ("2026-11-02", "2026-11-02", "day")),
    ("trips last spring", ("2026-03-01", "2026-05-31", "season")),
    ("昨天的会议", ("2026-11-29", "2026-11-29", "day")),
    ("上周我们讨论的 API 鉴权方案是什么？", ("2026-11-23", "2026-11-29", "week")),
    ("上个月的发布", ("2026-10-01", "2026-10-31", "month")),
    ("三月的计划", ("2026-03-01", "2026-03-31", "month")),
    ("今年的目标", ("2026-01-01", "2026-11-30", "year")),
    ("三周前审计提出了什么问题", ("2026-11-09", "2026-11-15", "week")),
    ("五天前说了什么", ("2026-11-25", "2026-11-25", "day")),
    ("两个月前的计划", ("2026-09-01", "2026-09-30", "month")),
])
def test_expressions_on_a_monday(query, expected):
    assert window(query, MONDAY) == expected


def test_boundaries():
    sunday = (2026, 11, 29, 9)
    assert window("last week", sunday) == ("2026-11-16", "2026-11-22", "week")  # ISO weeks start on Monday
    assert window("last month", (2026, 3, 31, 8)) == ("2026-02-01", "2026-02-28", "month")
    new_year = (2026, 1, 1, 10)
    assert window("last week", new_year) == ("2025-12-22", "2025-12-28", "week")
    assert window("last year", new_year) == ("2025-01-01", "2025-12-31", "year")
    assert window("上个月", new_year) == ("2025-12-01", "2025-12-31", "month")
    assert window("去年", new_year) == ("2025-01-01", "2025-12-31", "year")
    assert window("yesterday", (2026, 3, 1, 0, 30)) == ("2026-02-28", "2026-02-28", "day")
    assert window("this week", MONDAY) == ("2026-11-30", "2026-11-30", "week")  # ends today


@pytest.mark.parametrize("query", [
    "When did Caroline go to the LGBTQ support group?", "we may need a bigger database", "API 鉴权方案",
    "what is the oncall rotation",
    "How long has Caroline had her current group of friends for?",
])
def test_queries_without_time(query):
    w, stripped = detect_time_window(query, ms(*MONDAY))
    assert w is None and stripped == query


def test_time_words_are_stripped():
    w, stripped = detect_time_window("what did we decide last week about auth", ms(*MONDAY))
    assert w.text == "last week" and stripped == "what did we decide about auth"
    w, stripped = detect_time_window("notes from last year", ms(*MONDAY))
    assert stripped == "notes"


@pytest.fixture
def dated_index(tmp_path, make_settings):
    ws = tmp_path / "ws"
    write(ws / "MEMORY.md", "# Memory\nAuth scheme rules of thumb: prefer short-lived tokens.\n")
    write(ws / "memory" / "2026-11-25.md", "# 2026-11-25\nWe chose OAuth client credentials for the auth scheme.\n")
    write(ws / "memory" / "2026-10-01.md", "# 2026-10-01\nWe chose static API keys for the auth scheme.\n")
    write(ws / "memory" / "2026-06-01-week.md", "# 2026-06-01\nThe week was busy; auth scheme postponed every week.\n")
    index = MemoryIndex(make_settings(ws), provider_name="none")
    index.sync()
    return index


def test_window_boosts_inside_demotes_outside_and_spares_evergreen(dated_index):
    pool = dated_index.retrieve("auth scheme last week", now_ms=ms(*MONDAY))
    assert pool.time_window.text == "last week" and pool.leg_query == "auth scheme"
    res = {r.path: r for r in rank(pool, SearchParams(min_score=0, max_results=10))}
    assert res["memory/2026-11-25.md"].time_factor == pytest.approx(1.25)
    assert res["MEMORY.md"].time_factor == 1.0
    assert res["memory/2026-10-01.md"].time_factor < res["memory/2026-11-25.md"].time_factor
    assert res["memory/2026-06-01-week.md"].time_factor == pytest.approx(0.25)  # far away: the floor
    assert rank(pool, SearchParams(min_score=0))[0].path == "memory/2026-11-25.md"
    filtered = [r.path for r in rank(pool, SearchParams(min_score=0, max_results=10, time_mode="filter"))]
    assert "memory/2026-10-01.md" not in filtered and "MEMORY.md" in filtered and "memory/2026-11-25.md" in filtered
    off = {r.path: r.time_factor for r in rank(pool, SearchParams(min_score=0, max_results=10, time_mode="off"))}
    assert set(off.values()) == {1.0}


def test_no_window_means_no_penalty_for_old_notes(dated_index):
    pool = dated_index.retrieve("static API keys auth scheme", now_ms=ms(*MONDAY))
    assert pool.time_window is None
    top = rank(pool, SearchParams(min_score=0))[0]
    assert top.path == "memory/2026-10-01.md" and top.decay == 1.0 and top.time_factor == 1.0


def test_date_leg_finds_the_window_without_shared_words(dated_index):
    pool = dated_index.retrieve("what happened last week", now_ms=ms(*MONDAY))
    assert "memory/2026-11-25.md" in [c.path for c in pool.candidates]


def test_cli_json_reports_window_and_factor(dated_index):
    s = dated_index.settings
    out = subprocess.run([sys.executable, "-m", "openclaw_memtui", "search", "上周 auth scheme", "--workspace", str(s.workspace),
                          "--db", str(s.db_path), "--provider", "none", "--json", "--now", "2026-11-30T12:00:00Z"],
                         capture_output=True, text=True, env=env_for_subprocess())
    data = json.loads(out.stdout)
    assert data["time_window"] == {"start": "2026-11-23", "end": "2026-11-29", "text": "上周", "granularity": "week"}
    assert data["results"][0]["path"] == "memory/2026-11-25.md" and data["results"][0]["time_factor"] == 1.25


def test_status_counts_chunks_by_date_source(dated_index):
    assert dated_index.status().chunk_dates == {"evergreen": 1, "name": 3}
