"""Errors from the daemon, one exception class per error reason (docs/protocol.md, section 11).

Every call raises a subclass of :class:`SalusError`, named after the ``salus.v1.ErrorReason`` the
daemon sent (``ERROR_REASON_ANCHOR_EXPIRED`` raises :class:`AnchorExpiredError`). Each carries
the gRPC ``code``, the ``field`` at fault (a path such as ``samples[3].quantity.unit``), its
``value`` as text and what was ``expected``. Programs test the class and these attributes,
never the message, whose wording may change.
"""

from __future__ import annotations

from typing import Optional

from ._proto.google.rpc import status_pb2
from ._proto.salus.v1 import rpc_pb2

__all__ = [
    "SalusError",
    "InvalidArgumentError",
    "AuthorizationDeniedError",
    "AuthorizationNotDeterminedError",
    "AnchorExpiredError",
    "NotFoundError",
    "AlreadyExistsError",
    "ResourceExhaustedError",
    "UnauthenticatedError",
    "PermissionDeniedError",
    "UnimplementedError",
    "MalformedMessageError",
    "DeadlineExceededError",
    "CancelledError",
    "UnavailableError",
    "ProtocolViolationError",
    "DatabaseInaccessibleError",
    "NoDataError",
    "InternalError",
    "UnknownError",
]

_ERROR_DETAIL_URL = "type.googleapis.com/salus.v1.ErrorDetail"


