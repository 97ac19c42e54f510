from google.protobuf.internal import containers as _containers
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ImportChunk(_message.Message):
    __slots__ = ("options", "data", "path", "end_of_file")
    OPTIONS_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    PATH_FIELD_NUMBER: _ClassVar[int]
    END_OF_FILE_FIELD_NUMBER: _ClassVar[int]
    options: ImportOptions
    data: bytes
    path: str
    end_of_file: bool
    def __init__(self, options: _Optional[_Union[ImportOptions, _Mapping]] = ..., data: _Optional[bytes] = ..., path: _Optional[str] = ..., end_of_file: _Optional[bool] = ...) -> None: ...

class ImportOptions(_message.Message):
    __slots__ = ("characteristics", "dry_run", "export_bytes", "side_files", "keep_duplicates")
    CHARACTERISTICS_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    EXPORT_BYTES_FIELD_NUMBER: _ClassVar[int]
    SIDE_FILES_FIELD_NUMBER: _ClassVar[int]
    KEEP_DUPLICATES_FIELD_NUMBER: _ClassVar[int]
    characteristics: bool
    dry_run: bool
    export_bytes: int
    side_files: int
    keep_duplicates: bool
    def __init__(self, characteristics: _Optional[bool] = ..., dry_run: _Optional[bool] = ..., export_bytes: _Optional[int] = ..., side_files: _Optional[int] = ..., keep_duplicates: _Optional[bool] = ...) -> None: ...

class ImportProgress(_message.Message):
    __slots__ = ("bytes_processed", "bytes_total", "records_processed", "records_total", "export_read", "side_files_processed", "side_files_total", "saved", "kept_existing", "skipped", "elapsed_seconds", "done")
    BYTES_PROCESSED_FIELD_NUMBER: _ClassVar[int]
    BYTES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    RECORDS_PROCESSED_FIELD_NUMBER: _ClassVar[int]
    RECORDS_TOTAL_FIELD_NUMBER: _ClassVar[int]
    EXPORT_READ_FIELD_NUMBER: _ClassVar[int]
    SIDE_FILES_PROCESSED_FIELD_NUMBER: _ClassVar[int]
    SIDE_FILES_TOTAL_FIELD_NUMBER: _ClassVar[int]
    SAVED_FIELD_NUMBER: _ClassVar[int]
    KEPT_EXISTING_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    ELAPSED_SECONDS_FIELD_NUMBER: _ClassVar[int]
    DONE_FIELD_NUMBER: _ClassVar[int]
    bytes_processed: int
    bytes_total: int
    records_processed: int
    records_total: int
    export_read: bool
    side_files_processed: int
    side_files_total: int
    saved: int
    kept_existing: int
    skipped: int
    elapsed_seconds: float
    done: bool
    def __init__(self, bytes_processed: _Optional[int] = ..., bytes_total: _Optional[int] = ..., records_processed: _Optional[int] = ..., records_total: _Optional[int] = ..., export_read: _Optional[bool] = ..., side_files_processed: _Optional[int] = ..., side_files_total: _Optional[int] = ..., saved: _Optional[int] = ..., kept_existing: _Optional[int] = ..., skipped: _Optional[int] = ..., elapsed_seconds: _Optional[float] = ..., done: _Optional[bool] = ...) -> None: ...

class ImportEvent(_message.Message):
    __slots__ = ("progress", "report")
    PROGRESS_FIELD_NUMBER: _ClassVar[int]
    REPORT_FIELD_NUMBER: _ClassVar[int]
    progress: ImportProgress
    report: ImportReport
    def __init__(self, progress: _Optional[_Union[ImportProgress, _Mapping]] = ..., report: _Optional[_Union[ImportReport, _Mapping]] = ...) -> None: ...

class ImportProblem(_message.Message):
    __slots__ = ("line", "element", "field", "value", "expected", "file", "offset")
    LINE_FIELD_NUMBER: _ClassVar[int]
    ELEMENT_FIELD_NUMBER: _ClassVar[int]
    FIELD_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_FIELD_NUMBER: _ClassVar[int]
    FILE_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    line: int
    element: str
    field: str
    value: str
    expected: str
    file: str
    offset: int
    def __init__(self, line: _Optional[int] = ..., element: _Optional[str] = ..., field: _Optional[str] = ..., value: _Optional[str] = ..., expected: _Optional[str] = ..., file: _Optional[str] = ..., offset: _Optional[int] = ...) -> None: ...

class ImportedFile(_message.Message):
    __slots__ = ("path", "format", "workouts", "saved", "kept_existing", "stopped", "stopped_at", "stop_reason", "not_imported", "source")
    PATH_FIELD_NUMBER: _ClassVar[int]
    FORMAT_FIELD_NUMBER: _ClassVar[int]
    WORKOUTS_FIELD_NUMBER: _ClassVar[int]
    SAVED_FIELD_NUMBER: _ClassVar[int]
    KEPT_EXISTING_FIELD_NUMBER: _ClassVar[int]
    STOPPED_FIELD_NUMBER: _ClassVar[int]
    STOPPED_AT_FIELD_NUMBER: _ClassVar[int]
    STOP_REASON_FIELD_NUMBER: _ClassVar[int]
    NOT_IMPORTED_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    path: str
    format: str
    workouts: _containers.RepeatedCompositeFieldContainer[ImportedWorkout]
    saved: int
    kept_existing: int
    stopped: bool
    stopped_at: int
    stop_reason: str
    not_imported: str
    source: str
    def __init__(self, path: _Optional[str] = ..., format: _Optional[str] = ..., workouts: _Optional[_Iterable[_Union[ImportedWorkout, _Mapping]]] = ..., saved: _Optional[int] = ..., kept_existing: _Optional[int] = ..., stopped: _Optional[bool] = ..., stopped_at: _Optional[int] = ..., stop_reason: _Optional[str] = ..., not_imported: _Optional[str] = ..., source: _Optional[str] = ...) -> None: ...

