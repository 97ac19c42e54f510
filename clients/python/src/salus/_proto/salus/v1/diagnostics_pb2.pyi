from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class EchoRequest(_message.Message):
    __slots__ = ("payload", "text")
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    payload: bytes
    text: str
    def __init__(self, payload: _Optional[bytes] = ..., text: _Optional[str] = ...) -> None: ...

class EchoResponse(_message.Message):
    __slots__ = ("payload", "text", "sequence")
    PAYLOAD_FIELD_NUMBER: _ClassVar[int]
    TEXT_FIELD_NUMBER: _ClassVar[int]
    SEQUENCE_FIELD_NUMBER: _ClassVar[int]
    payload: bytes
    text: str
    sequence: int
    def __init__(self, payload: _Optional[bytes] = ..., text: _Optional[str] = ..., sequence: _Optional[int] = ...) -> None: ...

class GenerateRequest(_message.Message):
    __slots__ = ("count", "size")
    COUNT_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    count: int
    size: int
    def __init__(self, count: _Optional[int] = ..., size: _Optional[int] = ...) -> None: ...

class CollectResponse(_message.Message):
    __slots__ = ("messages", "bytes")
    MESSAGES_FIELD_NUMBER: _ClassVar[int]
    BYTES_FIELD_NUMBER: _ClassVar[int]
    messages: int
    bytes: int
    def __init__(self, messages: _Optional[int] = ..., bytes: _Optional[int] = ...) -> None: ...

class SleepRequest(_message.Message):
    __slots__ = ("milliseconds",)
    MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    milliseconds: int
    def __init__(self, milliseconds: _Optional[int] = ...) -> None: ...

class SleepResponse(_message.Message):
    __slots__ = ("slept_milliseconds",)
    SLEPT_MILLISECONDS_FIELD_NUMBER: _ClassVar[int]
    slept_milliseconds: int
    def __init__(self, slept_milliseconds: _Optional[int] = ...) -> None: ...
