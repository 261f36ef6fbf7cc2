"""The render stage of the engine."""