class SalusError(Exception):
    """A failed call: the gRPC status code, the reason, and the field, value and expectation."""

    #: The reason's name as docs/protocol.md writes it ("invalidArgument").
    reason: str = "unknown"

    def __init__(
        self,
        message: str,
        *,
        code: int = 2,
        field: str = "",
        value: str = "",
        expected: str = "",
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.field = field
        self.value = value
        self.expected = expected

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(code={self.code}, field={self.field!r}, value={self.value!r}, "
            f"expected={self.expected!r}, message={self.message!r})"
        )


class InvalidArgumentError(SalusError):
    """A field of the request is invalid (a sample breaking its type's rules, a predicate, ...)."""

    reason = "invalidArgument"


class AuthorizationDeniedError(SalusError):
    """The app writes a type the owner denied it (``field`` is ``type``)."""

    reason = "authorizationDenied"


class AuthorizationNotDeterminedError(SalusError):
    """The app writes a type it has not asked for yet: call ``request_authorization`` first."""

    reason = "authorizationNotDetermined"


class AnchorExpiredError(SalusError):
    """The anchor is older than the kept deletions: query again without an anchor."""

    reason = "anchorExpired"


class NotFoundError(SalusError):
    """The object named does not exist or is not the caller's; or the app is not registered."""

    reason = "notFound"


class AlreadyExistsError(SalusError):
    """The object exists already."""

    reason = "alreadyExists"


class ResourceExhaustedError(SalusError):
    """A limit was passed: frame or metadata size, credits, connections, calls per connection."""

    reason = "resourceExhausted"


class UnauthenticatedError(SalusError):
    """The connection is not an app's: start the program with ``salusctl launch --app ID --``."""

    reason = "unauthenticated"


class PermissionDeniedError(SalusError):
    """The caller may not do this (the admin socket refuses every peer but the owner)."""

    reason = "permissionDenied"


class UnimplementedError(SalusError):
    """The daemon has no such service or method."""

    reason = "unimplemented"


class MalformedMessageError(SalusError):
    """A message does not decode (sent by the daemon, or received by this client)."""

    reason = "malformedMessage"


class DeadlineExceededError(SalusError):
    """The call's ``timeout`` passed before it ended."""

    reason = "deadlineExceeded"


class CancelledError(SalusError):
    """The call was cancelled on the daemon's side.

    A call that this program cancels (its task cancelled, or a stream closed early) raises
    :class:`asyncio.CancelledError` as usual, or simply ends; this class is for the daemon's word.
    """

    reason = "cancelled"


class UnavailableError(SalusError):
    """The daemon is shutting down (after GoAway) or the connection closed: connect again."""

    reason = "unavailable"


class ProtocolViolationError(SalusError):
    """A frame broke the wire protocol (stream ids, Data on a single-request call)."""

    reason = "protocolViolation"


class DatabaseInaccessibleError(SalusError):
    """The daemon cannot read or write its database or settings."""

    reason = "databaseInaccessible"


class NoDataError(SalusError):
    """Reserved: version 1 of the daemon does not send it."""

    reason = "noData"


class InternalError(SalusError):
    """A bug or an unexpected failure in the daemon."""

    reason = "internal"


class UnknownError(SalusError):
    """A reason and code this client does not know."""

    reason = "unknown"


_BY_REASON: dict[int, type[SalusError]] = {
    rpc_pb2.ERROR_REASON_INVALID_ARGUMENT: InvalidArgumentError,
    rpc_pb2.ERROR_REASON_AUTHORIZATION_DENIED: AuthorizationDeniedError,
    rpc_pb2.ERROR_REASON_AUTHORIZATION_NOT_DETERMINED: AuthorizationNotDeterminedError,
    rpc_pb2.ERROR_REASON_ANCHOR_EXPIRED: AnchorExpiredError,
    rpc_pb2.ERROR_REASON_NOT_FOUND: NotFoundError,
    rpc_pb2.ERROR_REASON_ALREADY_EXISTS: AlreadyExistsError,
    rpc_pb2.ERROR_REASON_RESOURCE_EXHAUSTED: ResourceExhaustedError,
    rpc_pb2.ERROR_REASON_UNAUTHENTICATED: UnauthenticatedError,
    rpc_pb2.ERROR_REASON_PERMISSION_DENIED: PermissionDeniedError,
    rpc_pb2.ERROR_REASON_UNIMPLEMENTED: UnimplementedError,
    rpc_pb2.ERROR_REASON_MALFORMED_MESSAGE: MalformedMessageError,
    rpc_pb2.ERROR_REASON_DEADLINE_EXCEEDED: DeadlineExceededError,
    rpc_pb2.ERROR_REASON_CANCELLED: CancelledError,
    rpc_pb2.ERROR_REASON_UNAVAILABLE: UnavailableError,
    rpc_pb2.ERROR_REASON_PROTOCOL_VIOLATION: ProtocolViolationError,
    rpc_pb2.ERROR_REASON_DATABASE_INACCESSIBLE: DatabaseInaccessibleError,
    rpc_pb2.ERROR_REASON_NO_DATA: NoDataError,
    rpc_pb2.ERROR_REASON_INTERNAL: InternalError,
}

# A reason this client does not know is mapped through the gRPC code (docs/protocol.md, section 11).
_BY_CODE: dict[int, type[SalusError]] = {
    1: CancelledError,
    3: InvalidArgumentError,
    4: DeadlineExceededError,
    5: NotFoundError,
    6: AlreadyExistsError,
    7: PermissionDeniedError,
    8: ResourceExhaustedError,
    12: UnimplementedError,
    13: InternalError,
    14: UnavailableError,
    16: UnauthenticatedError,
}


def from_status(status: status_pb2.Status) -> SalusError:
    """The exception for a failed call's status: by the detail's reason, else by the code."""
    detail: Optional[rpc_pb2.ErrorDetail] = None
    for any_message in status.details:
        if any_message.type_url == _ERROR_DETAIL_URL:
            try:
                detail = rpc_pb2.ErrorDetail.FromString(any_message.value)
            except Exception:  # a detail that does not decode is skipped, as an unknown one
                detail = None
            break
    cls = _BY_REASON.get(detail.reason) if detail is not None else None
    if cls is None:
        cls = _BY_CODE.get(status.code, UnknownError)
    return cls(
        status.message or f"the call failed with code {status.code}",
        code=status.code,
        field=detail.field if detail is not None else "",
        value=detail.value if detail is not None else "",
        expected=detail.expected if detail is not None else "",
    )
