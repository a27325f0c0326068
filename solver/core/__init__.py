"""The rules of the game as values: dice, streams, rule sets, cards, positions; errors,
bounded numbers and files.  Imports nothing else of the package."""

#: the package's version (``solver.__version__``; written into every table's manifest)
VERSION = "0.1.0"
