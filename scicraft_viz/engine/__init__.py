"""The redstone engine: block states, numba kernels, the World, traces and build files."""
