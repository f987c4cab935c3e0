"""Sync: bring the index up to date with the memory sources, and watch them for changes.

The syncer decides between an incremental pass and an atomic full rebuild (the index identity),
writes keyword rows and vectors through the store, and reports progress; the watcher calls it back.
"""
