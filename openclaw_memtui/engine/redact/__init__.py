"""Masking of secrets in transcript text: a rule-for-rule port of OpenClaw's redaction (see `patterns`).

Importing this package compiles the port's regexes, so callers import it lazily, only when a
transcript's text is read (tests/test_start_cost.py guards that a keyword-only search does not).
"""

from __future__ import annotations

from .patterns import RULE_NAMES, redact_secrets

__all__ = ["RULE_NAMES", "redact_secrets"]
