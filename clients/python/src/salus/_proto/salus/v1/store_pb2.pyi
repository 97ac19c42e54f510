from salus._proto.salus.v1 import samples_pb2 as _samples_pb2
from salus._proto.salus.v1 import predicates_pb2 as _predicates_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class SaveOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SAVE_OUTCOME_UNSPECIFIED: _ClassVar[SaveOutcome]
    SAVE_OUTCOME_SAVED: _ClassVar[SaveOutcome]
    SAVE_OUTCOME_KEPT_EXISTING: _ClassVar[SaveOutcome]
    SAVE_OUTCOME_REPLACED: _ClassVar[SaveOutcome]

class SortKey(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    SORT_KEY_UNSPECIFIED: _ClassVar[SortKey]
    SORT_KEY_START_DATE: _ClassVar[SortKey]
    SORT_KEY_END_DATE: _ClassVar[SortKey]
SAVE_OUTCOME_UNSPECIFIED: SaveOutcome
SAVE_OUTCOME_SAVED: SaveOutcome
SAVE_OUTCOME_KEPT_EXISTING: SaveOutcome
SAVE_OUTCOME_REPLACED: SaveOutcome
SORT_KEY_UNSPECIFIED: SortKey
SORT_KEY_START_DATE: SortKey
SORT_KEY_END_DATE: SortKey

class SaveRequest(_message.Message):
    __slots__ = ("samples",)
    SAMPLES_FIELD_NUMBER: _ClassVar[int]
    samples: _containers.RepeatedCompositeFieldContainer[_samples_pb2.Sample]
    def __init__(self, samples: _Optional[_Iterable[_Union[_samples_pb2.Sample, _Mapping]]] = ...) -> None: ...

class SaveResult(_message.Message):
    __slots__ = ("uuid", "outcome", "replaced_uuid", "objects")
    UUID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    REPLACED_UUID_FIELD_NUMBER: _ClassVar[int]
    OBJECTS_FIELD_NUMBER: _ClassVar[int]
    uuid: bytes
    outcome: SaveOutcome
    replaced_uuid: bytes
    objects: _containers.RepeatedCompositeFieldContainer[SaveResult]
    def __init__(self, uuid: _Optional[bytes] = ..., outcome: _Optional[_Union[SaveOutcome, str]] = ..., replaced_uuid: _Optional[bytes] = ..., objects: _Optional[_Iterable[_Union[SaveResult, _Mapping]]] = ...) -> None: ...

class SaveResponse(_message.Message):
    __slots__ = ("results", "anchor")
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[SaveResult]
    anchor: int
    def __init__(self, results: _Optional[_Iterable[_Union[SaveResult, _Mapping]]] = ..., anchor: _Optional[int] = ...) -> None: ...

class DeleteRequest(_message.Message):
    __slots__ = ("uuids", "matching")
    UUIDS_FIELD_NUMBER: _ClassVar[int]
    MATCHING_FIELD_NUMBER: _ClassVar[int]
    uuids: UUIDList
    matching: TypedPredicate
    def __init__(self, uuids: _Optional[_Union[UUIDList, _Mapping]] = ..., matching: _Optional[_Union[TypedPredicate, _Mapping]] = ...) -> None: ...

class UUIDList(_message.Message):
    __slots__ = ("uuids",)
    UUIDS_FIELD_NUMBER: _ClassVar[int]
    uuids: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, uuids: _Optional[_Iterable[bytes]] = ...) -> None: ...

class TypedPredicate(_message.Message):
    __slots__ = ("type", "predicate")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    PREDICATE_FIELD_NUMBER: _ClassVar[int]
    type: str
    predicate: _predicates_pb2.Predicate
    def __init__(self, type: _Optional[str] = ..., predicate: _Optional[_Union[_predicates_pb2.Predicate, _Mapping]] = ...) -> None: ...

class DeleteResponse(_message.Message):
    __slots__ = ("deleted", "anchor")
    DELETED_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_FIELD_NUMBER: _ClassVar[int]
    deleted: int
    anchor: int
    def __init__(self, deleted: _Optional[int] = ..., anchor: _Optional[int] = ...) -> None: ...

class SortDescriptor(_message.Message):
    __slots__ = ("key", "descending")
    KEY_FIELD_NUMBER: _ClassVar[int]
    DESCENDING_FIELD_NUMBER: _ClassVar[int]
    key: SortKey
    descending: bool
    def __init__(self, key: _Optional[_Union[SortKey, str]] = ..., descending: _Optional[bool] = ...) -> None: ...

class SampleQueryRequest(_message.Message):
    __slots__ = ("type", "predicate", "sort", "limit", "sample_predicates", "include_data")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    PREDICATE_FIELD_NUMBER: _ClassVar[int]
    SORT_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_PREDICATES_FIELD_NUMBER: _ClassVar[int]
    INCLUDE_DATA_FIELD_NUMBER: _ClassVar[int]
    type: str
    predicate: _predicates_pb2.Predicate
    sort: _containers.RepeatedCompositeFieldContainer[SortDescriptor]
    limit: int
    sample_predicates: _containers.RepeatedCompositeFieldContainer[TypedPredicate]
    include_data: bool
    def __init__(self, type: _Optional[str] = ..., predicate: _Optional[_Union[_predicates_pb2.Predicate, _Mapping]] = ..., sort: _Optional[_Iterable[_Union[SortDescriptor, _Mapping]]] = ..., limit: _Optional[int] = ..., sample_predicates: _Optional[_Iterable[_Union[TypedPredicate, _Mapping]]] = ..., include_data: _Optional[bool] = ...) -> None: ...

