"""Helpers shared by autogpu's passes: located pass errors, folded index arithmetic, cloning of
pure backward slices."""
