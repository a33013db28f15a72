"""Home Assistant as tools.

The pure decisions (``decisions``: may a service call run at once, ask or be refused; which
entities match) and the control that offers ``ha_states`` and ``ha_call_service`` to the model
(``control``) over the ``HomeAssistantPort`` (``ports``).
"""
