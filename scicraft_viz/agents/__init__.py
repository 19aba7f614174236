"""The old home of the environment and the experiments, kept so old imports work: every module here is the very
same module object as its new home in `scicraft_viz.env` or `scicraft_viz.experiments` (`agents.env` is
`env.environment`)."""