class ImportedWorkout(_message.Message):
    __slots__ = ("uuid", "activity_type", "start_date", "end_date", "distance", "route_locations", "legs", "kept_existing", "alternate_of", "statistics", "source", "alternate_uuid")
    class StatisticsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    UUID_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_TYPE_FIELD_NUMBER: _ClassVar[int]
    START_DATE_FIELD_NUMBER: _ClassVar[int]
    END_DATE_FIELD_NUMBER: _ClassVar[int]
    DISTANCE_FIELD_NUMBER: _ClassVar[int]
    ROUTE_LOCATIONS_FIELD_NUMBER: _ClassVar[int]
    LEGS_FIELD_NUMBER: _ClassVar[int]
    KEPT_EXISTING_FIELD_NUMBER: _ClassVar[int]
    ALTERNATE_OF_FIELD_NUMBER: _ClassVar[int]
    STATISTICS_FIELD_NUMBER: _ClassVar[int]
    SOURCE_FIELD_NUMBER: _ClassVar[int]
    ALTERNATE_UUID_FIELD_NUMBER: _ClassVar[int]
    uuid: str
    activity_type: int
    start_date: int
    end_date: int
    distance: float
    route_locations: int
    legs: _containers.RepeatedScalarFieldContainer[int]
    kept_existing: bool
    alternate_of: str
    statistics: _containers.ScalarMap[str, str]
    source: str
    alternate_uuid: str
    def __init__(self, uuid: _Optional[str] = ..., activity_type: _Optional[int] = ..., start_date: _Optional[int] = ..., end_date: _Optional[int] = ..., distance: _Optional[float] = ..., route_locations: _Optional[int] = ..., legs: _Optional[_Iterable[int]] = ..., kept_existing: _Optional[bool] = ..., alternate_of: _Optional[str] = ..., statistics: _Optional[_Mapping[str, str]] = ..., source: _Optional[str] = ..., alternate_uuid: _Optional[str] = ...) -> None: ...

class ImportReport(_message.Message):
    __slots__ = ("bytes_read", "elements", "saved", "kept_existing", "skipped", "problems", "not_imported", "sources", "characteristics_set", "dry_run", "goals_set", "files", "alternates")
    class ElementsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class NotImportedEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    class SourcesEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    BYTES_READ_FIELD_NUMBER: _ClassVar[int]
    ELEMENTS_FIELD_NUMBER: _ClassVar[int]
    SAVED_FIELD_NUMBER: _ClassVar[int]
    KEPT_EXISTING_FIELD_NUMBER: _ClassVar[int]
    SKIPPED_FIELD_NUMBER: _ClassVar[int]
    PROBLEMS_FIELD_NUMBER: _ClassVar[int]
    NOT_IMPORTED_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    CHARACTERISTICS_SET_FIELD_NUMBER: _ClassVar[int]
    DRY_RUN_FIELD_NUMBER: _ClassVar[int]
    GOALS_SET_FIELD_NUMBER: _ClassVar[int]
    FILES_FIELD_NUMBER: _ClassVar[int]
    ALTERNATES_FIELD_NUMBER: _ClassVar[int]
    bytes_read: int
    elements: _containers.ScalarMap[str, int]
    saved: int
    kept_existing: int
    skipped: int
    problems: _containers.RepeatedCompositeFieldContainer[ImportProblem]
    not_imported: _containers.ScalarMap[str, int]
    sources: _containers.ScalarMap[str, str]
    characteristics_set: _containers.RepeatedScalarFieldContainer[str]
    dry_run: bool
    goals_set: int
    files: _containers.RepeatedCompositeFieldContainer[ImportedFile]
    alternates: _containers.RepeatedCompositeFieldContainer[ImportedWorkout]
    def __init__(self, bytes_read: _Optional[int] = ..., elements: _Optional[_Mapping[str, int]] = ..., saved: _Optional[int] = ..., kept_existing: _Optional[int] = ..., skipped: _Optional[int] = ..., problems: _Optional[_Iterable[_Union[ImportProblem, _Mapping]]] = ..., not_imported: _Optional[_Mapping[str, int]] = ..., sources: _Optional[_Mapping[str, str]] = ..., characteristics_set: _Optional[_Iterable[str]] = ..., dry_run: _Optional[bool] = ..., goals_set: _Optional[int] = ..., files: _Optional[_Iterable[_Union[ImportedFile, _Mapping]]] = ..., alternates: _Optional[_Iterable[_Union[ImportedWorkout, _Mapping]]] = ...) -> None: ...
