"""Old path of `scicraft_viz.env.conditions`, the very same module object."""

import sys

from scicraft_viz.env import conditions as _module

sys.modules[__name__] = _module
