"""Request and response bodies of the HTTP API (pydantic), and their domain conversions, by area.

``common`` holds the bases and the bodies every area shares (errors, health, usage); ``chat``,
``settings``, ``memory``, ``voice`` and ``computer`` hold each area's bodies. Events travel as
``Event.to_dict()`` JSON and come back with ``domain.event_wire.event_from_dict`` (the server
and ``api.client`` share both). Bodies whose fields mirror a domain dataclass read it by
attribute (``FromDomain.of``); ``api.client.wire`` reads them back on the client side.
"""
