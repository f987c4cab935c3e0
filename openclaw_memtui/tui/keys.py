"""The key a binding answers to after the user's remap, spelled for text that names it.

The config's `tui.keys` reaches Textual as the app's keymap (`App.set_keymap`), which rebinds every
binding with that id on the app, its screens and widgets. Hints and help text are prose, not the
footer, so they ask here instead of repeating a `BINDINGS` default the user may have remapped.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from textual.app import App
from textual.binding import Binding
from textual.keys import format_key


def key_for(app: App[Any], bindings: Iterable[object], binding_id: str) -> str:
    """The first key of the binding `binding_id` among `bindings` (a `BINDINGS` list) after the app's
    keymap, as prose spells it (`a`, `esc`, `ctrl+t`, `+`)."""
    binding = next(b for b in bindings if isinstance(b, Binding) and b.id == binding_id)
    keys = app._keymap.get(binding_id, binding.key)  # Textual keeps the remap there (set_keymap)
    return format_key(keys.split(",")[0].strip())
