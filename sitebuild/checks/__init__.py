"""The checks stage of the engine."""
