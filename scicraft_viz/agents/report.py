"""Old path of `scicraft_viz.experiments.report`, the very same module object."""

import sys

from scicraft_viz.experiments import report as _module

sys.modules[__name__] = _module
