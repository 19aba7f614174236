"""Old path of `scicraft_viz.env.replay`, the very same module object."""

import sys

from scicraft_viz.env import replay as _module

sys.modules[__name__] = _module
