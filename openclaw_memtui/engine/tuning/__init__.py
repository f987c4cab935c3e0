"""Judging and tuning: relevance judgements, the retrieval metrics, and the search over settings.

Everything here ranks with the pure `rank()` over pools retrieved once, so scoring a setting never
touches the database.
"""
