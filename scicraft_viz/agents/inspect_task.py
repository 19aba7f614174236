"""Old path of `scicraft_viz.experiments.inspect_task`, the very same module object."""

import sys

from scicraft_viz.experiments import inspect_task as _module

sys.modules[__name__] = _module
