"""The output stage of the engine."""
