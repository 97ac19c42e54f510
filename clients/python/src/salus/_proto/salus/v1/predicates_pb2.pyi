from salus._proto.salus.v1 import samples_pb2 as _samples_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ComparisonOperator(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    COMPARISON_OPERATOR_UNSPECIFIED: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_LESS_THAN: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_LESS_THAN_OR_EQUAL: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_EQUAL: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_GREATER_THAN_OR_EQUAL: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_GREATER_THAN: _ClassVar[ComparisonOperator]
    COMPARISON_OPERATOR_NOT_EQUAL: _ClassVar[ComparisonOperator]

class DeviceProperty(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DEVICE_PROPERTY_UNSPECIFIED: _ClassVar[DeviceProperty]
    DEVICE_PROPERTY_NAME: _ClassVar[DeviceProperty]
    DEVICE_PROPERTY_MANUFACTURER: _ClassVar[DeviceProperty]
    DEVICE_PROPERTY_MODEL: _ClassVar[DeviceProperty]
    DEVICE_PROPERTY_HARDWARE_VERSION: _ClassVar[DeviceProperty]
    DEVICE_PROPERTY_FIRMWARE_VERSION: _ClassVar[DeviceProperty]
    DEVICE_PROPERTY_SOFTWARE_VERSION: _ClassVar[DeviceProperty]
    DEVICE_PROPERTY_LOCAL_IDENTIFIER: _ClassVar[DeviceProperty]
    DEVICE_PROPERTY_UDI_DEVICE_IDENTIFIER: _ClassVar[DeviceProperty]

class WorkoutStatistic(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    WORKOUT_STATISTIC_UNSPECIFIED: _ClassVar[WorkoutStatistic]
    WORKOUT_STATISTIC_SUM: _ClassVar[WorkoutStatistic]
    WORKOUT_STATISTIC_AVERAGE: _ClassVar[WorkoutStatistic]
    WORKOUT_STATISTIC_MINIMUM: _ClassVar[WorkoutStatistic]
    WORKOUT_STATISTIC_MAXIMUM: _ClassVar[WorkoutStatistic]
COMPARISON_OPERATOR_UNSPECIFIED: ComparisonOperator
COMPARISON_OPERATOR_LESS_THAN: ComparisonOperator
COMPARISON_OPERATOR_LESS_THAN_OR_EQUAL: ComparisonOperator
COMPARISON_OPERATOR_EQUAL: ComparisonOperator
COMPARISON_OPERATOR_GREATER_THAN_OR_EQUAL: ComparisonOperator
COMPARISON_OPERATOR_GREATER_THAN: ComparisonOperator
COMPARISON_OPERATOR_NOT_EQUAL: ComparisonOperator
DEVICE_PROPERTY_UNSPECIFIED: DeviceProperty
DEVICE_PROPERTY_NAME: DeviceProperty
DEVICE_PROPERTY_MANUFACTURER: DeviceProperty
DEVICE_PROPERTY_MODEL: DeviceProperty
DEVICE_PROPERTY_HARDWARE_VERSION: DeviceProperty
DEVICE_PROPERTY_FIRMWARE_VERSION: DeviceProperty
DEVICE_PROPERTY_SOFTWARE_VERSION: DeviceProperty
DEVICE_PROPERTY_LOCAL_IDENTIFIER: DeviceProperty
DEVICE_PROPERTY_UDI_DEVICE_IDENTIFIER: DeviceProperty
WORKOUT_STATISTIC_UNSPECIFIED: WorkoutStatistic
WORKOUT_STATISTIC_SUM: WorkoutStatistic
WORKOUT_STATISTIC_AVERAGE: WorkoutStatistic
WORKOUT_STATISTIC_MINIMUM: WorkoutStatistic
WORKOUT_STATISTIC_MAXIMUM: WorkoutStatistic

class Predicate(_message.Message):
    __slots__ = ("date_window", "sources", "source_revisions", "devices", "device_property", "uuids", "metadata", "quantity", "category_values", "workout", "prescription", "medication_concepts")
    AND_FIELD_NUMBER: _ClassVar[int]
    OR_FIELD_NUMBER: _ClassVar[int]
    NOT_FIELD_NUMBER: _ClassVar[int]
    DATE_WINDOW_FIELD_NUMBER: _ClassVar[int]
    SOURCES_FIELD_NUMBER: _ClassVar[int]
    SOURCE_REVISIONS_FIELD_NUMBER: _ClassVar[int]
    DEVICES_FIELD_NUMBER: _ClassVar[int]
    DEVICE_PROPERTY_FIELD_NUMBER: _ClassVar[int]
    UUIDS_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_VALUES_FIELD_NUMBER: _ClassVar[int]
    WORKOUT_FIELD_NUMBER: _ClassVar[int]
    PRESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    MEDICATION_CONCEPTS_FIELD_NUMBER: _ClassVar[int]
    date_window: DateWindow
    sources: SourcesPredicate
    source_revisions: SourceRevisionsPredicate
    devices: DevicesPredicate
    device_property: DevicePropertyPredicate
    uuids: UUIDsPredicate
    metadata: MetadataPredicate
    quantity: QuantityPredicate
    category_values: CategoryValuesPredicate
    workout: WorkoutPredicate
    prescription: PrescriptionPredicate
    medication_concepts: MedicationConceptsPredicate
    def __init__(self, date_window: _Optional[_Union[DateWindow, _Mapping]] = ..., sources: _Optional[_Union[SourcesPredicate, _Mapping]] = ..., source_revisions: _Optional[_Union[SourceRevisionsPredicate, _Mapping]] = ..., devices: _Optional[_Union[DevicesPredicate, _Mapping]] = ..., device_property: _Optional[_Union[DevicePropertyPredicate, _Mapping]] = ..., uuids: _Optional[_Union[UUIDsPredicate, _Mapping]] = ..., metadata: _Optional[_Union[MetadataPredicate, _Mapping]] = ..., quantity: _Optional[_Union[QuantityPredicate, _Mapping]] = ..., category_values: _Optional[_Union[CategoryValuesPredicate, _Mapping]] = ..., workout: _Optional[_Union[WorkoutPredicate, _Mapping]] = ..., prescription: _Optional[_Union[PrescriptionPredicate, _Mapping]] = ..., medication_concepts: _Optional[_Union[MedicationConceptsPredicate, _Mapping]] = ..., **kwargs) -> None: ...

class MedicationConceptsPredicate(_message.Message):
    __slots__ = ("identifiers",)
    IDENTIFIERS_FIELD_NUMBER: _ClassVar[int]
    identifiers: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, identifiers: _Optional[_Iterable[str]] = ...) -> None: ...

class PredicateList(_message.Message):
    __slots__ = ("predicates",)
    PREDICATES_FIELD_NUMBER: _ClassVar[int]
    predicates: _containers.RepeatedCompositeFieldContainer[Predicate]
    def __init__(self, predicates: _Optional[_Iterable[_Union[Predicate, _Mapping]]] = ...) -> None: ...

class DateWindow(_message.Message):
    __slots__ = ("start_date", "end_date", "strict_start_date", "strict_end_date")
    START_DATE_FIELD_NUMBER: _ClassVar[int]
    END_DATE_FIELD_NUMBER: _ClassVar[int]
    STRICT_START_DATE_FIELD_NUMBER: _ClassVar[int]
    STRICT_END_DATE_FIELD_NUMBER: _ClassVar[int]
    start_date: int
    end_date: int
    strict_start_date: bool
    strict_end_date: bool
    def __init__(self, start_date: _Optional[int] = ..., end_date: _Optional[int] = ..., strict_start_date: _Optional[bool] = ..., strict_end_date: _Optional[bool] = ...) -> None: ...

class SourcesPredicate(_message.Message):
    __slots__ = ("app_ids",)
    APP_IDS_FIELD_NUMBER: _ClassVar[int]
    app_ids: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, app_ids: _Optional[_Iterable[str]] = ...) -> None: ...

class SourceRevisionMatch(_message.Message):
    __slots__ = ("app_id", "version")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    version: str
    def __init__(self, app_id: _Optional[str] = ..., version: _Optional[str] = ...) -> None: ...

class SourceRevisionsPredicate(_message.Message):
    __slots__ = ("revisions",)
    REVISIONS_FIELD_NUMBER: _ClassVar[int]
    revisions: _containers.RepeatedCompositeFieldContainer[SourceRevisionMatch]
    def __init__(self, revisions: _Optional[_Iterable[_Union[SourceRevisionMatch, _Mapping]]] = ...) -> None: ...

class DevicesPredicate(_message.Message):
    __slots__ = ("devices",)
    DEVICES_FIELD_NUMBER: _ClassVar[int]
    devices: _containers.RepeatedCompositeFieldContainer[_samples_pb2.Device]
    def __init__(self, devices: _Optional[_Iterable[_Union[_samples_pb2.Device, _Mapping]]] = ...) -> None: ...

class DevicePropertyPredicate(_message.Message):
    __slots__ = ("property", "allowed_values")
    PROPERTY_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_VALUES_FIELD_NUMBER: _ClassVar[int]
    property: DeviceProperty
    allowed_values: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, property: _Optional[_Union[DeviceProperty, str]] = ..., allowed_values: _Optional[_Iterable[str]] = ...) -> None: ...

