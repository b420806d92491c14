"""Screens of the review desk."""
