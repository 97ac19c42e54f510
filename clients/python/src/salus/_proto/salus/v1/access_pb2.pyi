from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AccessKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ACCESS_KIND_UNSPECIFIED: _ClassVar[AccessKind]
    ACCESS_KIND_WRITE: _ClassVar[AccessKind]
    ACCESS_KIND_DELETE: _ClassVar[AccessKind]
    ACCESS_KIND_SAMPLE_QUERY: _ClassVar[AccessKind]
    ACCESS_KIND_ANCHORED_QUERY: _ClassVar[AccessKind]
    ACCESS_KIND_LIVE_FEED: _ClassVar[AccessKind]
    ACCESS_KIND_OBSERVER: _ClassVar[AccessKind]
    ACCESS_KIND_SOURCE_QUERY: _ClassVar[AccessKind]
    ACCESS_KIND_STATISTICS: _ClassVar[AccessKind]
ACCESS_KIND_UNSPECIFIED: AccessKind
ACCESS_KIND_WRITE: AccessKind
ACCESS_KIND_DELETE: AccessKind
ACCESS_KIND_SAMPLE_QUERY: AccessKind
ACCESS_KIND_ANCHORED_QUERY: AccessKind
ACCESS_KIND_LIVE_FEED: AccessKind
ACCESS_KIND_OBSERVER: AccessKind
ACCESS_KIND_SOURCE_QUERY: AccessKind
ACCESS_KIND_STATISTICS: AccessKind

class AccessLogRequest(_message.Message):
    __slots__ = ("app_id", "since")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    since: int
    def __init__(self, app_id: _Optional[str] = ..., since: _Optional[int] = ...) -> None: ...

class AccessLogEntry(_message.Message):
    __slots__ = ("app_id", "type", "kind", "hour", "first", "last", "count")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    HOUR_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    LAST_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    type: str
    kind: AccessKind
    hour: int
    first: int
    last: int
    count: int
    def __init__(self, app_id: _Optional[str] = ..., type: _Optional[str] = ..., kind: _Optional[_Union[AccessKind, str]] = ..., hour: _Optional[int] = ..., first: _Optional[int] = ..., last: _Optional[int] = ..., count: _Optional[int] = ...) -> None: ...

class AccessLogResponse(_message.Message):
    __slots__ = ("entries", "retention_seconds")
    ENTRIES_FIELD_NUMBER: _ClassVar[int]
    RETENTION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    entries: _containers.RepeatedCompositeFieldContainer[AccessLogEntry]
    retention_seconds: int
    def __init__(self, entries: _Optional[_Iterable[_Union[AccessLogEntry, _Mapping]]] = ..., retention_seconds: _Optional[int] = ...) -> None: ...

class AccessLogSettingsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class AccessLogSettings(_message.Message):
    __slots__ = ("retention_seconds",)
    RETENTION_SECONDS_FIELD_NUMBER: _ClassVar[int]
    retention_seconds: int
    def __init__(self, retention_seconds: _Optional[int] = ...) -> None: ...

class AppDataRequest(_message.Message):
    __slots__ = ("app_id", "types", "since", "until", "dry_run")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    TYPES_FIELD_NUMBER: _ClassVar[int]
    SINCE_FIELD_NUMBER: _ClassVar[int]
    UNTIL_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    types: _containers.RepeatedScalarFieldContainer[str]
    since: int
    until: int
    dry_run: bool
    def __init__(self, app_id: _Optional[str] = ..., types: _Optional[_Iterable[str]] = ..., since: _Optional[int] = ..., until: _Optional[int] = ..., dry_run: _Optional[bool] = ...) -> None: ...

class AppTypeData(_message.Message):
    __slots__ = ("type", "count", "first", "last")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    COUNT_FIELD_NUMBER: _ClassVar[int]
    FIRST_FIELD_NUMBER: _ClassVar[int]
    LAST_FIELD_NUMBER: _ClassVar[int]
    type: str
    count: int
    first: int
    last: int
    def __init__(self, type: _Optional[str] = ..., count: _Optional[int] = ..., first: _Optional[int] = ..., last: _Optional[int] = ...) -> None: ...

class AppDataSummary(_message.Message):
    __slots__ = ("app_id", "types", "registered")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    TYPES_FIELD_NUMBER: _ClassVar[int]
    REGISTERED_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    types: _containers.RepeatedCompositeFieldContainer[AppTypeData]
    registered: bool
    def __init__(self, app_id: _Optional[str] = ..., types: _Optional[_Iterable[_Union[AppTypeData, _Mapping]]] = ..., registered: _Optional[bool] = ...) -> None: ...
