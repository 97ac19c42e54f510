from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from typing import ClassVar as _ClassVar, Optional as _Optional

DESCRIPTOR: _descriptor.FileDescriptor

class CreateBackupRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class BackupChunk(_message.Message):
    __slots__ = ("progress", "archive_size", "data", "manifest_json")
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    ARCHIVE_SIZE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    MANIFEST_JSON_FIELD_NUMBER: _ClassVar[int]
    progress: str
    archive_size: int
    data: bytes
    manifest_json: str
    def __init__(self, progress: _Optional[str] = ..., archive_size: _Optional[int] = ..., data: _Optional[bytes] = ..., manifest_json: _Optional[str] = ...) -> None: ...
