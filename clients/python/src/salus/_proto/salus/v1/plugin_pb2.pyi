from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class ObjectKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    OBJECT_KIND_UNSPECIFIED: _ClassVar[ObjectKind]
    OBJECT_KIND_QUANTITY: _ClassVar[ObjectKind]
    OBJECT_KIND_CATEGORY: _ClassVar[ObjectKind]
    OBJECT_KIND_CHARACTERISTIC: _ClassVar[ObjectKind]
    OBJECT_KIND_WORKOUT: _ClassVar[ObjectKind]
    OBJECT_KIND_VISION_PRESCRIPTION: _ClassVar[ObjectKind]
    OBJECT_KIND_DOCUMENT: _ClassVar[ObjectKind]
    OBJECT_KIND_ELECTROCARDIOGRAM: _ClassVar[ObjectKind]
    OBJECT_KIND_AUDIOGRAM: _ClassVar[ObjectKind]
    OBJECT_KIND_HEARTBEAT_SERIES: _ClassVar[ObjectKind]
    OBJECT_KIND_STATE_OF_MIND: _ClassVar[ObjectKind]
    OBJECT_KIND_MEDICATION_DOSE_EVENT: _ClassVar[ObjectKind]
    OBJECT_KIND_SCORED_ASSESSMENT: _ClassVar[ObjectKind]
    OBJECT_KIND_ACTIVITY_SUMMARY: _ClassVar[ObjectKind]
    OBJECT_KIND_CLINICAL_RECORD: _ClassVar[ObjectKind]
    OBJECT_KIND_WORKOUT_ROUTE: _ClassVar[ObjectKind]
    OBJECT_KIND_USER_ANNOTATED_MEDICATION: _ClassVar[ObjectKind]
    OBJECT_KIND_CORRELATION: _ClassVar[ObjectKind]

