"""The commands stage of the engine."""
