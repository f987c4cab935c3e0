"""The footer of the pane you are in: every key of the focused widget, as remapped, then the screen's and
the app's as they fit.

Textual's footer shows only the bindings marked `show`, so the result list's own keys (judge, copy as JSON)
were nowhere on screen while the list had the focus, and at 80 columns the app's keys pushed the list's off the
edge. Here the focused widget's bindings that have an id and a description (memtui's own, each remappable) are
shown even when marked hidden, Quit and Help always, and the other app keys only while they fit; help (f1) has
them all.
"""

from __future__ import annotations

from collections.abc import Iterator
from itertools import groupby

from textual.binding import Binding
from textual.widget import Widget
from textual.widgets import Footer
from textual.widgets._footer import FooterKey, FooterLabel, KeyGroup  # Textual's own parts of a footer

ALWAYS = ("quit", "help")  # actions kept whatever the width
# The keys a person reaches for everywhere (the app's, and the home screen's main ones), in the order the footer
# shows them, after the focused pane's keys and the screen's own: binding ids (Textual's own Quit by its action)
LEAD = ("quit", "help", "toggle_tuning", "sync", "cancel_sync", "sync_screen", "clear_time_window", "browse_source")


def lead_rank(binding: Binding) -> int | None:
    """Where `binding` stands in LEAD, None when it is not one of those keys."""
    name = binding.id or binding.action
    return LEAD.index(name) if name in LEAD else None


def lead_order(binding: Binding) -> int:
    """A sort key: the LEAD keys in LEAD's order, every other key after them."""
    rank = lead_rank(binding)
    return len(LEAD) if rank is None else rank
PALETTE_ROOM = 13  # the palette key docked at the right edge ("▏^p palette ")


def key_cost(key: str, description: str) -> int:
    """Columns one key takes in the footer: " key description " and the space before the next."""
    return len(key) + len(description) + 3


def pick(entries: list[tuple[Binding, bool, str, bool]], width: int, key_display: dict[str, str],
         last: frozenset[int] = frozenset()) -> list[int]:
    """Which entries (binding, enabled, tooltip, of the focused pane) fit in `width` columns, in the footer's
    order: Quit and Help first in priority, then the focused pane's keys, then the others as they come, those
    of `last` after the rest. Entries of one group (the judge keys) are costed as the group is drawn: the keys,
    then one label."""
    order = sorted(range(len(entries)),
                   key=lambda i: (entries[i][0].action not in ALWAYS, not entries[i][3], i in last, i))
    chosen: list[int] = []
    used = 0
    seen_groups: set[str] = set()
    for i in order:
        binding = entries[i][0]
        key = key_display[binding.action]
        if binding.group is not None:
            label = binding.group.description
            cost = len(key) + 1 + (0 if label in seen_groups else len(label) + 2)
        else:
            cost = key_cost(key, binding.description)
        if used + cost > width and binding.action not in ALWAYS:
            continue
        used += cost
        chosen.append(i)
        if binding.group is not None:
            seen_groups.add(binding.group.description)
    return sorted(chosen)


class ContextFooter(Footer):
    """A Footer that shows the focused pane's keys first (see the module's docstring)."""

    def compose(self) -> Iterator[Widget]:
        if not self._bindings_ready:
            return
        screen, app = self.screen, self.app
        entries: list[tuple[Binding, bool, str, bool]] = []
        actions: set[str] = set()
        # the search screen is the app's home: its own keys (filter) come after the LEAD keys (tuning, sync) when
        # room is short; another screen's keys (the file view's find, the status screen's sync) are what that
        # screen is for
        home = bool(app.screen_stack) and screen is app.screen_stack[0]
        for node, binding, enabled, tooltip in screen.active_bindings.values():
            action = binding.action.removeprefix("app.")  # the status screen's s is the app's ctrl+r: one of them
            if binding.key == app.COMMAND_PALETTE_BINDING or action in actions:
                continue  # one key per action (f1 and ? both open help)
            mine = node is not app and (node is not screen or not home)
            if binding.show or (mine and binding.id and binding.description):
                actions.add(action)
                entries.append((binding, enabled, tooltip, mine))
        # the LEAD keys after the others, in LEAD's order, wherever they are bound (the app, the home screen)
        ranks = [lead_rank(entry[0]) for entry in entries]
        order = sorted(range(len(entries)), key=lambda i: (ranks[i] is not None, ranks[i] or 0, i))
        entries = [entries[i] for i in order]
        last = {i for i, entry in enumerate(entries) if home and not entry[3] and lead_rank(entry[0]) is None}
        shown = {b.action: app.get_key_display(b) for b, *_ in entries}
        room = max(20, app.size.width - (PALETTE_ROOM if self.show_command_palette else 0))
        kept = [entries[i] for i in pick(entries, room, shown, frozenset(last))]
        self.styles.grid_size_columns = len(kept)
        for group, members in groupby(kept, lambda entry: entry[0].group):
            items = list(members)
            if group is not None and len(items) > 1:
                with KeyGroup(classes="-compact" if group.compact else ""):
                    for binding, enabled, tooltip, _ in items:
                        yield FooterKey(binding.key, shown[binding.action], "", binding.action, disabled=not enabled,
                                        tooltip=tooltip or binding.description, classes="-grouped",
                                        ).data_bind(compact=Footer.compact)
                yield FooterLabel(group.description)
                continue
            for binding, enabled, tooltip, _ in items:
                yield FooterKey(binding.key, shown[binding.action], binding.description, binding.action,
                                disabled=not enabled, tooltip=tooltip).data_bind(compact=Footer.compact)
        if self.show_command_palette and app.ENABLE_COMMAND_PALETTE:
            palette = screen.active_bindings.get(app.COMMAND_PALETTE_BINDING)
            if palette is not None:
                _, binding, enabled, tooltip = palette
                yield FooterKey(binding.key, app.get_key_display(binding), binding.description, binding.action,
                                classes="-command-palette", disabled=not enabled,
                                tooltip=binding.tooltip or binding.description)

    def on_resize(self) -> None:
        """What fits depends on the width: choose again."""
        if self._bindings_ready:
            self.call_after_refresh(self.recompose)
