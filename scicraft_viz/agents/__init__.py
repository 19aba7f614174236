"""Agents and people in the environment: the env core, trajectories, replay, the MCP server, summaries."""
