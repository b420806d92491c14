"""Widgets of the review desk."""
