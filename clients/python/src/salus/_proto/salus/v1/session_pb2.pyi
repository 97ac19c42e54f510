from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class HelloRequest(_message.Message):
    __slots__ = ("protocol_version", "client_name", "client_version", "features", "app_id")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    CLIENT_NAME_FIELD_NUMBER: _ClassVar[int]
    CLIENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    client_name: str
    client_version: str
    features: _containers.RepeatedScalarFieldContainer[str]
    app_id: str
    def __init__(self, protocol_version: _Optional[int] = ..., client_name: _Optional[str] = ..., client_version: _Optional[str] = ..., features: _Optional[_Iterable[str]] = ..., app_id: _Optional[str] = ...) -> None: ...

class HelloResponse(_message.Message):
    __slots__ = ("protocol_version", "server_name", "server_version", "features", "limits", "services")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    SERVER_NAME_FIELD_NUMBER: _ClassVar[int]
    SERVER_VERSION_FIELD_NUMBER: _ClassVar[int]
    FEATURES_FIELD_NUMBER: _ClassVar[int]
    LIMITS_FIELD_NUMBER: _ClassVar[int]
    SERVICES_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    server_name: str
    server_version: str
    features: _containers.RepeatedScalarFieldContainer[str]
    limits: Limits
    services: _containers.RepeatedCompositeFieldContainer[ServiceInfo]
    def __init__(self, protocol_version: _Optional[int] = ..., server_name: _Optional[str] = ..., server_version: _Optional[str] = ..., features: _Optional[_Iterable[str]] = ..., limits: _Optional[_Union[Limits, _Mapping]] = ..., services: _Optional[_Iterable[_Union[ServiceInfo, _Mapping]]] = ...) -> None: ...

class Limits(_message.Message):
    __slots__ = ("max_frame_size", "max_metadata_size", "initial_window", "receive_window", "max_attachment_size", "max_connections", "max_streams_per_connection", "max_pending_requests_per_app")
    MAX_FRAME_SIZE_FIELD_NUMBER: _ClassVar[int]
    MAX_METADATA_SIZE_FIELD_NUMBER: _ClassVar[int]
    INITIAL_WINDOW_FIELD_NUMBER: _ClassVar[int]
    RECEIVE_WINDOW_FIELD_NUMBER: _ClassVar[int]
    MAX_ATTACHMENT_SIZE_FIELD_NUMBER: _ClassVar[int]
    MAX_CONNECTIONS_FIELD_NUMBER: _ClassVar[int]
    MAX_STREAMS_PER_CONNECTION_FIELD_NUMBER: _ClassVar[int]
    MAX_PENDING_REQUESTS_PER_APP_FIELD_NUMBER: _ClassVar[int]
    max_frame_size: int
    max_metadata_size: int
    initial_window: int
    receive_window: int
    max_attachment_size: int
    max_connections: int
    max_streams_per_connection: int
    max_pending_requests_per_app: int
    def __init__(self, max_frame_size: _Optional[int] = ..., max_metadata_size: _Optional[int] = ..., initial_window: _Optional[int] = ..., receive_window: _Optional[int] = ..., max_attachment_size: _Optional[int] = ..., max_connections: _Optional[int] = ..., max_streams_per_connection: _Optional[int] = ..., max_pending_requests_per_app: _Optional[int] = ...) -> None: ...

class ServiceInfo(_message.Message):
    __slots__ = ("name", "methods")
    NAME_FIELD_NUMBER: _ClassVar[int]
    METHODS_FIELD_NUMBER: _ClassVar[int]
    name: str
    methods: _containers.RepeatedCompositeFieldContainer[MethodInfo]
    def __init__(self, name: _Optional[str] = ..., methods: _Optional[_Iterable[_Union[MethodInfo, _Mapping]]] = ...) -> None: ...

class MethodInfo(_message.Message):
    __slots__ = ("name", "client_streaming", "server_streaming")
    NAME_FIELD_NUMBER: _ClassVar[int]
    CLIENT_STREAMING_FIELD_NUMBER: _ClassVar[int]
    SERVER_STREAMING_FIELD_NUMBER: _ClassVar[int]
    name: str
    client_streaming: bool
    server_streaming: bool
    def __init__(self, name: _Optional[str] = ..., client_streaming: _Optional[bool] = ..., server_streaming: _Optional[bool] = ...) -> None: ...
