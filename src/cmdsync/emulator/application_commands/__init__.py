"""Discord's "Interactions > Application Commands": commands, their bodies, overwrites."""
