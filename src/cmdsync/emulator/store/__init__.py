"""The emulator's state: the SQLite store behind every change, and the seed it starts from."""
