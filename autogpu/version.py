"""autogpu's version, in a module of its own: the package's modules read it (the tuner's cache
key) without importing the package, which imports them."""

__version__ = "0.1.0"
