from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class CalendarDate(_message.Message):
    __slots__ = ("year", "month", "day")
    YEAR_FIELD_NUMBER: _ClassVar[int]
    MONTH_FIELD_NUMBER: _ClassVar[int]
    DAY_FIELD_NUMBER: _ClassVar[int]
    year: int
    month: int
    day: int
    def __init__(self, year: _Optional[int] = ..., month: _Optional[int] = ..., day: _Optional[int] = ...) -> None: ...

class Characteristic(_message.Message):
    __slots__ = ("type", "enum_value", "date_value")
    TYPE_FIELD_NUMBER: _ClassVar[int]
    ENUM_VALUE_FIELD_NUMBER: _ClassVar[int]
    DATE_VALUE_FIELD_NUMBER: _ClassVar[int]
    type: str
    enum_value: int
    date_value: CalendarDate
    def __init__(self, type: _Optional[str] = ..., enum_value: _Optional[int] = ..., date_value: _Optional[_Union[CalendarDate, _Mapping]] = ...) -> None: ...

class CharacteristicsRequest(_message.Message):
    __slots__ = ("types",)
    TYPES_FIELD_NUMBER: _ClassVar[int]
    types: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, types: _Optional[_Iterable[str]] = ...) -> None: ...

class CharacteristicsResponse(_message.Message):
    __slots__ = ("characteristics",)
    CHARACTERISTICS_FIELD_NUMBER: _ClassVar[int]
    characteristics: _containers.RepeatedCompositeFieldContainer[Characteristic]
    def __init__(self, characteristics: _Optional[_Iterable[_Union[Characteristic, _Mapping]]] = ...) -> None: ...

class SetCharacteristicsRequest(_message.Message):
    __slots__ = ("set", "clear")
    SET_FIELD_NUMBER: _ClassVar[int]
    CLEAR_FIELD_NUMBER: _ClassVar[int]
    set: _containers.RepeatedCompositeFieldContainer[Characteristic]
    clear: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, set: _Optional[_Iterable[_Union[Characteristic, _Mapping]]] = ..., clear: _Optional[_Iterable[str]] = ...) -> None: ...

class ActivityGoals(_message.Message):
    __slots__ = ("active_energy_burned", "apple_move_time", "apple_exercise_time", "apple_stand_hours")
    FROM_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_ENERGY_BURNED_FIELD_NUMBER: _ClassVar[int]
    APPLE_MOVE_TIME_FIELD_NUMBER: _ClassVar[int]
    APPLE_EXERCISE_TIME_FIELD_NUMBER: _ClassVar[int]
    APPLE_STAND_HOURS_FIELD_NUMBER: _ClassVar[int]
    active_energy_burned: float
    apple_move_time: float
    apple_exercise_time: float
    apple_stand_hours: float
    def __init__(self, active_energy_burned: _Optional[float] = ..., apple_move_time: _Optional[float] = ..., apple_exercise_time: _Optional[float] = ..., apple_stand_hours: _Optional[float] = ..., **kwargs) -> None: ...

class ActivitySettingsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ActivitySettings(_message.Message):
    __slots__ = ("goals", "default_goals", "time_zone")
    GOALS_FIELD_NUMBER: _ClassVar[int]
    DEFAULT_GOALS_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    goals: _containers.RepeatedCompositeFieldContainer[ActivityGoals]
    default_goals: ActivityGoals
    time_zone: str
    def __init__(self, goals: _Optional[_Iterable[_Union[ActivityGoals, _Mapping]]] = ..., default_goals: _Optional[_Union[ActivityGoals, _Mapping]] = ..., time_zone: _Optional[str] = ...) -> None: ...

class SetActivitySettingsRequest(_message.Message):
    __slots__ = ("goals", "time_zone")
    GOALS_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    goals: ActivityGoals
    time_zone: str
    def __init__(self, goals: _Optional[_Union[ActivityGoals, _Mapping]] = ..., time_zone: _Optional[str] = ...) -> None: ...