class UUIDsPredicate(_message.Message):
    __slots__ = ("uuids",)
    UUIDS_FIELD_NUMBER: _ClassVar[int]
    uuids: _containers.RepeatedScalarFieldContainer[bytes]
    def __init__(self, uuids: _Optional[_Iterable[bytes]] = ...) -> None: ...

class MetadataPredicate(_message.Message):
    __slots__ = ("key", "exists", "allowed_values", "comparison")
    KEY_FIELD_NUMBER: _ClassVar[int]
    EXISTS_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_VALUES_FIELD_NUMBER: _ClassVar[int]
    COMPARISON_FIELD_NUMBER: _ClassVar[int]
    key: str
    exists: bool
    allowed_values: MetadataValues
    comparison: MetadataComparison
    def __init__(self, key: _Optional[str] = ..., exists: _Optional[bool] = ..., allowed_values: _Optional[_Union[MetadataValues, _Mapping]] = ..., comparison: _Optional[_Union[MetadataComparison, _Mapping]] = ...) -> None: ...

class MetadataValues(_message.Message):
    __slots__ = ("values",)
    VALUES_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedCompositeFieldContainer[_samples_pb2.MetadataValue]
    def __init__(self, values: _Optional[_Iterable[_Union[_samples_pb2.MetadataValue, _Mapping]]] = ...) -> None: ...