class AggregationStyle(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    AGGREGATION_STYLE_UNSPECIFIED: _ClassVar[AggregationStyle]
    AGGREGATION_STYLE_CUMULATIVE: _ClassVar[AggregationStyle]
    AGGREGATION_STYLE_DISCRETE_ARITHMETIC: _ClassVar[AggregationStyle]
    AGGREGATION_STYLE_DISCRETE_TEMPORALLY_WEIGHTED: _ClassVar[AggregationStyle]
    AGGREGATION_STYLE_DISCRETE_EQUIVALENT_CONTINUOUS_LEVEL: _ClassVar[AggregationStyle]

class MetadataValueType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    METADATA_VALUE_TYPE_UNSPECIFIED: _ClassVar[MetadataValueType]
    METADATA_VALUE_TYPE_STRING: _ClassVar[MetadataValueType]
    METADATA_VALUE_TYPE_NUMBER: _ClassVar[MetadataValueType]
    METADATA_VALUE_TYPE_BOOL: _ClassVar[MetadataValueType]
    METADATA_VALUE_TYPE_DATE: _ClassVar[MetadataValueType]
    METADATA_VALUE_TYPE_QUANTITY: _ClassVar[MetadataValueType]

class CharacteristicValueType(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    CHARACTERISTIC_VALUE_TYPE_UNSPECIFIED: _ClassVar[CharacteristicValueType]
    CHARACTERISTIC_VALUE_TYPE_ENUMERATION: _ClassVar[CharacteristicValueType]
    CHARACTERISTIC_VALUE_TYPE_DATE: _ClassVar[CharacteristicValueType]
OBJECT_KIND_UNSPECIFIED: ObjectKind
OBJECT_KIND_QUANTITY: ObjectKind
OBJECT_KIND_CATEGORY: ObjectKind
OBJECT_KIND_CHARACTERISTIC: ObjectKind
OBJECT_KIND_WORKOUT: ObjectKind
OBJECT_KIND_VISION_PRESCRIPTION: ObjectKind
OBJECT_KIND_DOCUMENT: ObjectKind
OBJECT_KIND_ELECTROCARDIOGRAM: ObjectKind
OBJECT_KIND_AUDIOGRAM: ObjectKind
OBJECT_KIND_HEARTBEAT_SERIES: ObjectKind
OBJECT_KIND_STATE_OF_MIND: ObjectKind
OBJECT_KIND_MEDICATION_DOSE_EVENT: ObjectKind
OBJECT_KIND_SCORED_ASSESSMENT: ObjectKind
OBJECT_KIND_ACTIVITY_SUMMARY: ObjectKind
OBJECT_KIND_CLINICAL_RECORD: ObjectKind
OBJECT_KIND_WORKOUT_ROUTE: ObjectKind
OBJECT_KIND_USER_ANNOTATED_MEDICATION: ObjectKind
OBJECT_KIND_CORRELATION: ObjectKind
AGGREGATION_STYLE_UNSPECIFIED: AggregationStyle
AGGREGATION_STYLE_CUMULATIVE: AggregationStyle
AGGREGATION_STYLE_DISCRETE_ARITHMETIC: AggregationStyle
AGGREGATION_STYLE_DISCRETE_TEMPORALLY_WEIGHTED: AggregationStyle
AGGREGATION_STYLE_DISCRETE_EQUIVALENT_CONTINUOUS_LEVEL: AggregationStyle
METADATA_VALUE_TYPE_UNSPECIFIED: MetadataValueType
METADATA_VALUE_TYPE_STRING: MetadataValueType
METADATA_VALUE_TYPE_NUMBER: MetadataValueType
METADATA_VALUE_TYPE_BOOL: MetadataValueType
METADATA_VALUE_TYPE_DATE: MetadataValueType
METADATA_VALUE_TYPE_QUANTITY: MetadataValueType
CHARACTERISTIC_VALUE_TYPE_UNSPECIFIED: CharacteristicValueType
CHARACTERISTIC_VALUE_TYPE_ENUMERATION: CharacteristicValueType
CHARACTERISTIC_VALUE_TYPE_DATE: CharacteristicValueType

class PluginManifest(_message.Message):
    __slots__ = ("id", "name", "version", "types", "workout_activity_types", "characteristic_types", "metadata_keys", "validated_types")
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    TYPES_FIELD_NUMBER: _ClassVar[int]
    WORKOUT_ACTIVITY_TYPES_FIELD_NUMBER: _ClassVar[int]
    CHARACTERISTIC_TYPES_FIELD_NUMBER: _ClassVar[int]
    METADATA_KEYS_FIELD_NUMBER: _ClassVar[int]
    VALIDATED_TYPES_FIELD_NUMBER: _ClassVar[int]
    id: str
    name: str
    version: str
    types: _containers.RepeatedCompositeFieldContainer[TypeDefinition]
    workout_activity_types: _containers.RepeatedCompositeFieldContainer[WorkoutActivityType]
    characteristic_types: _containers.RepeatedCompositeFieldContainer[TypeDefinition]
    metadata_keys: _containers.RepeatedCompositeFieldContainer[MetadataKeyDefinition]
    validated_types: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, id: _Optional[str] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., types: _Optional[_Iterable[_Union[TypeDefinition, _Mapping]]] = ..., workout_activity_types: _Optional[_Iterable[_Union[WorkoutActivityType, _Mapping]]] = ..., characteristic_types: _Optional[_Iterable[_Union[TypeDefinition, _Mapping]]] = ..., metadata_keys: _Optional[_Iterable[_Union[MetadataKeyDefinition, _Mapping]]] = ..., validated_types: _Optional[_Iterable[str]] = ...) -> None: ...

class EnumerationCase(_message.Message):
    __slots__ = ("name", "raw_value")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RAW_VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    raw_value: int
    def __init__(self, name: _Optional[str] = ..., raw_value: _Optional[int] = ...) -> None: ...

class ValueGroup(_message.Message):
    __slots__ = ("name", "raw_values")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RAW_VALUES_FIELD_NUMBER: _ClassVar[int]
    name: str
    raw_values: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, name: _Optional[str] = ..., raw_values: _Optional[_Iterable[int]] = ...) -> None: ...

class ValueBounds(_message.Message):
    __slots__ = ("min", "min_inclusive", "max", "max_inclusive")
    MIN_FIELD_NUMBER: _ClassVar[int]
    MIN_INCLUSIVE_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    MAX_INCLUSIVE_FIELD_NUMBER: _ClassVar[int]
    min: float
    min_inclusive: bool
    max: float
    max_inclusive: bool
    def __init__(self, min: _Optional[float] = ..., min_inclusive: _Optional[bool] = ..., max: _Optional[float] = ..., max_inclusive: _Optional[bool] = ...) -> None: ...

