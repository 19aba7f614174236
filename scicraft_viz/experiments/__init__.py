"""Experiments built on the environment: the Inspect AI runner, the offline agents, the report (the paper's
tables from a directory of runs), the aggregate summary of many runs and the scripted example runs."""
