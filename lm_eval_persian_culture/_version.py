"""The pack's version, at the bottom of the package so any layer can record it."""

__version__ = "0.1.0"
