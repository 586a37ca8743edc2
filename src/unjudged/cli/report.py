"""Placeholder: commands are added here."""

from unjudged.cli._base import main  # noqa: F401
