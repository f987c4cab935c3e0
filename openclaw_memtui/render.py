"""Show untrusted memory text literally: no terminal control sequences, no markup."""

from __future__ import annotations

import re

# C0 controls except tab/newline, DEL, C1 controls (CSI, OSC, ...). ESC starts every sequence, so
# replacing the control characters themselves is enough to make any sequence inert.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def safe(text: str, keep_newlines: bool = True) -> str:
    """Replace control characters with visible escapes (ESC → "\\x1b")."""
    cleaned = _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)
    return cleaned if keep_newlines else cleaned.replace("\n", " ")