class MetadataComparison(_message.Message):
    __slots__ = ("operator", "value")
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    VALUE_FIELD_NUMBER: _ClassVar[int]
    operator: ComparisonOperator
    value: _samples_pb2.MetadataValue
    def __init__(self, operator: _Optional[_Union[ComparisonOperator, str]] = ..., value: _Optional[_Union[_samples_pb2.MetadataValue, _Mapping]] = ...) -> None: ...

class QuantityPredicate(_message.Message):
    __slots__ = ("operator", "quantity")
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    operator: ComparisonOperator
    quantity: _samples_pb2.Quantity
    def __init__(self, operator: _Optional[_Union[ComparisonOperator, str]] = ..., quantity: _Optional[_Union[_samples_pb2.Quantity, _Mapping]] = ...) -> None: ...

class CategoryValuesPredicate(_message.Message):
    __slots__ = ("values", "value_groups")
    VALUES_FIELD_NUMBER: _ClassVar[int]
    VALUE_GROUPS_FIELD_NUMBER: _ClassVar[int]
    values: _containers.RepeatedScalarFieldContainer[int]
    value_groups: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, values: _Optional[_Iterable[int]] = ..., value_groups: _Optional[_Iterable[str]] = ...) -> None: ...

class WorkoutPredicate(_message.Message):
    __slots__ = ("activity_type", "duration", "statistic", "activity")
    ACTIVITY_TYPE_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    STATISTIC_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_FIELD_NUMBER: _ClassVar[int]
    activity_type: int
    duration: DurationComparison
    statistic: WorkoutStatisticComparison
    activity: WorkoutActivityPredicate
    def __init__(self, activity_type: _Optional[int] = ..., duration: _Optional[_Union[DurationComparison, _Mapping]] = ..., statistic: _Optional[_Union[WorkoutStatisticComparison, _Mapping]] = ..., activity: _Optional[_Union[WorkoutActivityPredicate, _Mapping]] = ...) -> None: ...

