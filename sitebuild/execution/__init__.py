"""The execution stage of the engine."""
