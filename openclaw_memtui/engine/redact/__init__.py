"""Mask secrets in transcript text before it is indexed (OpenClaw spec §4.5).

Memory markdown is the user's own writing and is not redacted; chat transcripts often carry pasted
keys, so their text is masked the way OpenClaw does it when *it* indexes a session transcript.

Parity target: OpenClaw 2026.9.6. Its memory indexer (``buildSessionEntryInProcess`` in
``dist/session-files-*.mjs``) passes each user/assistant message text through
``redactSensitiveText(text, {mode: "tools"})`` with no custom patterns, i.e. the built-in
``DEFAULT_REDACT_PATTERNS`` (field patterns + vendor token patterns + the AWS secret-key scanner),
after three structural passes (HTTP auth parameters, URL query values, form bodies). This package
is a Python port of that path, rule for rule and in the same order, with the same masking:

* ``_mask_token``: shorter than 18 UTF-16 units -> ``***``; otherwise the first 6 units, ``…`` and
  the last 4 (never splitting a surrogate pair), exactly like ``maskToken``.
* PEM private keys: first line, ``…redacted…``, last line (``redactPemBlock``).
* URL query values of secret-named parameters: ``maskToken``; form-body values: ``***``;
  structured ``Authorization: Digest a=b, …`` parameters: ``***``.

``tests/fixtures/redaction/openclaw-2026.9.6.json`` holds the real OpenClaw's output for a corpus
(made by ``tests/fixtures/redaction/make_oracle.mjs``); ``tests/test_redact_parity.py`` checks every case.

Known, deliberate gaps (not at parity):

* Registered secret values (``redactRegisteredSecretValues``): OpenClaw also masks the exact values
  of secrets it resolved from its own config at runtime. memtui does not load those secrets, so a
  secret that matches no pattern is masked by OpenClaw only.
* User ``logging.redactPatterns`` are ignored by OpenClaw's indexer path too (it passes explicit
  options), so nothing is lost there.
* Unicode corner cases of JS regex flags: in OpenClaw's ``iu`` regexes (form-body context and the
  prefilter) ``ſ`` (U+017F) and the Kelvin sign (U+212A) case-fold to ``s``/``k``; here all matching
  is ASCII case-insensitive. ``\\p{C}`` (used for invisible characters in form keys) is computed from
  Python's Unicode database, which may be a version behind Node's ICU for newly assigned characters.
* Positions are counted in code points here and in UTF-16 units in JS; they only differ around
  astral characters (emoji), which matters only for the 16 384-unit chunk boundaries of texts longer
  than 32 768 units (handled in UTF-16 units, as in JS) and for the AWS scanner's neighbours.

The package follows the port's structure: `jsregex` (JS -> Python regex translation), `masking`
(maskToken and friends), `patterns` (the tables of redact-patterns.ts), `forms` (URL query and
form-body passes), `auth_params` (structured HTTP auth), `scanners` (PEM and AWS keys) and `apply`
(the rules in order, the prefilter and the entry point `redact_secrets`).

Importing it compiles the port's regexes, so callers import it lazily, only when a transcript's
text is read (tests/test_start_cost.py guards that a keyword-only search does not).
"""

from __future__ import annotations

from .apply import redact_secrets
from .patterns import RULE_NAMES

__all__ = ["RULE_NAMES", "redact_secrets"]
