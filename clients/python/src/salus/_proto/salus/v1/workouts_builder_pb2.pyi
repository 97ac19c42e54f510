from salus._proto.salus.v1 import samples_pb2 as _samples_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class WorkoutBuilderPhase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WORKOUT_BUILDER_PHASE_UNSPECIFIED: _ClassVar[WorkoutBuilderPhase]
    WORKOUT_BUILDER_PHASE_COLLECTING: _ClassVar[WorkoutBuilderPhase]
    WORKOUT_BUILDER_PHASE_ENDED: _ClassVar[WorkoutBuilderPhase]

class WorkoutSessionState(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WORKOUT_SESSION_STATE_UNSPECIFIED: _ClassVar[WorkoutSessionState]
    WORKOUT_SESSION_STATE_NOT_STARTED: _ClassVar[WorkoutSessionState]
    WORKOUT_SESSION_STATE_RUNNING: _ClassVar[WorkoutSessionState]
    WORKOUT_SESSION_STATE_ENDED: _ClassVar[WorkoutSessionState]
    WORKOUT_SESSION_STATE_PAUSED: _ClassVar[WorkoutSessionState]
    WORKOUT_SESSION_STATE_PREPARED: _ClassVar[WorkoutSessionState]
    WORKOUT_SESSION_STATE_STOPPED: _ClassVar[WorkoutSessionState]
WORKOUT_BUILDER_PHASE_UNSPECIFIED: WorkoutBuilderPhase
WORKOUT_BUILDER_PHASE_COLLECTING: WorkoutBuilderPhase
WORKOUT_BUILDER_PHASE_ENDED: WorkoutBuilderPhase
WORKOUT_SESSION_STATE_UNSPECIFIED: WorkoutSessionState
WORKOUT_SESSION_STATE_NOT_STARTED: WorkoutSessionState
WORKOUT_SESSION_STATE_RUNNING: WorkoutSessionState
WORKOUT_SESSION_STATE_ENDED: WorkoutSessionState
WORKOUT_SESSION_STATE_PAUSED: WorkoutSessionState
WORKOUT_SESSION_STATE_PREPARED: WorkoutSessionState
WORKOUT_SESSION_STATE_STOPPED: WorkoutSessionState

class BeginWorkoutRequest(_message.Message):
    __slots__ = ("activity_type", "configuration", "start_date", "device")
    ACTIVITY_TYPE_FIELD_NUMBER: _ClassVar[int]
    CONFIGURATION_FIELD_NUMBER: _ClassVar[int]
    START_DATE_FIELD_NUMBER: _ClassVar[int]
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    activity_type: int
    configuration: _samples_pb2.WorkoutConfiguration
    start_date: int
    device: _samples_pb2.Device
    def __init__(self, activity_type: _Optional[int] = ..., configuration: _Optional[_Union[_samples_pb2.WorkoutConfiguration, _Mapping]] = ..., start_date: _Optional[int] = ..., device: _Optional[_Union[_samples_pb2.Device, _Mapping]] = ...) -> None: ...

class WorkoutBuilderRef(_message.Message):
    __slots__ = ("builder_id",)
    BUILDER_ID_FIELD_NUMBER: _ClassVar[int]
    builder_id: bytes
    def __init__(self, builder_id: _Optional[bytes] = ...) -> None: ...

class ListWorkoutBuildersRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ListWorkoutBuildersResponse(_message.Message):
    __slots__ = ("builders",)
    BUILDERS_FIELD_NUMBER: _ClassVar[int]
    builders: _containers.RepeatedCompositeFieldContainer[WorkoutBuilderState]
    def __init__(self, builders: _Optional[_Iterable[_Union[WorkoutBuilderState, _Mapping]]] = ...) -> None: ...

class AddWorkoutSamplesRequest(_message.Message):
    __slots__ = ("builder_id", "samples")
    BUILDER_ID_FIELD_NUMBER: _ClassVar[int]
    SAMPLES_FIELD_NUMBER: _ClassVar[int]
    builder_id: bytes
    samples: _containers.RepeatedCompositeFieldContainer[_samples_pb2.Sample]
    def __init__(self, builder_id: _Optional[bytes] = ..., samples: _Optional[_Iterable[_Union[_samples_pb2.Sample, _Mapping]]] = ...) -> None: ...

class AddWorkoutEventsRequest(_message.Message):
    __slots__ = ("builder_id", "events")
    BUILDER_ID_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    builder_id: bytes
    events: _containers.RepeatedCompositeFieldContainer[_samples_pb2.WorkoutEvent]
    def __init__(self, builder_id: _Optional[bytes] = ..., events: _Optional[_Iterable[_Union[_samples_pb2.WorkoutEvent, _Mapping]]] = ...) -> None: ...

class AddWorkoutMetadataRequest(_message.Message):
    __slots__ = ("builder_id", "metadata")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _samples_pb2.MetadataValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_samples_pb2.MetadataValue, _Mapping]] = ...) -> None: ...
    BUILDER_ID_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    builder_id: bytes
    metadata: _containers.MessageMap[str, _samples_pb2.MetadataValue]
    def __init__(self, builder_id: _Optional[bytes] = ..., metadata: _Optional[_Mapping[str, _samples_pb2.MetadataValue]] = ...) -> None: ...

