"""cutline tests (a package so tests can import shared helpers such as tests.fake_anthropic)."""
