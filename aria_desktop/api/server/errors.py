"""How errors become HTTP answers: one status table and the app's exception handlers.

Every failure leaves the API as ``{"error": {code, message, hint}}`` (``security.error_body``);
request validation keeps its 422 status with a short summary of the problems. The status of an
``AriaError`` comes from :data:`STATUS_BY_ERROR`, looked up along the exception's class
hierarchy (the most specific class listed wins), so a new error subclass inherits its family's
status without a new branch anywhere (``aria_desktop/ARCHITECTURE.md``, "Errors").
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException

from aria_desktop.api.server.security import error_body
from aria_desktop.domain import errors as e
from aria_desktop.domain.errors import AriaError

__all__ = [
    "DEFAULT_STATUS",
    "STATUS_BY_ERROR",
    "STOPPING_STATUS",
    "TooManyStreamsError",
    "install_error_handlers",
    "status_for",
    "status_for_code",
]

_LOGGER = logging.getLogger(__name__)

STATUS_BY_ERROR: dict[type[AriaError], int] = {
    e.NotFoundError: 404,
    e.TargetNotFoundError: 404,
    e.DisplayUnavailableError: 503,
    e.OcrUnavailableError: 503,
    e.InputUnavailableError: 503,
    e.MonitorNotFoundError: 422,
    # The screen or the user's state is in the way: off, busy, ambiguous, changed, aborted,
    # stuck. A plain e.ComputerError is a request ARIA cannot carry out.
    e.ComputerControlOffError: 409,
    e.ComputerBusyError: 409,
    e.TargetAmbiguousError: 409,
    e.ScreenProtectedError: 409,
    e.TargetChangedError: 409,
    e.ActionAbortedError: 409,
    e.ComputerError: 400,
    e.ConfirmationError: 409,
    e.PathRefusedError: 403,
    e.FileOperationError: 422,
    e.ConfigError: 422,
    e.AutomationError: 422,
    e.MemoryInvalidError: 422,
    e.KnowledgeError: 422,
    e.DocumentError: 422,
    e.KnowledgeUnavailableError: 503,
    e.TimerError: 422,
    e.ReminderError: 422,
    e.ListInvalidError: 422,
    e.HomeAssistantError: 502,  # the list lives in Home Assistant and it failed
    e.AudioFormatError: 422,
    e.LanguageNotSupportedError: 422,  # the request's language, not the server's fault
    e.StorageError: 503,
    e.MemoryUnavailableError: 503,
    e.VoiceError: 503,
    e.CloudBudgetError: 402,  # the user's own spending limit, not a failing server
    e.ContextOverflowError: 400,  # the request cannot fit: sending it again cannot succeed
    e.BadRequestError: 400,  # the model server refused the request itself
    # Nothing can answer now (none set up, none reachable, each failed): unavailable.
    e.NoBackendError: 503,
    e.BackendUnreachableError: 503,
    e.CircuitOpenError: 503,
    e.LLMTimeoutError: 504,
    e.TurnDeadlineError: 504,  # the turn ran out of time (or of steps) before an answer
    e.LLMError: 502,  # the model server answered with an error
}
"""HTTP status of each error family; subclasses not listed take their nearest listed base."""

STOPPING_STATUS = 503
"""A plain ``AriaError``: ARIA is stopping or the part asked for is not there."""

DEFAULT_STATUS = 400
"""Any other ``AriaError`` subclass: the request cannot be carried out."""


def status_for(exc: AriaError) -> int:
    """The HTTP status of ``exc``: the table entry of its most specific listed class."""
    return status_for_class(type(exc))


def status_for_class(error_class: type[AriaError]) -> int:
    """The HTTP status of errors of ``error_class`` (see :func:`status_for`)."""
    for cls in error_class.__mro__:
        if cls is AriaError:
            break
        status = STATUS_BY_ERROR.get(cls)
        if status is not None:
            return status
    return STOPPING_STATUS if error_class is AriaError else DEFAULT_STATUS


def status_for_code(code: str) -> int:
    """The HTTP status of an error known only by its stable code (e.g. from an ``error`` event)."""
    pending: list[type[AriaError]] = [AriaError]
    while pending:
        cls = pending.pop()
        if cls.code == code:
            return status_for_class(cls)
        pending.extend(cls.__subclasses__())
    return DEFAULT_STATUS


def error_response(exc: AriaError) -> JSONResponse:
    """The JSON error answer for ``exc``."""
    return JSONResponse(error_body(exc.code, exc.message, exc.hint), status_code=status_for(exc))


class TooManyStreamsError(Exception):
    """The stream cap is reached (answered with 503 and Retry-After).

    Args:
        limit: how many streams may be open at once.
        held: how many the requesting client holds, when its share is what is used up.
    """

    def __init__(self, limit: int, *, held: int | None = None) -> None:
        if held is None:
            super().__init__(f"Too many event streams are open (limit {limit}).")
        else:
            super().__init__(
                f"This program already holds {held} of the {limit} event streams; the rest are "
                "kept for other programs."
            )
        self.limit = limit


def _allowed_methods(routes: Sequence[APIRoute], path: str) -> str:
    """Every method of every route on ``path`` (the ``Allow`` header of a 405)."""
    matching = [route for route in routes if route.path_regex.match(path)]
    # A fixed path (/memories/search) wins over a template that also matches it.
    exact = [route for route in matching if route.path == path]
    methods = {method for route in exact or matching for method in route.methods or ()}
    return ", ".join(sorted(methods))


def install_error_handlers(app: FastAPI, routes: Sequence[APIRoute]) -> None:
    """Give ``app`` one handler per kind of failure, all answering the JSON error body.

    Args:
        app: the application.
        routes: its API routes (a 405 lists the methods of those on the path).
    """

    @app.exception_handler(AriaError)
    async def _aria_error(_request: Request, exc: AriaError) -> JSONResponse:
        return error_response(exc)

    @app.exception_handler(StarletteHTTPException)
    async def _http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        headers = dict(getattr(exc, "headers", None) or {})
        if exc.status_code == 405:
            headers["Allow"] = _allowed_methods(routes, request.url.path)
        return JSONResponse(
            error_body(code, str(exc.detail)), status_code=exc.status_code, headers=headers
        )

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err.get('loc', ()))}: {err.get('msg', '')}"
            for err in exc.errors()[:5]
        )
        return JSONResponse(
            error_body("invalid_request", f"Invalid request: {problems}"[:2000]), status_code=422
        )

    @app.exception_handler(TooManyStreamsError)
    async def _too_many(_request: Request, exc: TooManyStreamsError) -> JSONResponse:
        return JSONResponse(
            error_body("too_many_streams", str(exc), "Close one, or retry later."),
            status_code=503,
            headers={"retry-after": "5"},
        )

    @app.exception_handler(Exception)
    async def _unexpected(_request: Request, exc: Exception) -> JSONResponse:
        _LOGGER.error("Unexpected error in an API route", exc_info=exc)
        return JSONResponse(
            error_body("internal", "Something went wrong inside ARIA.", "Details are in the log."),
            status_code=500,
        )
