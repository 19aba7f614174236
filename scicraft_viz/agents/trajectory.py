"""Old path of `scicraft_viz.env.trajectory`, the very same module object."""

import sys

from scicraft_viz.env import trajectory as _module

sys.modules[__name__] = _module
