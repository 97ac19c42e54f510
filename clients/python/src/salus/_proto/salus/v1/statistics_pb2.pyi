from salus._proto.salus.v1 import predicates_pb2 as _predicates_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class StatisticsOption(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    STATISTICS_OPTION_UNSPECIFIED: _ClassVar[StatisticsOption]
    STATISTICS_OPTION_CUMULATIVE_SUM: _ClassVar[StatisticsOption]
    STATISTICS_OPTION_DISCRETE_AVERAGE: _ClassVar[StatisticsOption]
    STATISTICS_OPTION_DISCRETE_MIN: _ClassVar[StatisticsOption]
    STATISTICS_OPTION_DISCRETE_MAX: _ClassVar[StatisticsOption]
    STATISTICS_OPTION_MOST_RECENT: _ClassVar[StatisticsOption]
    STATISTICS_OPTION_DURATION: _ClassVar[StatisticsOption]
    STATISTICS_OPTION_SEPARATE_BY_SOURCE: _ClassVar[StatisticsOption]

class IntervalUnit(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    INTERVAL_UNIT_UNSPECIFIED: _ClassVar[IntervalUnit]
    INTERVAL_UNIT_SECOND: _ClassVar[IntervalUnit]
    INTERVAL_UNIT_MINUTE: _ClassVar[IntervalUnit]
    INTERVAL_UNIT_HOUR: _ClassVar[IntervalUnit]
    INTERVAL_UNIT_DAY: _ClassVar[IntervalUnit]
    INTERVAL_UNIT_WEEK: _ClassVar[IntervalUnit]
    INTERVAL_UNIT_MONTH: _ClassVar[IntervalUnit]
STATISTICS_OPTION_UNSPECIFIED: StatisticsOption
STATISTICS_OPTION_CUMULATIVE_SUM: StatisticsOption
STATISTICS_OPTION_DISCRETE_AVERAGE: StatisticsOption
STATISTICS_OPTION_DISCRETE_MIN: StatisticsOption
STATISTICS_OPTION_DISCRETE_MAX: StatisticsOption
STATISTICS_OPTION_MOST_RECENT: StatisticsOption
STATISTICS_OPTION_DURATION: StatisticsOption
STATISTICS_OPTION_SEPARATE_BY_SOURCE: StatisticsOption
INTERVAL_UNIT_UNSPECIFIED: IntervalUnit
INTERVAL_UNIT_SECOND: IntervalUnit
INTERVAL_UNIT_MINUTE: IntervalUnit
INTERVAL_UNIT_HOUR: IntervalUnit
INTERVAL_UNIT_DAY: IntervalUnit
INTERVAL_UNIT_WEEK: IntervalUnit
INTERVAL_UNIT_MONTH: IntervalUnit

class StatisticsRequest(_message.Message):
    __slots__ = ("type", "predicate", "options", "unit", "window_start", "window_end")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    PREDICATE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    WINDOW_START_FIELD_NUMBER: _ClassVar[int]
    WINDOW_END_FIELD_NUMBER: _ClassVar[int]
    type: str
    predicate: _predicates_pb2.Predicate
    options: _containers.RepeatedScalarFieldContainer[StatisticsOption]
    unit: str
    window_start: int
    window_end: int
    def __init__(self, type: _Optional[str] = ..., predicate: _Optional[_Union[_predicates_pb2.Predicate, _Mapping]] = ..., options: _Optional[_Iterable[_Union[StatisticsOption, str]]] = ..., unit: _Optional[str] = ..., window_start: _Optional[int] = ..., window_end: _Optional[int] = ...) -> None: ...

class StatisticValues(_message.Message):
    __slots__ = ("sum", "average", "minimum", "maximum", "most_recent", "most_recent_start", "most_recent_end", "duration")
    SUM_FIELD_NUMBER: _ClassVar[int]
    AVERAGE_FIELD_NUMBER: _ClassVar[int]
    MINIMUM_FIELD_NUMBER: _ClassVar[int]
    MAXIMUM_FIELD_NUMBER: _ClassVar[int]
    MOST_RECENT_FIELD_NUMBER: _ClassVar[int]
    MOST_RECENT_START_FIELD_NUMBER: _ClassVar[int]
    MOST_RECENT_END_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    sum: float
    average: float
    minimum: float
    maximum: float
    most_recent: float
    most_recent_start: int
    most_recent_end: int
    duration: float
    def __init__(self, sum: _Optional[float] = ..., average: _Optional[float] = ..., minimum: _Optional[float] = ..., maximum: _Optional[float] = ..., most_recent: _Optional[float] = ..., most_recent_start: _Optional[int] = ..., most_recent_end: _Optional[int] = ..., duration: _Optional[float] = ...) -> None: ...

class StatisticsResult(_message.Message):
    __slots__ = ("start_date", "end_date", "unit", "values", "sources", "by_source")
    class BySourceEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: StatisticValues
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[StatisticValues, _Mapping]] = ...) -> None: ...
    START_DATE_FIELD_NUMBER: _ClassVar[int]
    END_DATE_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    VALUES_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    BY_SOURCE_FIELD_NUMBER: _ClassVar[int]
    start_date: int
    end_date: int
    unit: str
    values: StatisticValues
    sources: _containers.RepeatedScalarFieldContainer[str]
    by_source: _containers.MessageMap[str, StatisticValues]
    def __init__(self, start_date: _Optional[int] = ..., end_date: _Optional[int] = ..., unit: _Optional[str] = ..., values: _Optional[_Union[StatisticValues, _Mapping]] = ..., sources: _Optional[_Iterable[str]] = ..., by_source: _Optional[_Mapping[str, StatisticValues]] = ...) -> None: ...

