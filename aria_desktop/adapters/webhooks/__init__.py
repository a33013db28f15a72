"""Outgoing HTTP result hooks: an automation's result POSTed to the URL the user set.

An adapter of its own (``outgoing``, httpx), used by the owner's automations: it knows how to
deliver a result to another program, such as Home Assistant, and nothing about when to.
"""