class SampleBatch(_message.Message):
    __slots__ = ("samples",)
    SAMPLES_FIELD_NUMBER: _ClassVar[int]
    samples: _containers.RepeatedCompositeFieldContainer[_samples_pb2.Sample]
    def __init__(self, samples: _Optional[_Iterable[_Union[_samples_pb2.Sample, _Mapping]]] = ...) -> None: ...

class AnchoredQueryRequest(_message.Message):
    __slots__ = ("descriptors", "anchor", "limit", "live", "local_changes_only", "count_initial_added")
    DESCRIPTORS_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_FIELD_NUMBER: _ClassVar[int]
    LIMIT_FIELD_NUMBER: _ClassVar[int]
    LIVE_FIELD_NUMBER: _ClassVar[int]
    LOCAL_CHANGES_ONLY_FIELD_NUMBER: _ClassVar[int]
    COUNT_INITIAL_ADDED_FIELD_NUMBER: _ClassVar[int]
    descriptors: _containers.RepeatedCompositeFieldContainer[TypedPredicate]
    anchor: int
    limit: int
    live: bool
    local_changes_only: bool
    count_initial_added: bool
    def __init__(self, descriptors: _Optional[_Iterable[_Union[TypedPredicate, _Mapping]]] = ..., anchor: _Optional[int] = ..., limit: _Optional[int] = ..., live: _Optional[bool] = ..., local_changes_only: _Optional[bool] = ..., count_initial_added: _Optional[bool] = ...) -> None: ...

class AnchoredBatch(_message.Message):
    __slots__ = ("added", "deleted", "anchor", "initial_results_complete", "more_changes", "initial_added_hint")
    ADDED_FIELD_NUMBER: _ClassVar[int]
    DELETED_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_FIELD_NUMBER: _ClassVar[int]
    INITIAL_RESULTS_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    MORE_CHANGES_FIELD_NUMBER: _ClassVar[int]
    INITIAL_ADDED_HINT_FIELD_NUMBER: _ClassVar[int]
    added: _containers.RepeatedCompositeFieldContainer[_samples_pb2.Sample]
    deleted: _containers.RepeatedCompositeFieldContainer[_samples_pb2.DeletedObject]
    anchor: int
    initial_results_complete: bool
    more_changes: bool
    initial_added_hint: int
    def __init__(self, added: _Optional[_Iterable[_Union[_samples_pb2.Sample, _Mapping]]] = ..., deleted: _Optional[_Iterable[_Union[_samples_pb2.DeletedObject, _Mapping]]] = ..., anchor: _Optional[int] = ..., initial_results_complete: _Optional[bool] = ..., more_changes: _Optional[bool] = ..., initial_added_hint: _Optional[int] = ...) -> None: ...

class ObserverRequest(_message.Message):
    __slots__ = ("descriptors",)
    DESCRIPTORS_FIELD_NUMBER: _ClassVar[int]
    descriptors: _containers.RepeatedCompositeFieldContainer[TypedPredicate]
    def __init__(self, descriptors: _Optional[_Iterable[_Union[TypedPredicate, _Mapping]]] = ...) -> None: ...

class ObserverNotification(_message.Message):
    __slots__ = ("changed_types", "anchor")
    CHANGED_TYPES_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_FIELD_NUMBER: _ClassVar[int]
    changed_types: _containers.RepeatedScalarFieldContainer[str]
    anchor: int
    def __init__(self, changed_types: _Optional[_Iterable[str]] = ..., anchor: _Optional[int] = ...) -> None: ...

class SourceQueryRequest(_message.Message):
    __slots__ = ("type", "predicate")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    PREDICATE_FIELD_NUMBER: _ClassVar[int]
    type: str
    predicate: _predicates_pb2.Predicate
    def __init__(self, type: _Optional[str] = ..., predicate: _Optional[_Union[_predicates_pb2.Predicate, _Mapping]] = ...) -> None: ...

class SourceInfo(_message.Message):
    __slots__ = ("app_id", "name", "devices")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    DEVICES_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    name: str
    devices: _containers.RepeatedCompositeFieldContainer[_samples_pb2.Device]
    def __init__(self, app_id: _Optional[str] = ..., name: _Optional[str] = ..., devices: _Optional[_Iterable[_Union[_samples_pb2.Device, _Mapping]]] = ...) -> None: ...

class SourceQueryResponse(_message.Message):
    __slots__ = ("sources",)
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    sources: _containers.RepeatedCompositeFieldContainer[SourceInfo]
    def __init__(self, sources: _Optional[_Iterable[_Union[SourceInfo, _Mapping]]] = ...) -> None: ...

class ElectrocardiogramVoltageQueryRequest(_message.Message):
    __slots__ = ("uuid",)
    UUID_FIELD_NUMBER: _ClassVar[int]
    uuid: bytes
    def __init__(self, uuid: _Optional[bytes] = ...) -> None: ...

class ElectrocardiogramVoltageBatch(_message.Message):
    __slots__ = ("voltages", "first_index")
    VOLTAGES_FIELD_NUMBER: _ClassVar[int]
    FIRST_INDEX_FIELD_NUMBER: _ClassVar[int]
    voltages: _containers.RepeatedCompositeFieldContainer[_samples_pb2.ElectrocardiogramVoltage]
    first_index: int
    def __init__(self, voltages: _Optional[_Iterable[_Union[_samples_pb2.ElectrocardiogramVoltage, _Mapping]]] = ..., first_index: _Optional[int] = ...) -> None: ...
