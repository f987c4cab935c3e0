"""Chunker parity with OpenClaw's HEAD `chunkMarkdown` (spec §10.3)."""

from openclaw_memtui.engine.ingest.chunking import chunk_markdown, remap_lines
from openclaw_memtui.engine.textutil import utf16_len, weighted_len


def spans(chunks):
    return [(c.start_line, c.end_line, c.text) for c in chunks]


def test_small_budget_with_overlap_matches_openclaw():
    content = "# Title\n\nPara one line.\nPara two line.\n\n## Section\n" + "x" * 50
    assert spans(chunk_markdown(content, 8, 2)) == [
        (1, 3, "# Title\n\nPara one line."),
        (3, 5, "Para one line.\nPara two line.\n"),
        (4, 6, "Para two line.\n\n## Section"),
        (6, 7, "## Section\n" + "x" * 32),
        (7, 7, "x" * 32 + "\n" + "x" * 18),
    ]


def test_no_overlap_cuts_long_lines():
    content = "# Title\n\nPara one line.\nPara two line.\n\n## Section\n" + "x" * 50
    assert spans(chunk_markdown(content, 10, 0)) == [
        (1, 5, "# Title\n\nPara one line.\nPara two line.\n"),
        (6, 6, "## Section"),
        (7, 7, "x" * 40),
        (7, 7, "x" * 10),
    ]


def test_default_budget_300_lines():
    content = "\n".join(f"Line number {i}: lorem ipsum dolor sit amet." for i in range(1, 301))
    got = [(c.start_line, c.end_line, len(c.text)) for c in chunk_markdown(content)]
    assert got == [(1, 36, 1574), (29, 64, 1583), (57, 92, 1583), (85, 119, 1559), (112, 146, 1574),
                   (139, 173, 1574), (166, 200, 1574), (193, 227, 1574), (220, 254, 1574), (247, 281, 1574),
                   (274, 300, 1214)]


def test_cjk_weighting():
    assert weighted_len("abc中文") == 11 and weighted_len("你好") == 8 and weighted_len("😀") == 2
    assert weighted_len("\U00020000") == 4
    assert [len(c.text) for c in chunk_markdown("中" * 25, 10, 0)] == [10, 10, 5]
    cjk = "\n".join(["你" * 20] * 20)
    assert [(c.start_line, c.end_line) for c in chunk_markdown(cjk, 50, 0)] == [(i, i + 1) for i in range(1, 20, 2)]
    assert len(chunk_markdown(cjk, 50, 10)) == 19
    ascii_ = "\n".join(["a" * 20] * 20)
    got = [(c.start_line, c.end_line, len(c.text)) for c in chunk_markdown(ascii_, 50, 0)]
    assert got == [(1, 9, 188), (10, 18, 188), (19, 20, 41)]


def test_edge_cases():
    assert spans(chunk_markdown("Line A\nLine B\n")) == [(1, 3, "Line A\nLine B\n")]
    assert spans(chunk_markdown("a\r\nb")) == [(1, 2, "a\r\nb")]
    assert spans(chunk_markdown("")) == [(1, 1, "")]
    assert [len(c.text) for c in chunk_markdown("a" * 2000, 200, 0)] == [800, 800, 400]


def test_budget_counts_utf16_units_and_never_splits_a_pair():
    # An emoji is one code point but two UTF-16 units (its JS length): a 40-unit budget holds 20, not 40
    emoji = chunk_markdown("😀" * 50, 10, 0)
    assert [(c.start_line, c.end_line, c.text) for c in emoji] == [(1, 1, "😀" * 20), (1, 1, "😀" * 20), (1, 1, "😀" * 10)]
    # after one BMP character the 40th unit would be half an emoji: the cut comes before the pair
    mixed = chunk_markdown("a" + "😀" * 30, 10, 0)
    assert [c.text for c in mixed] == ["a" + "😀" * 19, "😀" * 11]
    assert [utf16_len(c.text) for c in mixed] == [39, 22]
    # astral CJK weighs 4: a 396-unit cut (198 characters) is re-cut into 98-unit pieces, two per chunk
    cjk = chunk_markdown("\U00020000" * 500, 99, 0)
    assert [utf16_len(c.text) for c in cjk] == [197, 197, 103, 197, 103, 197, 12]
    assert cjk[0].text == "\U00020000" * 49 + "\n" + "\U00020000" * 49


def test_remap_to_jsonl_lines():
    chunks = chunk_markdown("a\nb\nc\nd\ne", 400, 80)
    remapped = remap_lines(chunks, [4, 6, 7, 10, 13])
    assert remapped[0].start_line == 4 and remapped[-1].end_line == 13
