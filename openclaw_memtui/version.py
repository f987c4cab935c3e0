"""memtui's version, as installed: what `memtui --version` prints, the servers announce and `connect`
stamps into the plugin it copies (so a newer memtui knows to copy it again)."""

from __future__ import annotations


def package_version() -> str:
    """The installed package's version; "0" when run from a checkout that was never installed (a plugin
    stamped with it is copied again by the next installed memtui's `connect`)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("openclaw-memtui")
    except PackageNotFoundError:
        return "0"
