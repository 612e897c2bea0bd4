"""Discord's "Topics > OAuth2": the token endpoints, the consent page, codes and grants."""
