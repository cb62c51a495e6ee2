"""Test support of this repository (not installed with steb-core): the fake HTTP server, the checkout's
``../shared`` data fixtures and the import-graph reader."""
