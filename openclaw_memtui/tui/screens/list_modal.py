"""The look the app's modal lists share: a title, a line about the list and the list itself in a centred,
bordered box (the agent picker, Agent searches). Each screen names its widgets and may change the height."""

from __future__ import annotations

from textual.screen import ModalScreen


class ListModal(ModalScreen[str | None]):
    """A modal list answering the chosen option's id (None when closed). Compose a Vertical holding a
    Static of class `list-title`, one of class `list-about` and an OptionList."""

    DEFAULT_CSS = """
    ListModal { align: center middle; }
    ListModal > Vertical {
        width: 94%; max-width: 110; height: 90%; border: thick $primary; background: $surface; padding: 0 1;
    }
    ListModal .list-title { text-style: bold; }
    ListModal .list-about { color: $text-muted; margin-bottom: 1; }
    ListModal OptionList { height: 1fr; }
    """
