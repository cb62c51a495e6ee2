"""Demo suite (placeholder)."""
