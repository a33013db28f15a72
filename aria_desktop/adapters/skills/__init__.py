"""Adapters of the everyday skills.

Home Assistant's intent parser, the reply sentences, the skills' storage and the desktop parts
(applications, media players, volume, notifications).
"""