class ActivitySummary(_message.Message):
    __slots__ = ("date", "activity_move_mode", "wheelchair_use", "active_energy_burned", "active_energy_burned_goal", "apple_move_time", "apple_move_time_goal", "apple_exercise_time", "apple_exercise_time_goal", "apple_stand_hours", "apple_stand_hours_goal", "time_zone", "start_date", "end_date")
    DATE_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_MOVE_MODE_FIELD_NUMBER: _ClassVar[int]
    WHEELCHAIR_USE_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_ENERGY_BURNED_FIELD_NUMBER: _ClassVar[int]
    ACTIVE_ENERGY_BURNED_GOAL_FIELD_NUMBER: _ClassVar[int]
    APPLE_MOVE_TIME_FIELD_NUMBER: _ClassVar[int]
    APPLE_MOVE_TIME_GOAL_FIELD_NUMBER: _ClassVar[int]
    APPLE_EXERCISE_TIME_FIELD_NUMBER: _ClassVar[int]
    APPLE_EXERCISE_TIME_GOAL_FIELD_NUMBER: _ClassVar[int]
    APPLE_STAND_HOURS_FIELD_NUMBER: _ClassVar[int]
    APPLE_STAND_HOURS_GOAL_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    START_DATE_FIELD_NUMBER: _ClassVar[int]
    END_DATE_FIELD_NUMBER: _ClassVar[int]
    date: CalendarDate
    activity_move_mode: int
    wheelchair_use: bool
    active_energy_burned: float
    active_energy_burned_goal: float
    apple_move_time: float
    apple_move_time_goal: float
    apple_exercise_time: float
    apple_exercise_time_goal: float
    apple_stand_hours: int
    apple_stand_hours_goal: float
    time_zone: str
    start_date: int
    end_date: int
    def __init__(self, date: _Optional[_Union[CalendarDate, _Mapping]] = ..., activity_move_mode: _Optional[int] = ..., wheelchair_use: _Optional[bool] = ..., active_energy_burned: _Optional[float] = ..., active_energy_burned_goal: _Optional[float] = ..., apple_move_time: _Optional[float] = ..., apple_move_time_goal: _Optional[float] = ..., apple_exercise_time: _Optional[float] = ..., apple_exercise_time_goal: _Optional[float] = ..., apple_stand_hours: _Optional[int] = ..., apple_stand_hours_goal: _Optional[float] = ..., time_zone: _Optional[str] = ..., start_date: _Optional[int] = ..., end_date: _Optional[int] = ...) -> None: ...

class ActivitySummaryRequest(_message.Message):
    __slots__ = ("first_day", "last_day", "time_zone", "live")
    FIRST_DAY_FIELD_NUMBER: _ClassVar[int]
    LAST_DAY_FIELD_NUMBER: _ClassVar[int]
    TIME_ZONE_FIELD_NUMBER: _ClassVar[int]
    LIVE_FIELD_NUMBER: _ClassVar[int]
    first_day: CalendarDate
    last_day: CalendarDate
    time_zone: str
    live: bool
    def __init__(self, first_day: _Optional[_Union[CalendarDate, _Mapping]] = ..., last_day: _Optional[_Union[CalendarDate, _Mapping]] = ..., time_zone: _Optional[str] = ..., live: _Optional[bool] = ...) -> None: ...

class ActivitySummaryBatch(_message.Message):
    __slots__ = ("summaries", "initial_results_complete")
    SUMMARIES_FIELD_NUMBER: _ClassVar[int]
    INITIAL_RESULTS_COMPLETE_FIELD_NUMBER: _ClassVar[int]
    summaries: _containers.RepeatedCompositeFieldContainer[ActivitySummary]
    initial_results_complete: bool
    def __init__(self, summaries: _Optional[_Iterable[_Union[ActivitySummary, _Mapping]]] = ..., initial_results_complete: _Optional[bool] = ...) -> None: ...
