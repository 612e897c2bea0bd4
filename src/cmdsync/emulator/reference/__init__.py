"""Discord's "Reference": the HTTP shell every route goes through.

Authentication and scopes (``access``), request bodies in every form (``request_body``,
``strict_json``), error responses and Invalid Form Body (``error_replies``, ``form_body``),
"Topics > Rate Limits" (``rate_limits``), the handler's view of a request (``call``),
the settings' ranges (``bounds``) and fault injection for tests (``faults``).
"""
