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


def _keys(spec: str) -> set[str]:
    return {k.strip().lower() for k in spec.split(",") if k.strip()}


def checked_keymap(keymap: dict[str, str], app_bindings: Iterable[object],
                   scopes: Iterable[Iterable[object]]) -> tuple[dict[str, str], list[str]]:
    """The remaps of `keymap` that take no other binding's key, and one line for each refused one.

    `app_bindings` answer everywhere, so they may not share a key with any scope's; a scope (a screen,
    a widget) may not share one within itself. Only a clash the remap makes counts (help's f1 closes
    help on purpose). Remapping toggle_tuning to ctrl+q silently took Quit away."""
    groups = [list(app_bindings), *[list(s) for s in scopes]]

    def keyed(group: list[object], remap: dict[str, str]) -> list[tuple[str, str, set[str]]]:
        return [(b.id, b.description or b.action, _keys(remap.get(b.id, b.key))) for b in group
                if isinstance(b, Binding) and b.id]

    def clashes(remap: dict[str, str]) -> set[tuple[str, str]]:
        app = keyed(groups[0], remap)
        found: set[tuple[str, str]] = set()
        for i, group in enumerate(groups):
            mine = keyed(group, remap)
            others = mine if i == 0 else mine + app
            for a_id, _, a_keys in mine:
                for b_id, _, b_keys in others:
                    if b_id != a_id and a_keys & b_keys:
                        found |= {(a_id, b_id), (b_id, a_id)}
        return found

    new = clashes(keymap) - clashes({})  # the whole keymap at once: two keys swapped do not clash
    names = {b.id: (b.description or b.action) for g in groups for b in g if isinstance(b, Binding) and b.id}
    accepted: dict[str, str] = {}
    errors: list[str] = []
    for binding_id, spec in keymap.items():
        others = sorted({b for a, b in new if a == binding_id})
        if not others:
            accepted[binding_id] = spec
            continue
        other = others[0]
        errors.append(f"tui.keys: {binding_id} = '{spec}' not applied: it is the key of {other} "
                      f"({names.get(other, other)}); pick another key")
    return accepted, errors
