"""Reusable widgets: prompt viewer, heatmap."""
