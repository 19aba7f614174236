"""The environment: the calls an agent or a person makes (`environment`), the trajectory format and its replay,
the MCP server, the experimental conditions, the knowledge book's formats and the scientist's briefing.

It reads tasks, worlds and traces and never imports `scicraft_viz.experiments`, which is built on top of it.
"""

# The modules of this package; any other name is looked up in `environment` (below).
_MODULES = frozenset({"environment", "trajectory", "replay", "mcp_server", "conditions", "book", "scientist"})


def __getattr__(name: str):
    # `scicraft_viz.env` was the environment module itself before this package existed: its names stay reachable.
    if name.startswith("__") or name in _MODULES:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from scicraft_viz.env import environment

    try:
        return getattr(environment, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None
