"""Discord's objects as the emulator keeps them: a type and serializer per resource, enums,
permissions.

The bottom room: it imports nothing else of the emulator. ``objects`` holds a type per
resource (application, token, guild, user, member, role, channel, command, interaction),
``payloads`` their JSON as Discord sends it (shared by REST and the gateway), ``enums``
Discord's enumerations and ``permissions`` its permission maths ("Topics > Permissions").
"""
