"""The store stage of the engine."""
