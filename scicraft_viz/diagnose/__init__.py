"""Failure diagnosis: the circuit graph (`graph`), one rule per failure mode (`rules`, the paper's
12 plus this project's timing modes), the dark-lamp walk (`dark_lamps`), delay budgets
(`timing`), simulated fixes (`fixes`), the combined repair (`repair`), the entry point (`run`)
and the paper's failure gallery (`gallery`)."""

from scicraft_viz.diagnose.findings import Diagnosis, Finding
from scicraft_viz.diagnose.graph import Circuit, simulate
from scicraft_viz.diagnose.repair import Repair
from scicraft_viz.diagnose.rules import CATEGORIES, EXTRA, MODES, REGISTRY, RULES, TAXONOMY, Rule
from scicraft_viz.diagnose.run import diagnose

__all__ = ["CATEGORIES", "EXTRA", "MODES", "REGISTRY", "RULES", "TAXONOMY", "Circuit", "Diagnosis", "Finding", "Repair",
           "Rule", "diagnose", "simulate"]
