"""Helpers the tests share (fake servers, session builders, the app factory); no tests live here."""
