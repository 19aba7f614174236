"""Old path of `scicraft_viz.env.book`, the very same module object."""

import sys

from scicraft_viz.env import book as _module

sys.modules[__name__] = _module
