"""Screens of the karptui app."""
