from salus._proto.salus.v1 import samples_pb2 as _samples_pb2
from salus._proto.salus.v1 import store_pb2 as _store_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SaveRouteHeader(_message.Message):
    __slots__ = ("sample",)
    SAMPLE_FIELD_NUMBER: _ClassVar[int]
    sample: _samples_pb2.Sample
    def __init__(self, sample: _Optional[_Union[_samples_pb2.Sample, _Mapping]] = ...) -> None: ...

class SaveRouteMessage(_message.Message):
    __slots__ = ("header", "locations")
    HEADER_FIELD_NUMBER: _ClassVar[int]
    LOCATIONS_FIELD_NUMBER: _ClassVar[int]
    header: SaveRouteHeader
    locations: RouteLocationBatch
    def __init__(self, header: _Optional[_Union[SaveRouteHeader, _Mapping]] = ..., locations: _Optional[_Union[RouteLocationBatch, _Mapping]] = ...) -> None: ...

class RouteLocationBatch(_message.Message):
    __slots__ = ("locations", "first_index")
    LOCATIONS_FIELD_NUMBER: _ClassVar[int]
    FIRST_INDEX_FIELD_NUMBER: _ClassVar[int]
    locations: _containers.RepeatedCompositeFieldContainer[_samples_pb2.RouteLocation]
    first_index: int
    def __init__(self, locations: _Optional[_Iterable[_Union[_samples_pb2.RouteLocation, _Mapping]]] = ..., first_index: _Optional[int] = ...) -> None: ...

class SaveRouteResponse(_message.Message):
    __slots__ = ("result", "anchor")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_FIELD_NUMBER: _ClassVar[int]
    result: _store_pb2.SaveResult
    anchor: int
    def __init__(self, result: _Optional[_Union[_store_pb2.SaveResult, _Mapping]] = ..., anchor: _Optional[int] = ...) -> None: ...

class ReadRouteRequest(_message.Message):
    __slots__ = ("uuid", "start", "end")
    UUID_FIELD_NUMBER: _ClassVar[int]
    START_FIELD_NUMBER: _ClassVar[int]
    END_FIELD_NUMBER: _ClassVar[int]
    uuid: bytes
    start: int
    end: int
    def __init__(self, uuid: _Optional[bytes] = ..., start: _Optional[int] = ..., end: _Optional[int] = ...) -> None: ...
