"""Old path of `scicraft_viz.experiments.offline`, the very same module object."""

import sys

from scicraft_viz.experiments import offline as _module

sys.modules[__name__] = _module
