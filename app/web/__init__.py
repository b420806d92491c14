"""Web mode: the review desk served to a browser, one app process per tab, behind a token."""
