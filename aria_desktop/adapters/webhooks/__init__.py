"""Outgoing HTTP result hooks: an automation's result POSTed to the URL the user set."""
