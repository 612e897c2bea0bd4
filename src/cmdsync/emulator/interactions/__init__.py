"""Discord's "Interactions > Receiving and Responding": a command run as a user.

The client's checks and the payload (``invocation``; a component or modal: ``components``),
signed delivery to an
endpoint (``delivery``, ``signing``), the checks of what a bot answers (``response_checks``),
and the callback, original response and follow-up routes (``responses``).
"""
