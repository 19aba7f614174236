"""Failure diagnosis in the paper's taxonomy (`analysis`) and the paper's failure gallery (`gallery`)."""

from scicraft_viz.diagnose.analysis import (
    CATEGORIES,
    EXTRA,
    MODES,
    TAXONOMY,
    Circuit,
    Diagnosis,
    Finding,
    diagnose,
    simulate,
)
