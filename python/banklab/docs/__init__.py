"""The course site's reading of the labs (docs/scripts use it)."""