class BeginWorkoutActivityRequest(_message.Message):
    __slots__ = ("builder_id", "activity_type", "configuration", "start_date", "metadata")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: _samples_pb2.MetadataValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[_samples_pb2.MetadataValue, _Mapping]] = ...) -> None: ...
    BUILDER_ID_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_TYPE_FIELD_NUMBER: _ClassVar[int]
    CONFIGURATION_FIELD_NUMBER: _ClassVar[int]
    START_DATE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    builder_id: bytes
    activity_type: int
    configuration: _samples_pb2.WorkoutConfiguration
    start_date: int
    metadata: _containers.MessageMap[str, _samples_pb2.MetadataValue]
    def __init__(self, builder_id: _Optional[bytes] = ..., activity_type: _Optional[int] = ..., configuration: _Optional[_Union[_samples_pb2.WorkoutConfiguration, _Mapping]] = ..., start_date: _Optional[int] = ..., metadata: _Optional[_Mapping[str, _samples_pb2.MetadataValue]] = ...) -> None: ...

class EndWorkoutActivityRequest(_message.Message):
    __slots__ = ("builder_id", "end_date")
    BUILDER_ID_FIELD_NUMBER: _ClassVar[int]
    END_DATE_FIELD_NUMBER: _ClassVar[int]
    builder_id: bytes
    end_date: int
    def __init__(self, builder_id: _Optional[bytes] = ..., end_date: _Optional[int] = ...) -> None: ...

class EndWorkoutCollectionRequest(_message.Message):
    __slots__ = ("builder_id", "end_date")
    BUILDER_ID_FIELD_NUMBER: _ClassVar[int]
    END_DATE_FIELD_NUMBER: _ClassVar[int]
    builder_id: bytes
    end_date: int
    def __init__(self, builder_id: _Optional[bytes] = ..., end_date: _Optional[int] = ...) -> None: ...

class WorkoutBuilderState(_message.Message):
    __slots__ = ("builder_id", "phase", "workout", "sample_count")
    BUILDER_ID_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    WORKOUT_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_COUNT_FIELD_NUMBER: _ClassVar[int]
    builder_id: bytes
    phase: WorkoutBuilderPhase
    workout: _samples_pb2.Sample
    sample_count: int
    def __init__(self, builder_id: _Optional[bytes] = ..., phase: _Optional[_Union[WorkoutBuilderPhase, str]] = ..., workout: _Optional[_Union[_samples_pb2.Sample, _Mapping]] = ..., sample_count: _Optional[int] = ...) -> None: ...

class FinishWorkoutResponse(_message.Message):
    __slots__ = ("workout", "sample_uuids", "anchor")
    WORKOUT_FIELD_NUMBER: _ClassVar[int]
    SAMPLE_UUIDS_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_FIELD_NUMBER: _ClassVar[int]
    workout: _samples_pb2.Sample
    sample_uuids: _containers.RepeatedScalarFieldContainer[bytes]
    anchor: int
    def __init__(self, workout: _Optional[_Union[_samples_pb2.Sample, _Mapping]] = ..., sample_uuids: _Optional[_Iterable[bytes]] = ..., anchor: _Optional[int] = ...) -> None: ...