class WorkoutActivityPredicate(_message.Message):
    __slots__ = ("activity_type", "duration", "statistic")
    ACTIVITY_TYPE_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    STATISTIC_FIELD_NUMBER: _ClassVar[int]
    activity_type: int
    duration: DurationComparison
    statistic: WorkoutStatisticComparison
    def __init__(self, activity_type: _Optional[int] = ..., duration: _Optional[_Union[DurationComparison, _Mapping]] = ..., statistic: _Optional[_Union[WorkoutStatisticComparison, _Mapping]] = ...) -> None: ...

class DurationComparison(_message.Message):
    __slots__ = ("operator", "seconds")
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    SECONDS_FIELD_NUMBER: _ClassVar[int]
    operator: ComparisonOperator
    seconds: float
    def __init__(self, operator: _Optional[_Union[ComparisonOperator, str]] = ..., seconds: _Optional[float] = ...) -> None: ...

class WorkoutStatisticComparison(_message.Message):
    __slots__ = ("quantity_type", "statistic", "operator", "quantity")
    QUANTITY_TYPE_FIELD_NUMBER: _ClassVar[int]
    STATISTIC_FIELD_NUMBER: _ClassVar[int]
    OPERATOR_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    quantity_type: str
    statistic: WorkoutStatistic
    operator: ComparisonOperator
    quantity: _samples_pb2.Quantity
    def __init__(self, quantity_type: _Optional[str] = ..., statistic: _Optional[_Union[WorkoutStatistic, str]] = ..., operator: _Optional[_Union[ComparisonOperator, str]] = ..., quantity: _Optional[_Union[_samples_pb2.Quantity, _Mapping]] = ...) -> None: ...

class PrescriptionPredicate(_message.Message):
    __slots__ = ("prescription_type", "date_issued", "expiration_date", "valid_at")
    PRESCRIPTION_TYPE_FIELD_NUMBER: _ClassVar[int]
    DATE_ISSUED_FIELD_NUMBER: _ClassVar[int]
    EXPIRATION_DATE_FIELD_NUMBER: _ClassVar[int]
    VALID_AT_FIELD_NUMBER: _ClassVar[int]
    prescription_type: int
    date_issued: PrescriptionDateRange
    expiration_date: PrescriptionDateRange
    valid_at: int
    def __init__(self, prescription_type: _Optional[int] = ..., date_issued: _Optional[_Union[PrescriptionDateRange, _Mapping]] = ..., expiration_date: _Optional[_Union[PrescriptionDateRange, _Mapping]] = ..., valid_at: _Optional[int] = ...) -> None: ...

class PrescriptionDateRange(_message.Message):
    __slots__ = ("start_date", "end_date")
    START_DATE_FIELD_NUMBER: _ClassVar[int]
    END_DATE_FIELD_NUMBER: _ClassVar[int]
    start_date: int
    end_date: int
    def __init__(self, start_date: _Optional[int] = ..., end_date: _Optional[int] = ...) -> None: ...
