"""Rendering: the only place that turns values into output text."""
