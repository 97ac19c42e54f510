from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Attachment(_message.Message):
    __slots__ = ("uuid", "object_uuid", "name", "content_type", "size", "creation_date", "metadata")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    UUID_FIELD_NUMBER: _ClassVar[int]
    OBJECT_UUID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    SIZE_FIELD_NUMBER: _ClassVar[int]
    CREATION_DATE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    uuid: bytes
    object_uuid: bytes
    name: str
    content_type: str
    size: int
    creation_date: int
    metadata: _containers.ScalarMap[str, str]
    def __init__(self, uuid: _Optional[bytes] = ..., object_uuid: _Optional[bytes] = ..., name: _Optional[str] = ..., content_type: _Optional[str] = ..., size: _Optional[int] = ..., creation_date: _Optional[int] = ..., metadata: _Optional[_Mapping[str, str]] = ...) -> None: ...

class AddAttachmentHeader(_message.Message):
    __slots__ = ("object_uuid", "name", "metadata")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    OBJECT_UUID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    object_uuid: bytes
    name: str
    metadata: _containers.ScalarMap[str, str]
    def __init__(self, object_uuid: _Optional[bytes] = ..., name: _Optional[str] = ..., metadata: _Optional[_Mapping[str, str]] = ...) -> None: ...

class AddAttachmentMessage(_message.Message):
    __slots__ = ("header", "chunk")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    CHUNK_FIELD_NUMBER: _ClassVar[int]
    header: AddAttachmentHeader
    chunk: bytes
    def __init__(self, header: _Optional[_Union[AddAttachmentHeader, _Mapping]] = ..., chunk: _Optional[bytes] = ...) -> None: ...

class ListAttachmentsRequest(_message.Message):
    __slots__ = ("object_uuid",)
    OBJECT_UUID_FIELD_NUMBER: _ClassVar[int]
    object_uuid: bytes
    def __init__(self, object_uuid: _Optional[bytes] = ...) -> None: ...

class ListAttachmentsResponse(_message.Message):
    __slots__ = ("attachments",)
    ATTACHMENTS_FIELD_NUMBER: _ClassVar[int]
    attachments: _containers.RepeatedCompositeFieldContainer[Attachment]
    def __init__(self, attachments: _Optional[_Iterable[_Union[Attachment, _Mapping]]] = ...) -> None: ...

class ReadAttachmentRequest(_message.Message):
    __slots__ = ("uuid",)
    UUID_FIELD_NUMBER: _ClassVar[int]
    uuid: bytes
    def __init__(self, uuid: _Optional[bytes] = ...) -> None: ...

class AttachmentChunk(_message.Message):
    __slots__ = ("data", "offset")
    DATA_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    data: bytes
    offset: int
    def __init__(self, data: _Optional[bytes] = ..., offset: _Optional[int] = ...) -> None: ...

class RemoveAttachmentRequest(_message.Message):
    __slots__ = ("uuid",)
    UUID_FIELD_NUMBER: _ClassVar[int]
    uuid: bytes
    def __init__(self, uuid: _Optional[bytes] = ...) -> None: ...

class RemoveAttachmentResponse(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...
