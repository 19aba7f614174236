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


def fmt_pos(p) -> str:
    """A position as messages write it: (x, y, z)."""
    return "(" + ", ".join(str(int(v)) for v in p) + ")"


def list_positions(ps, limit: int = 6, total: int | None = None) -> str:
    """The first `limit` positions, then "and N more" for the rest of `total` (default: all of ps)."""
    ps = list(ps)
    shown = ps[:limit]
    rest = (len(ps) if total is None else total) - len(shown)
    return ", ".join(fmt_pos(p) for p in shown) + (f" and {rest} more" if rest > 0 else "")