class TypeMetadataKey(_message.Message):
    __slots__ = ("key", "value_type")
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_TYPE_FIELD_NUMBER: _ClassVar[int]
    key: str
    value_type: MetadataValueType
    def __init__(self, key: _Optional[str] = ..., value_type: _Optional[_Union[MetadataValueType, str]] = ...) -> None: ...

class TypeDefinition(_message.Message):
    __slots__ = ("identifier", "kind", "canonical_unit", "aggregation_style", "cases", "deprecated_aliases", "value_groups", "bounds", "required_metadata_keys", "optional_metadata_keys", "read_only_for_apps", "per_object_read_authorization", "allowed_attachment_content_types", "display_name", "characteristic_value_type", "area")
    IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    CANONICAL_UNIT_FIELD_NUMBER: _ClassVar[int]
    AGGREGATION_STYLE_FIELD_NUMBER: _ClassVar[int]
    CASES_FIELD_NUMBER: _ClassVar[int]
    DEPRECATED_ALIASES_FIELD_NUMBER: _ClassVar[int]
    VALUE_GROUPS_FIELD_NUMBER: _ClassVar[int]
    BOUNDS_FIELD_NUMBER: _ClassVar[int]
    REQUIRED_METADATA_KEYS_FIELD_NUMBER: _ClassVar[int]
    OPTIONAL_METADATA_KEYS_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_FOR_APPS_FIELD_NUMBER: _ClassVar[int]
    PER_OBJECT_READ_AUTHORIZATION_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_ATTACHMENT_CONTENT_TYPES_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    CHARACTERISTIC_VALUE_TYPE_FIELD_NUMBER: _ClassVar[int]
    AREA_FIELD_NUMBER: _ClassVar[int]
    identifier: str
    kind: ObjectKind
    canonical_unit: str
    aggregation_style: AggregationStyle
    cases: _containers.RepeatedCompositeFieldContainer[EnumerationCase]
    deprecated_aliases: _containers.RepeatedCompositeFieldContainer[EnumerationCase]
    value_groups: _containers.RepeatedCompositeFieldContainer[ValueGroup]
    bounds: ValueBounds
    required_metadata_keys: _containers.RepeatedCompositeFieldContainer[TypeMetadataKey]
    optional_metadata_keys: _containers.RepeatedCompositeFieldContainer[TypeMetadataKey]
    read_only_for_apps: bool
    per_object_read_authorization: bool
    allowed_attachment_content_types: _containers.RepeatedScalarFieldContainer[str]
    display_name: str
    characteristic_value_type: CharacteristicValueType
    area: str
    def __init__(self, identifier: _Optional[str] = ..., kind: _Optional[_Union[ObjectKind, str]] = ..., canonical_unit: _Optional[str] = ..., aggregation_style: _Optional[_Union[AggregationStyle, str]] = ..., cases: _Optional[_Iterable[_Union[EnumerationCase, _Mapping]]] = ..., deprecated_aliases: _Optional[_Iterable[_Union[EnumerationCase, _Mapping]]] = ..., value_groups: _Optional[_Iterable[_Union[ValueGroup, _Mapping]]] = ..., bounds: _Optional[_Union[ValueBounds, _Mapping]] = ..., required_metadata_keys: _Optional[_Iterable[_Union[TypeMetadataKey, _Mapping]]] = ..., optional_metadata_keys: _Optional[_Iterable[_Union[TypeMetadataKey, _Mapping]]] = ..., read_only_for_apps: _Optional[bool] = ..., per_object_read_authorization: _Optional[bool] = ..., allowed_attachment_content_types: _Optional[_Iterable[str]] = ..., display_name: _Optional[str] = ..., characteristic_value_type: _Optional[_Union[CharacteristicValueType, str]] = ..., area: _Optional[str] = ...) -> None: ...

class WorkoutActivityType(_message.Message):
    __slots__ = ("name", "raw_value")
    NAME_FIELD_NUMBER: _ClassVar[int]
    RAW_VALUE_FIELD_NUMBER: _ClassVar[int]
    name: str
    raw_value: int
    def __init__(self, name: _Optional[str] = ..., raw_value: _Optional[int] = ...) -> None: ...

