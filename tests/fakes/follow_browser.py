"""A stand-in for the person's web browser (``BROWSER``): open the page, follow its redirect.

``python -m tests.fakes.follow_browser URL``; Python's ``webbrowser`` runs it for ``aria mcp
login`` when ``BROWSER`` names it. The authorization page of tests/fakes/oauth_mcp_server.py
approves at once and redirects to ARIA's loopback receiver, which this then visits.
"""

from __future__ import annotations

import sys

import httpx


def main(url: str) -> int:
    answer = httpx.get(url, follow_redirects=False, timeout=20)
    location = answer.headers.get("location")
    if not location:
        print(f"the page did not redirect: HTTP {answer.status_code}", file=sys.stderr)
        return 1
    page = httpx.get(location, timeout=20)
    print(page.text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
