"""The storage's errors: every error of a storage is a :class:`StorageError`."""

from __future__ import annotations


class StorageError(Exception):
    """The storage could not do what was asked; the message is one line."""


class Unavailable(StorageError):
    """The database cannot take it now (a locked file, a lost connection, a timeout): try again
    later."""


class Refused(StorageError):
    """The database refuses the change for good (a finished game never changes; a seat is taken
    once)."""


class Conflict(StorageError):
    """The game changed meanwhile (another server stored a change first): nothing was written."""


class DamagedGame(StorageError):
    """A stored game whose rows cannot be read; the message is one line."""
