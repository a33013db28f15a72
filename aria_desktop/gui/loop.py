"""qasync's event loop, plus the async-generator hooks it forgets to install.

``asyncio.BaseEventLoop.run_forever`` installs ``sys.set_asyncgen_hooks`` so an async
generator dropped before it finished (an HTTP stream closed on cancel) is finalized as a task
on the loop. qasync 0.28 on Unix runs Qt's loop instead and never installs them: Python then
finalizes such generators synchronously, outside any task, and httpx/anyio fail with "no
running event loop" / "cancel scope in a different task" (measured here). This subclass
installs the hooks while the loop runs and restores the previous ones afterwards.
"""

from __future__ import annotations

import sys
from typing import Any

import qasync
from PySide6.QtWidgets import QApplication

__all__ = ["AriaEventLoop"]


class AriaEventLoop(qasync.QEventLoop):  # type: ignore[misc]
    """``qasync.QEventLoop`` that finalizes async generators on the loop."""

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self._saved_hooks: Any = None

    def _before_run_forever(self) -> None:
        super()._before_run_forever()
        self._saved_hooks = sys.get_asyncgen_hooks()
        sys.set_asyncgen_hooks(
            firstiter=self._asyncgen_firstiter_hook, finalizer=self._asyncgen_finalizer_hook
        )

    def _after_run_forever(self) -> None:
        saved, self._saved_hooks = self._saved_hooks, None
        if saved is not None:
            sys.set_asyncgen_hooks(*saved)
        super()._after_run_forever()
