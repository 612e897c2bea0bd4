"""A local emulator of Discord's application-commands service (HTTP API v10)."""
