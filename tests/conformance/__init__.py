"""Conformance with the real agents: the corpus (tests/fixtures/corpus), request converters and per-agent normalizations."""
