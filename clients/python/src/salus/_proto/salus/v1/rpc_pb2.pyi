from salus._proto.google.rpc import status_pb2 as _status_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ErrorReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ERROR_REASON_UNSPECIFIED: _ClassVar[ErrorReason]
    ERROR_REASON_INVALID_ARGUMENT: _ClassVar[ErrorReason]
    ERROR_REASON_AUTHORIZATION_DENIED: _ClassVar[ErrorReason]
    ERROR_REASON_AUTHORIZATION_NOT_DETERMINED: _ClassVar[ErrorReason]
    ERROR_REASON_ANCHOR_EXPIRED: _ClassVar[ErrorReason]
    ERROR_REASON_NOT_FOUND: _ClassVar[ErrorReason]
    ERROR_REASON_ALREADY_EXISTS: _ClassVar[ErrorReason]
    ERROR_REASON_RESOURCE_EXHAUSTED: _ClassVar[ErrorReason]
    ERROR_REASON_UNAUTHENTICATED: _ClassVar[ErrorReason]
    ERROR_REASON_PERMISSION_DENIED: _ClassVar[ErrorReason]
    ERROR_REASON_UNIMPLEMENTED: _ClassVar[ErrorReason]
    ERROR_REASON_MALFORMED_MESSAGE: _ClassVar[ErrorReason]
    ERROR_REASON_DEADLINE_EXCEEDED: _ClassVar[ErrorReason]
    ERROR_REASON_CANCELLED: _ClassVar[ErrorReason]
    ERROR_REASON_UNAVAILABLE: _ClassVar[ErrorReason]
    ERROR_REASON_PROTOCOL_VIOLATION: _ClassVar[ErrorReason]
    ERROR_REASON_DATABASE_INACCESSIBLE: _ClassVar[ErrorReason]
    ERROR_REASON_NO_DATA: _ClassVar[ErrorReason]
    ERROR_REASON_INTERNAL: _ClassVar[ErrorReason]
ERROR_REASON_UNSPECIFIED: ErrorReason
ERROR_REASON_INVALID_ARGUMENT: ErrorReason
ERROR_REASON_AUTHORIZATION_DENIED: ErrorReason
ERROR_REASON_AUTHORIZATION_NOT_DETERMINED: ErrorReason
ERROR_REASON_ANCHOR_EXPIRED: ErrorReason
ERROR_REASON_NOT_FOUND: ErrorReason
ERROR_REASON_ALREADY_EXISTS: ErrorReason
ERROR_REASON_RESOURCE_EXHAUSTED: ErrorReason
ERROR_REASON_UNAUTHENTICATED: ErrorReason
ERROR_REASON_PERMISSION_DENIED: ErrorReason
ERROR_REASON_UNIMPLEMENTED: ErrorReason
ERROR_REASON_MALFORMED_MESSAGE: ErrorReason
ERROR_REASON_DEADLINE_EXCEEDED: ErrorReason
ERROR_REASON_CANCELLED: ErrorReason
ERROR_REASON_UNAVAILABLE: ErrorReason
ERROR_REASON_PROTOCOL_VIOLATION: ErrorReason
ERROR_REASON_DATABASE_INACCESSIBLE: ErrorReason
ERROR_REASON_NO_DATA: ErrorReason
ERROR_REASON_INTERNAL: ErrorReason

class Request(_message.Message):
    __slots__ = ("service", "method", "payload", "timeout_nano", "metadata")
    SERVICE_FIELD_NUMBER: _ClassVar[int]
    METHOD_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    TIMEOUT_NANO_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    service: str
    method: str
    payload: bytes
    timeout_nano: int
    metadata: _containers.RepeatedCompositeFieldContainer[KeyValue]
    def __init__(self, service: _Optional[str] = ..., method: _Optional[str] = ..., payload: _Optional[bytes] = ..., timeout_nano: _Optional[int] = ..., metadata: _Optional[_Iterable[_Union[KeyValue, _Mapping]]] = ...) -> None: ...

class Response(_message.Message):
    __slots__ = ("status", "payload")
    STATUS_FIELD_NUMBER: _ClassVar[int]
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    status: _status_pb2.Status
    payload: bytes
    def __init__(self, status: _Optional[_Union[_status_pb2.Status, _Mapping]] = ..., payload: _Optional[bytes] = ...) -> None: ...

class KeyValue(_message.Message):
    __slots__ = ("key", "value")
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    key: str
    value: str
    def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...

class WindowUpdate(_message.Message):
    __slots__ = ("credits",)
    CREDITS_FIELD_NUMBER: _ClassVar[int]
    credits: int
    def __init__(self, credits: _Optional[int] = ...) -> None: ...

class GoAway(_message.Message):
    __slots__ = ("last_stream_id", "reason", "status")
    LAST_STREAM_ID_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    STATUS_FIELD_NUMBER: _ClassVar[int]
    last_stream_id: int
    reason: str
    status: _status_pb2.Status
    def __init__(self, last_stream_id: _Optional[int] = ..., reason: _Optional[str] = ..., status: _Optional[_Union[_status_pb2.Status, _Mapping]] = ...) -> None: ...

class ErrorDetail(_message.Message):
    __slots__ = ("reason", "field", "value", "expected", "domain")
    REASON_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_FIELD_NUMBER: _ClassVar[int]
    DOMAIN_FIELD_NUMBER: _ClassVar[int]
    reason: ErrorReason
    field: str
    value: str
    expected: str
    domain: str
    def __init__(self, reason: _Optional[_Union[ErrorReason, str]] = ..., field: _Optional[str] = ..., value: _Optional[str] = ..., expected: _Optional[str] = ..., domain: _Optional[str] = ...) -> None: ...