class StatisticsResponse(_message.Message):
    __slots__ = ("statistics",)
    STATISTICS_FIELD_NUMBER: _ClassVar[int]
    statistics: StatisticsResult
    def __init__(self, statistics: _Optional[_Union[StatisticsResult, _Mapping]] = ...) -> None: ...

class StatisticsCollectionRequest(_message.Message):
    __slots__ = ("type", "predicate", "options", "unit", "anchor_date", "interval_count", "interval_unit", "time_zone", "to", "live")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    PREDICATE_FIELD_NUMBER: _ClassVar[int]
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    ANCHOR_DATE_FIELD_NUMBER: _ClassVar[int]
    INTERVAL_COUNT_FIELD_NUMBER: _ClassVar[int]
    INTERVAL_UNIT_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    FROM_FIELD_NUMBER: _ClassVar[int]
    TO_FIELD_NUMBER: _ClassVar[int]
    LIVE_FIELD_NUMBER: _ClassVar[int]
    type: str
    predicate: _predicates_pb2.Predicate
    options: _containers.RepeatedScalarFieldContainer[StatisticsOption]
    unit: str
    anchor_date: int
    interval_count: int
    interval_unit: IntervalUnit
    time_zone: str
    to: int
    live: bool
    def __init__(self, type: _Optional[str] = ..., predicate: _Optional[_Union[_predicates_pb2.Predicate, _Mapping]] = ..., options: _Optional[_Iterable[_Union[StatisticsOption, str]]] = ..., unit: _Optional[str] = ..., anchor_date: _Optional[int] = ..., interval_count: _Optional[int] = ..., interval_unit: _Optional[_Union[IntervalUnit, str]] = ..., time_zone: _Optional[str] = ..., to: _Optional[int] = ..., live: _Optional[bool] = ..., **kwargs) -> None: ...

class StatisticsCollectionBatch(_message.Message):
    __slots__ = ("statistics", "initial_results_complete", "time_zone")
    STATISTICS_FIELD_NUMBER: _ClassVar[int]
    INITIAL_RESULTS_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    statistics: _containers.RepeatedCompositeFieldContainer[StatisticsResult]
    initial_results_complete: bool
    time_zone: str
    def __init__(self, statistics: _Optional[_Iterable[_Union[StatisticsResult, _Mapping]]] = ..., initial_results_complete: _Optional[bool] = ..., time_zone: _Optional[str] = ...) -> None: ...

class SourcePriorityRequest(_message.Message):
    __slots__ = ("type",)
    TYPE_FIELD_NUMBER: _ClassVar[int]
    type: str
    def __init__(self, type: _Optional[str] = ...) -> None: ...

class SourcePriority(_message.Message):
    __slots__ = ("type", "sources")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    type: str
    sources: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, type: _Optional[str] = ..., sources: _Optional[_Iterable[str]] = ...) -> None: ...

class PreferredUnitsRequest(_message.Message):
    __slots__ = ("types",)
    TYPES_FIELD_NUMBER: _ClassVar[int]
    types: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, types: _Optional[_Iterable[str]] = ...) -> None: ...

class PreferredUnit(_message.Message):
    __slots__ = ("type", "unit", "owner_set")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    OWNER_SET_FIELD_NUMBER: _ClassVar[int]
    type: str
    unit: str
    owner_set: bool
    def __init__(self, type: _Optional[str] = ..., unit: _Optional[str] = ..., owner_set: _Optional[bool] = ...) -> None: ...

class PreferredUnits(_message.Message):
    __slots__ = ("units",)
    UNITS_FIELD_NUMBER: _ClassVar[int]
    units: _containers.RepeatedCompositeFieldContainer[PreferredUnit]
    def __init__(self, units: _Optional[_Iterable[_Union[PreferredUnit, _Mapping]]] = ...) -> None: ...
