"""End to end: a real terminal (tmux), a headless browser, and the app or CLI as child processes."""
