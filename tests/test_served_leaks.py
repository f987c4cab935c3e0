"""What `memtui mcp` serves is masked on the whole before it is cut, names no known key in any field,
reads only what the access rule lets the index hold, and gives the rest of a line longer than an answer."""

from __future__ import annotations

import json
import string

from .helpers import env_for_subprocess, write
from .test_mcp import call, keyword_args, server

BEGIN, END = "-----BEGIN RSA PRIVATE KEY-----", "-----END RSA PRIVATE KEY-----"


def _key_lines(n: int) -> list[str]:
    """`n` distinct 64-character body lines, each one word for the keyword index."""
    letters = string.ascii_letters
    return [(letters[i % 52] + letters[(i * 7) % 52] + "Qk" * 31) for i in range(n)]


async def test_key_lines_never_come_back_from_a_slice_or_a_snippet_cut_inside_the_block(tmp_path, workspace):
    body = _key_lines(80)  # ~5,200 characters: the block spans three chunks of the default 1,600
    write(workspace / "memory" / "keys.md",
          "# Deploy key\npelican deploy key below\n" + "\n".join([BEGIN, *body, END]) + "\nafter the key\n")
    async with server(tmp_path, *keyword_args(tmp_path, workspace)) as s:
        inside = await s.call_tool("memory_get", {"path": "memory/keys.md", "from": 10, "lines": 5})
        tail = await s.call_tool("memory_get", {"path": "memory/keys.md", "from": 40})
        head = await s.call_tool("memory_search", {"query": "pelican deploy key"})
        middle = await s.call_tool("memory_search", {"query": body[40]})  # a chunk with neither BEGIN nor END
        end = await s.call_tool("memory_search", {"query": body[-2]})
    for answer in (inside, tail, head, middle, end):
        for shown in (answer.content[0].text, json.dumps(answer.structured_content)):
            leaked = [line for line in body if line in shown]
            assert not leaked, f"{len(leaked)} key lines served"
    got = json.loads(inside.content[0].text)
    assert got["lineNumbers"] == [10, 11, 12, 13, 14] and len(got["text"].split("\n")) == 5  # still line for line
    assert "after the key" in json.loads(tail.content[0].text)["text"]
    assert "pelican deploy key" in json.loads(head.content[0].text)["results"][0]["snippet"]


async def test_a_configured_key_is_masked_in_every_field_of_an_answer_even_a_file_name(tmp_path, workspace):
    key = "Zq8Xv2Lp9Ws4Nd7HkR3mTa6Y"  # no vendor shape: only knowing it finds it
    shaped = "sk-proj-AbCdEfGhIjKlMnOpQrStUv"  # a shape memtui was not configured with
    write(workspace / "memory" / f"{key}.md", "pelican rotation notes\n")
    write(workspace / "memory" / f"{shaped}.md", "pelican shaped notes\n")
    config = tmp_path / "config.toml"
    config.write_text(f'[remote]\napiKey = "{key}"\n', encoding="utf-8")
    env = env_for_subprocess()
    for name in ("OPENAI_API_KEY", "GEMINI_API_KEY", "VOYAGE_API_KEY", "MISTRAL_API_KEY"):
        env.pop(name, None)
    async with server(tmp_path, *keyword_args(tmp_path, workspace), "--config", str(config), env=env) as s:
        found = await s.call_tool("memory_search", {"query": "pelican"})
        refused = await s.call_tool("memory_get", {"path": f"memory/{key}.md", "from": 1, "lines": 1})
    assert len(json.loads(found.content[0].text)["results"]) == 2
    for answer in (found, refused):
        for shown in (answer.content[0].text, json.dumps(answer.structured_content or {})):
            assert key not in shown and key[:12] not in shown and key[-12:] not in shown
            assert shaped not in shown


async def test_a_line_longer_than_an_answer_is_read_to_its_end_with_next_offset(tmp_path, workspace):
    line = "".join(f"w{i:06d} " for i in range(20_000))  # 160,000 characters on one line
    write(workspace / "memory" / "long.md", f"first\n{line}\nlast\n")
    async with server(tmp_path, *keyword_args(tmp_path, workspace)) as s:
        parts, args = [], {"path": "memory/long.md", "from": 2}
        for _ in range(5):
            got = await call(s, "memory_get", **args)
            parts.append(got["text"])
            if not got["truncated"] or got["nextFrom"] != 2:
                break
            args = {"path": "memory/long.md", "from": got["nextFrom"], "offset": got["nextOffset"]}
        listed = await s.list_tools()
    assert len(parts) == 3 and parts[0] == line[:60_000]
    assert "".join(parts) == line + "\nlast\n"  # the line whole, then the rest of the file
    described = next(t for t in listed.tools if t.name == "memory_get")
    assert "nextOffset" in described.description and "offset" in described.input_schema["properties"]
