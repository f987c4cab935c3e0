"""Ingest: which files are memory, how each is read (safely), and how its text becomes chunks.

Sources and the access rule, the readers for plain files and OpenClaw's agent database, transcript
filters and the forgotten-session rule, and the two chunkers. Nothing here writes the index.
"""
