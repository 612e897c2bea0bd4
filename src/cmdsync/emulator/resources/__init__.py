"""Discord's "Resources": applications, users, guilds, members, roles, channels, messages."""
