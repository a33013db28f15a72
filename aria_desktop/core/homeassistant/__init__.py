"""Home Assistant as tools.

Pure service decisions and entity matching, and the control that offers them to the model over
the ``HomeAssistantPort``.
"""
