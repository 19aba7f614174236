"""Old path of `scicraft_viz.experiments.examples`: the very same module object (and `python -m` still runs it)."""

import sys

if __name__ == "__main__":
    import runpy

    runpy.run_module("scicraft_viz.experiments.examples", run_name="__main__", alter_sys=True)
else:
    from scicraft_viz.experiments import examples as _module

    sys.modules[__name__] = _module
