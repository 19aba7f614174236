"""Old path of `scicraft_viz.experiments.aggregate`, the very same module object."""

import sys

from scicraft_viz.experiments import aggregate as _module

sys.modules[__name__] = _module
