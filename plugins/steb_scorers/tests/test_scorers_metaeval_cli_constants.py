"""The meta-eval CLI keeps copies of a few constants so that it can import lazily: they must not drift."""

from steb_scorers.metaeval import cli, evaluate, human


def test_cli_constants_match_their_modules():
    assert cli.ASPECTS == human.ASPECTS
    assert cli.DIRECTIONS == human.DIRECTIONS
    assert cli.POOLED == evaluate.POOLED
    assert cli.PROTOCOLS == tuple(evaluate.PROTOCOLS)
