"""Allow ``python -m aria_desktop``."""

from __future__ import annotations

import sys

from aria_desktop.cli import main

if __name__ == "__main__":
    sys.exit(main())
