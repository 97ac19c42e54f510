from salus._proto.salus.v1 import samples_pb2 as _samples_pb2
from salus._proto.salus.v1 import store_pb2 as _store_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ReplicaOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    REPLICA_OUTCOME_UNSPECIFIED: _ClassVar[ReplicaOutcome]
    REPLICA_OUTCOME_SAVED: _ClassVar[ReplicaOutcome]
    REPLICA_OUTCOME_PRESENT: _ClassVar[ReplicaOutcome]
    REPLICA_OUTCOME_DELETED_HERE: _ClassVar[ReplicaOutcome]
    REPLICA_OUTCOME_KEPT_LOCAL: _ClassVar[ReplicaOutcome]
    REPLICA_OUTCOME_REPLACED: _ClassVar[ReplicaOutcome]
REPLICA_OUTCOME_UNSPECIFIED: ReplicaOutcome
REPLICA_OUTCOME_SAVED: ReplicaOutcome
REPLICA_OUTCOME_PRESENT: ReplicaOutcome
REPLICA_OUTCOME_DELETED_HERE: ReplicaOutcome
REPLICA_OUTCOME_KEPT_LOCAL: ReplicaOutcome
REPLICA_OUTCOME_REPLACED: ReplicaOutcome

class ReplicaSaveRequest(_message.Message):
    __slots__ = ("samples",)
    SAMPLES_FIELD_NUMBER: _ClassVar[int]
    samples: _containers.RepeatedCompositeFieldContainer[_samples_pb2.Sample]
    def __init__(self, samples: _Optional[_Iterable[_Union[_samples_pb2.Sample, _Mapping]]] = ...) -> None: ...

class ReplicaSaveResult(_message.Message):
    __slots__ = ("uuid", "outcome", "local_uuid")
    UUID_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    LOCAL_UUID_FIELD_NUMBER: _ClassVar[int]
    uuid: bytes
    outcome: ReplicaOutcome
    local_uuid: bytes
    def __init__(self, uuid: _Optional[bytes] = ..., outcome: _Optional[_Union[ReplicaOutcome, str]] = ..., local_uuid: _Optional[bytes] = ...) -> None: ...

class ReplicaSaveResponse(_message.Message):
    __slots__ = ("results", "anchor")
    RESULTS_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_FIELD_NUMBER: _ClassVar[int]
    results: _containers.RepeatedCompositeFieldContainer[ReplicaSaveResult]
    anchor: int
    def __init__(self, results: _Optional[_Iterable[_Union[ReplicaSaveResult, _Mapping]]] = ..., anchor: _Optional[int] = ...) -> None: ...

class ReplicaDeleteResponse(_message.Message):
    __slots__ = ("deleted", "anchor")
    DELETED_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_FIELD_NUMBER: _ClassVar[int]
    deleted: int
    anchor: int
    def __init__(self, deleted: _Optional[int] = ..., anchor: _Optional[int] = ...) -> None: ...
