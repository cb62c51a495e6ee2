"""Fixtures for the run engine's tests: the toy components of :mod:`tests.support.toy_components`."""

from tests.support.toy_components import clean_manager, counting_encoder, toy_plugin

__all__ = ["clean_manager", "counting_encoder", "toy_plugin"]
