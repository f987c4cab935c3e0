"""Embedding providers: a local offline model by default, remote APIs over HTTP."""
