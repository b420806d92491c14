"""Quality gates: lint, format, types and import contracts, run as part of the test suite."""
