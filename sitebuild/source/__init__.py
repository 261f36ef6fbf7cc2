"""The source stage of the engine."""
