"""A tiny package the Sphinx tests annotate."""