class DiscardWorkoutResponse(_message.Message):
    __slots__ = ("dropped_samples",)
    DROPPED_SAMPLES_FIELD_NUMBER: _ClassVar[int]
    dropped_samples: int
    def __init__(self, dropped_samples: _Optional[int] = ...) -> None: ...

class ElapsedTimeRequest(_message.Message):
    __slots__ = ("builder_id", "date")
    BUILDER_ID_FIELD_NUMBER: _ClassVar[int]
    DATE_FIELD_NUMBER: _ClassVar[int]
    builder_id: bytes
    date: int
    def __init__(self, builder_id: _Optional[bytes] = ..., date: _Optional[int] = ...) -> None: ...

class ElapsedTimeResponse(_message.Message):
    __slots__ = ("seconds",)
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    seconds: float
    def __init__(self, seconds: _Optional[float] = ...) -> None: ...

class CreateWorkoutSessionRequest(_message.Message):
    __slots__ = ("activity_type", "configuration")
    ACTIVITY_TYPE_FIELD_NUMBER: _ClassVar[int]
    CONFIGURATION_FIELD_NUMBER: _ClassVar[int]
    activity_type: int
    configuration: _samples_pb2.WorkoutConfiguration
    def __init__(self, activity_type: _Optional[int] = ..., configuration: _Optional[_Union[_samples_pb2.WorkoutConfiguration, _Mapping]] = ...) -> None: ...

class WorkoutSessionRef(_message.Message):
    __slots__ = ("session_id",)
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    session_id: bytes
    def __init__(self, session_id: _Optional[bytes] = ...) -> None: ...

class ChangeWorkoutSessionStateRequest(_message.Message):
    __slots__ = ("session_id", "to", "date")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    DATE_FIELD_NUMBER: _ClassVar[int]
    session_id: bytes
    to: WorkoutSessionState
    date: int
    def __init__(self, session_id: _Optional[bytes] = ..., to: _Optional[_Union[WorkoutSessionState, str]] = ..., date: _Optional[int] = ...) -> None: ...

class WorkoutSessionInfo(_message.Message):
    __slots__ = ("session_id", "app_id", "state", "activity_type", "configuration", "builder_id", "start_date", "end_date")
    SESSION_ID_FIELD_NUMBER: _ClassVar[int]
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    STATE_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_TYPE_FIELD_NUMBER: _ClassVar[int]
    CONFIGURATION_FIELD_NUMBER: _ClassVar[int]
    BUILDER_ID_FIELD_NUMBER: _ClassVar[int]
    START_DATE_FIELD_NUMBER: _ClassVar[int]
    END_DATE_FIELD_NUMBER: _ClassVar[int]
    session_id: bytes
    app_id: str
    state: WorkoutSessionState
    activity_type: int
    configuration: _samples_pb2.WorkoutConfiguration
    builder_id: bytes
    start_date: int
    end_date: int
    def __init__(self, session_id: _Optional[bytes] = ..., app_id: _Optional[str] = ..., state: _Optional[_Union[WorkoutSessionState, str]] = ..., activity_type: _Optional[int] = ..., configuration: _Optional[_Union[_samples_pb2.WorkoutConfiguration, _Mapping]] = ..., builder_id: _Optional[bytes] = ..., start_date: _Optional[int] = ..., end_date: _Optional[int] = ...) -> None: ...

class WorkoutSessionUpdate(_message.Message):
    __slots__ = ("session", "date", "builder")
    SESSION_FIELD_NUMBER: _ClassVar[int]
    FROM_FIELD_NUMBER: _ClassVar[int]
    DATE_FIELD_NUMBER: _ClassVar[int]
    BUILDER_FIELD_NUMBER: _ClassVar[int]
    session: WorkoutSessionInfo
    date: int
    builder: WorkoutBuilderState
    def __init__(self, session: _Optional[_Union[WorkoutSessionInfo, _Mapping]] = ..., date: _Optional[int] = ..., builder: _Optional[_Union[WorkoutBuilderState, _Mapping]] = ..., **kwargs) -> None: ...
