"""Helpers shared by the tests: paths, CLI runs, emulator and apply set-ups, corpus verdicts.

Test modules import from here, never from each other; fixtures are in the
``conftest.py`` files.
"""
