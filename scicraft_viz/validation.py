"""JSON Schema validation, imported without the format checkers that the project's schemas never use.

Importing `jsonschema` registers a format checker for every optional library it finds; the one for
RFC 3987 ("iri") compiles dozens of grammars at import and takes over a second, longer than a whole
evaluation. The task and trajectory schemas validate no formats, so those libraries are hidden while
jsonschema is imported (they stay importable afterwards; only jsonschema's format checker in this
process lacks them). Validation itself and its error messages are jsonschema's own.
"""

from __future__ import annotations

import sys
from types import ModuleType

# optional libraries jsonschema imports only to check string formats ("iri", "duration", "color", ...)
FORMAT_LIBRARIES = ("rfc3987_syntax", "rfc3987", "rfc3986_validator", "isoduration", "webcolors", "jsonpointer",
                    "uri_template", "fqdn", "idna")


def jsonschema() -> ModuleType:
    """The jsonschema module (imported on first use, without the format libraries)."""
    mod = sys.modules.get("jsonschema")
    if mod is not None:
        return mod
    hidden = [m for m in FORMAT_LIBRARIES if m not in sys.modules]
    for m in hidden:
        sys.modules[m] = None  # type: ignore[assignment]  # makes `import m` raise ImportError
    try:
        import jsonschema as mod
    finally:
        for m in hidden:
            if sys.modules.get(m, 0) is None:
                del sys.modules[m]
    return mod
