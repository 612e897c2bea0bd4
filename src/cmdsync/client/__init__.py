"""The Discord HTTP client: auth, rate limits, retries and typed endpoints.

Imported only by commands that talk to Discord (``plan``, ``pull``,
``apply``): ``validate`` stays offline and light.
"""