class MetadataKeyDefinition(_message.Message):
    __slots__ = ("key", "value_type", "allowed_values", "unit", "display_name", "read_only_for_apps")
    KEY_FIELD_NUMBER: _ClassVar[int]
    VALUE_TYPE_FIELD_NUMBER: _ClassVar[int]
    ALLOWED_VALUES_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    READ_ONLY_FOR_APPS_FIELD_NUMBER: _ClassVar[int]
    key: str
    value_type: MetadataValueType
    allowed_values: _containers.RepeatedCompositeFieldContainer[EnumerationCase]
    unit: str
    display_name: str
    read_only_for_apps: bool
    def __init__(self, key: _Optional[str] = ..., value_type: _Optional[_Union[MetadataValueType, str]] = ..., allowed_values: _Optional[_Iterable[_Union[EnumerationCase, _Mapping]]] = ..., unit: _Optional[str] = ..., display_name: _Optional[str] = ..., read_only_for_apps: _Optional[bool] = ...) -> None: ...

class SampleHeader(_message.Message):
    __slots__ = ("type", "start_date", "end_date", "quantity", "category", "metadata")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: SampleHeaderMetadataValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[SampleHeaderMetadataValue, _Mapping]] = ...) -> None: ...
    TYPE_FIELD_NUMBER: _ClassVar[int]
    START_DATE_FIELD_NUMBER: _ClassVar[int]
    END_DATE_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    type: str
    start_date: int
    end_date: int
    quantity: SampleHeaderQuantity
    category: SampleHeaderCategory
    metadata: _containers.MessageMap[str, SampleHeaderMetadataValue]
    def __init__(self, type: _Optional[str] = ..., start_date: _Optional[int] = ..., end_date: _Optional[int] = ..., quantity: _Optional[_Union[SampleHeaderQuantity, _Mapping]] = ..., category: _Optional[_Union[SampleHeaderCategory, _Mapping]] = ..., metadata: _Optional[_Mapping[str, SampleHeaderMetadataValue]] = ...) -> None: ...

class SampleHeaderQuantity(_message.Message):
    __slots__ = ("value", "unit")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    value: float
    unit: str
    def __init__(self, value: _Optional[float] = ..., unit: _Optional[str] = ...) -> None: ...

class SampleHeaderCategory(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: int
    def __init__(self, value: _Optional[int] = ...) -> None: ...

class SampleHeaderMetadataValue(_message.Message):
    __slots__ = ("string_value", "number_value", "bool_value", "date_value", "quantity_value")
    STRING_VALUE_FIELD_NUMBER: _ClassVar[int]
    NUMBER_VALUE_FIELD_NUMBER: _ClassVar[int]
    BOOL_VALUE_FIELD_NUMBER: _ClassVar[int]
    DATE_VALUE_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_VALUE_FIELD_NUMBER: _ClassVar[int]
    string_value: str
    number_value: float
    bool_value: bool
    date_value: int
    quantity_value: SampleHeaderQuantity
    def __init__(self, string_value: _Optional[str] = ..., number_value: _Optional[float] = ..., bool_value: _Optional[bool] = ..., date_value: _Optional[int] = ..., quantity_value: _Optional[_Union[SampleHeaderQuantity, _Mapping]] = ...) -> None: ...

class ListPluginsRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class LoadedPluginInfo(_message.Message):
    __slots__ = ("path", "id", "name", "version", "abi_major", "abi_minor", "bundled", "has_validator", "type_identifiers", "workout_activity_type_count", "metadata_key_count")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    ABI_MAJOR_FIELD_NUMBER: _ClassVar[int]
    ABI_MINOR_FIELD_NUMBER: _ClassVar[int]
    BUNDLED_FIELD_NUMBER: _ClassVar[int]
    HAS_VALIDATOR_FIELD_NUMBER: _ClassVar[int]
    TYPE_IDENTIFIERS_FIELD_NUMBER: _ClassVar[int]
    WORKOUT_ACTIVITY_TYPE_COUNT_FIELD_NUMBER: _ClassVar[int]
    METADATA_KEY_COUNT_FIELD_NUMBER: _ClassVar[int]
    path: str
    id: str
    name: str
    version: str
    abi_major: int
    abi_minor: int
    bundled: bool
    has_validator: bool
    type_identifiers: _containers.RepeatedScalarFieldContainer[str]
    workout_activity_type_count: int
    metadata_key_count: int
    def __init__(self, path: _Optional[str] = ..., id: _Optional[str] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., abi_major: _Optional[int] = ..., abi_minor: _Optional[int] = ..., bundled: _Optional[bool] = ..., has_validator: _Optional[bool] = ..., type_identifiers: _Optional[_Iterable[str]] = ..., workout_activity_type_count: _Optional[int] = ..., metadata_key_count: _Optional[int] = ...) -> None: ...

class RefusedPluginInfo(_message.Message):
    __slots__ = ("path", "id", "code", "reason")
    PATH_FIELD_NUMBER: _ClassVar[int]
    ID_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    path: str
    id: str
    code: str
    reason: str
    def __init__(self, path: _Optional[str] = ..., id: _Optional[str] = ..., code: _Optional[str] = ..., reason: _Optional[str] = ...) -> None: ...

class ListPluginsResponse(_message.Message):
    __slots__ = ("loaded", "refused", "directories")
    LOADED_FIELD_NUMBER: _ClassVar[int]
    REFUSED_FIELD_NUMBER: _ClassVar[int]
    DIRECTORIES_FIELD_NUMBER: _ClassVar[int]
    loaded: _containers.RepeatedCompositeFieldContainer[LoadedPluginInfo]
    refused: _containers.RepeatedCompositeFieldContainer[RefusedPluginInfo]
    directories: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, loaded: _Optional[_Iterable[_Union[LoadedPluginInfo, _Mapping]]] = ..., refused: _Optional[_Iterable[_Union[RefusedPluginInfo, _Mapping]]] = ..., directories: _Optional[_Iterable[str]] = ...) -> None: ...

class ListTypesRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class RegisteredTypeInfo(_message.Message):
    __slots__ = ("plugin_id", "definition")
    PLUGIN_ID_FIELD_NUMBER: _ClassVar[int]
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    plugin_id: str
    definition: TypeDefinition
    def __init__(self, plugin_id: _Optional[str] = ..., definition: _Optional[_Union[TypeDefinition, _Mapping]] = ...) -> None: ...

class RegisteredWorkoutActivityTypeInfo(_message.Message):
    __slots__ = ("plugin_id", "definition")
    PLUGIN_ID_FIELD_NUMBER: _ClassVar[int]
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    plugin_id: str
    definition: WorkoutActivityType
    def __init__(self, plugin_id: _Optional[str] = ..., definition: _Optional[_Union[WorkoutActivityType, _Mapping]] = ...) -> None: ...

class RegisteredMetadataKeyInfo(_message.Message):
    __slots__ = ("plugin_id", "definition")
    PLUGIN_ID_FIELD_NUMBER: _ClassVar[int]
    DEFINITION_FIELD_NUMBER: _ClassVar[int]
    plugin_id: str
    definition: MetadataKeyDefinition
    def __init__(self, plugin_id: _Optional[str] = ..., definition: _Optional[_Union[MetadataKeyDefinition, _Mapping]] = ...) -> None: ...

class ListTypesResponse(_message.Message):
    __slots__ = ("types", "workout_activity_types", "metadata_keys")
    TYPES_FIELD_NUMBER: _ClassVar[int]
    WORKOUT_ACTIVITY_TYPES_FIELD_NUMBER: _ClassVar[int]
    METADATA_KEYS_FIELD_NUMBER: _ClassVar[int]
    types: _containers.RepeatedCompositeFieldContainer[RegisteredTypeInfo]
    workout_activity_types: _containers.RepeatedCompositeFieldContainer[RegisteredWorkoutActivityTypeInfo]
    metadata_keys: _containers.RepeatedCompositeFieldContainer[RegisteredMetadataKeyInfo]
    def __init__(self, types: _Optional[_Iterable[_Union[RegisteredTypeInfo, _Mapping]]] = ..., workout_activity_types: _Optional[_Iterable[_Union[RegisteredWorkoutActivityTypeInfo, _Mapping]]] = ..., metadata_keys: _Optional[_Iterable[_Union[RegisteredMetadataKeyInfo, _Mapping]]] = ...) -> None: ...
