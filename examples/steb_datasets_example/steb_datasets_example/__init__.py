"""steb-datasets-example: a community dataset plugin in a few lines, using steb-core's generic loader."""
