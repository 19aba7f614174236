"""Errors raised for bad input. All are ValueError subclasses so callers can catch one type."""


class InputError(ValueError):
    """Base class: the input cannot be used; the message says what and where."""


class BlockStateError(InputError):
    """An unknown block, an unknown property or a property value out of range."""


class PositionError(InputError):
    """A position that is not three integers, or lies outside what the world can hold."""


class PlacementError(InputError):
    """A block that cannot stand where it was placed (no support)."""


class BuildFileError(InputError):
    """A line of a build file (.mcfunction) that cannot be used; names the file and line."""
