"""Old path of `scicraft_viz.env.scientist`, the very same module object."""

import sys

from scicraft_viz.env import scientist as _module

sys.modules[__name__] = _module
