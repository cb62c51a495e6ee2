"""Executors: where encoding runs (placeholder, replaced by the runner work)."""
