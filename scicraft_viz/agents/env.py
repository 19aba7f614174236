"""Old path of `scicraft_viz.env.environment`, the very same module object."""

import sys

from scicraft_viz.env import environment as _module

sys.modules[__name__] = _module
