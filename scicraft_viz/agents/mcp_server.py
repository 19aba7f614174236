"""Old path of `scicraft_viz.env.mcp_server`, the very same module object."""

import sys

from scicraft_viz.env import mcp_server as _module

sys.modules[__name__] = _module
