"""Line scanning shared by the filters: JavaScript's line boundaries and forward searches that
remember their answers (so a never-closed block costs one scan of the text, not one per block).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# JavaScript's multiline `^`/`$` also break lines at \r, U+2028 and U+2029; Python's only at \n
_JS_LINE_START = r"(?:\A|(?<=[\n\r\u2028\u2029]))"


_JS_LINE_END = r"(?=[\n\r\u2028\u2029]|\Z)"


@dataclass(frozen=True, slots=True)
class _Line:
    start: int
    end: int
    next: int  # where the following line starts; len(text) + 1 past the last one
    trimmed: str


def _read_line(text: str, start: int) -> _Line | None:
    if start > len(text):
        return None
    newline = text.find("\n", start)
    end = len(text) if newline < 0 else newline
    return _Line(start, end, end + 1, text[start:end].strip())


def _line_start(text: str, index: int) -> int:
    return text.rfind("\n", 0, index) + 1


class _Forward:
    """Forward searches in one fixed text that remember each needle's last answer.

    The first match at or after a position never depends on where an earlier search started, so a
    search starting inside a stretch already known to hold no match is answered at once. OpenClaw's
    loops search to the end of the text once per block when a block is never closed: a message of
    tens of thousands of such blocks took minutes; with this every stretch is scanned once.
    """

    def __init__(self, text: str) -> None:
        self.text = text
        self._last: dict[object, tuple[int, int, object]] = {}  # needle -> (searched from, found at, answer)

    def _recall(self, key: object, start: int) -> tuple[bool, object]:
        known = self._last.get(key)
        if known is not None and known[0] <= start and (known[1] < 0 or start <= known[1]):
            return True, known[2]
        return False, None

    def find(self, needle: str, start: int) -> int:
        hit, answer = self._recall(needle, start)
        if not hit:
            answer = self.text.find(needle, start)
            self._last[needle] = (start, answer, answer)
        return answer  # type: ignore[return-value]

    def search(self, pattern: re.Pattern[str], start: int) -> re.Match[str] | None:
        hit, answer = self._recall(pattern, start)
        if not hit:
            answer = pattern.search(self.text, start)
            self._last[pattern] = (start, answer.start() if answer else -1, answer)
        return answer  # type: ignore[return-value]

    def line(self, value: str, start: int = 0) -> _Line | None:
        """The first line at or after `start` that is exactly `value` once trimmed."""
        key = ("line", value)
        hit, answer = self._recall(key, start)
        if hit:
            return answer  # type: ignore[return-value]
        found: _Line | None = None
        index = self.find(value, start)
        while index >= 0:
            line = _read_line(self.text, _line_start(self.text, index))
            assert line is not None  # index < len(text), so its line exists
            if line.trimmed == value:
                found = line
                break
            index = self.find(value, line.next)
        self._last[key] = (start, index, found)
        return found


def _skip_empty_lines(text: str, start: int, trimmed: bool = True) -> int:
    line = _read_line(text, start)
    while line and (line.trimmed == "" if trimmed else line.start == line.end):
        start = line.next
        line = _read_line(text, start)
    return start
