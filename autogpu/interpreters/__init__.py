"""Reference execution of IR on NumPy arrays (parallel loops run sequentially)."""
