"""openclaw-memtui: browse and search an OpenClaw-style agent memory."""

__version__ = "0.1.0"
