from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class AssessmentInstrument(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    ASSESSMENT_INSTRUMENT_UNSPECIFIED: _ClassVar[AssessmentInstrument]
    ASSESSMENT_INSTRUMENT_GAD7: _ClassVar[AssessmentInstrument]
    ASSESSMENT_INSTRUMENT_PHQ9: _ClassVar[AssessmentInstrument]
ASSESSMENT_INSTRUMENT_UNSPECIFIED: AssessmentInstrument
ASSESSMENT_INSTRUMENT_GAD7: AssessmentInstrument
ASSESSMENT_INSTRUMENT_PHQ9: AssessmentInstrument

class Quantity(_message.Message):
    __slots__ = ("value", "unit")
    VALUE_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    value: float
    unit: str
    def __init__(self, value: _Optional[float] = ..., unit: _Optional[str] = ...) -> None: ...

class MetadataValue(_message.Message):
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
    quantity_value: Quantity
    def __init__(self, string_value: _Optional[str] = ..., number_value: _Optional[float] = ..., bool_value: _Optional[bool] = ..., date_value: _Optional[int] = ..., quantity_value: _Optional[_Union[Quantity, _Mapping]] = ...) -> None: ...

class SourceRevision(_message.Message):
    __slots__ = ("app_id", "name", "version", "product_type", "os_version")
    APP_ID_FIELD_NUMBER: _ClassVar[int]
    NAME_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    PRODUCT_TYPE_FIELD_NUMBER: _ClassVar[int]
    OS_VERSION_FIELD_NUMBER: _ClassVar[int]
    app_id: str
    name: str
    version: str
    product_type: str
    os_version: str
    def __init__(self, app_id: _Optional[str] = ..., name: _Optional[str] = ..., version: _Optional[str] = ..., product_type: _Optional[str] = ..., os_version: _Optional[str] = ...) -> None: ...

class Device(_message.Message):
    __slots__ = ("name", "manufacturer", "model", "hardware_version", "firmware_version", "software_version", "local_identifier", "udi_device_identifier")
    NAME_FIELD_NUMBER: _ClassVar[int]
    MANUFACTURER_FIELD_NUMBER: _ClassVar[int]
    MODEL_FIELD_NUMBER: _ClassVar[int]
    HARDWARE_VERSION_FIELD_NUMBER: _ClassVar[int]
    FIRMWARE_VERSION_FIELD_NUMBER: _ClassVar[int]
    SOFTWARE_VERSION_FIELD_NUMBER: _ClassVar[int]
    LOCAL_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    UDI_DEVICE_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    name: str
    manufacturer: str
    model: str
    hardware_version: str
    firmware_version: str
    software_version: str
    local_identifier: str
    udi_device_identifier: str
    def __init__(self, name: _Optional[str] = ..., manufacturer: _Optional[str] = ..., model: _Optional[str] = ..., hardware_version: _Optional[str] = ..., firmware_version: _Optional[str] = ..., software_version: _Optional[str] = ..., local_identifier: _Optional[str] = ..., udi_device_identifier: _Optional[str] = ...) -> None: ...

class CategoryValue(_message.Message):
    __slots__ = ("value",)
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: int
    def __init__(self, value: _Optional[int] = ...) -> None: ...

class WorkoutEvent(_message.Message):
    __slots__ = ("type", "start_date", "end_date", "metadata")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: MetadataValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[MetadataValue, _Mapping]] = ...) -> None: ...
    TYPE_FIELD_NUMBER: _ClassVar[int]
    START_DATE_FIELD_NUMBER: _ClassVar[int]
    END_DATE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    type: int
    start_date: int
    end_date: int
    metadata: _containers.MessageMap[str, MetadataValue]
    def __init__(self, type: _Optional[int] = ..., start_date: _Optional[int] = ..., end_date: _Optional[int] = ..., metadata: _Optional[_Mapping[str, MetadataValue]] = ...) -> None: ...

class WorkoutActivity(_message.Message):
    __slots__ = ("uuid", "activity_type", "start_date", "end_date", "metadata", "statistics", "configuration", "duration", "all_statistics")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: MetadataValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[MetadataValue, _Mapping]] = ...) -> None: ...
    class StatisticsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: Quantity
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[Quantity, _Mapping]] = ...) -> None: ...
    class AllStatisticsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: WorkoutStatistics
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[WorkoutStatistics, _Mapping]] = ...) -> None: ...
    UUID_FIELD_NUMBER: _ClassVar[int]
    ACTIVITY_TYPE_FIELD_NUMBER: _ClassVar[int]
    START_DATE_FIELD_NUMBER: _ClassVar[int]
    END_DATE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    STATISTICS_FIELD_NUMBER: _ClassVar[int]
    CONFIGURATION_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    ALL_STATISTICS_FIELD_NUMBER: _ClassVar[int]
    uuid: bytes
    activity_type: int
    start_date: int
    end_date: int
    metadata: _containers.MessageMap[str, MetadataValue]
    statistics: _containers.MessageMap[str, Quantity]
    configuration: WorkoutConfiguration
    duration: float
    all_statistics: _containers.MessageMap[str, WorkoutStatistics]
    def __init__(self, uuid: _Optional[bytes] = ..., activity_type: _Optional[int] = ..., start_date: _Optional[int] = ..., end_date: _Optional[int] = ..., metadata: _Optional[_Mapping[str, MetadataValue]] = ..., statistics: _Optional[_Mapping[str, Quantity]] = ..., configuration: _Optional[_Union[WorkoutConfiguration, _Mapping]] = ..., duration: _Optional[float] = ..., all_statistics: _Optional[_Mapping[str, WorkoutStatistics]] = ...) -> None: ...

class WorkoutStatistics(_message.Message):
    __slots__ = ("sum", "average", "minimum", "maximum", "from_samples")
    SUM_FIELD_NUMBER: _ClassVar[int]
    AVERAGE_FIELD_NUMBER: _ClassVar[int]
    MINIMUM_FIELD_NUMBER: _ClassVar[int]
    MAXIMUM_FIELD_NUMBER: _ClassVar[int]
    FROM_SAMPLES_FIELD_NUMBER: _ClassVar[int]
    sum: Quantity
    average: Quantity
    minimum: Quantity
    maximum: Quantity
    from_samples: bool
    def __init__(self, sum: _Optional[_Union[Quantity, _Mapping]] = ..., average: _Optional[_Union[Quantity, _Mapping]] = ..., minimum: _Optional[_Union[Quantity, _Mapping]] = ..., maximum: _Optional[_Union[Quantity, _Mapping]] = ..., from_samples: _Optional[bool] = ...) -> None: ...

class WorkoutConfiguration(_message.Message):
    __slots__ = ("location_type", "swimming_location_type", "lap_length")
    LOCATION_TYPE_FIELD_NUMBER: _ClassVar[int]
    SWIMMING_LOCATION_TYPE_FIELD_NUMBER: _ClassVar[int]
    LAP_LENGTH_FIELD_NUMBER: _ClassVar[int]
    location_type: int
    swimming_location_type: int
    lap_length: Quantity
    def __init__(self, location_type: _Optional[int] = ..., swimming_location_type: _Optional[int] = ..., lap_length: _Optional[_Union[Quantity, _Mapping]] = ...) -> None: ...

class Workout(_message.Message):
    __slots__ = ("activity_type", "events", "activities", "statistics", "configuration", "duration", "all_statistics", "recorded_duration")
    class StatisticsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: Quantity
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[Quantity, _Mapping]] = ...) -> None: ...
    class AllStatisticsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: WorkoutStatistics
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[WorkoutStatistics, _Mapping]] = ...) -> None: ...
    ACTIVITY_TYPE_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    ACTIVITIES_FIELD_NUMBER: _ClassVar[int]
    STATISTICS_FIELD_NUMBER: _ClassVar[int]
    CONFIGURATION_FIELD_NUMBER: _ClassVar[int]
    DURATION_FIELD_NUMBER: _ClassVar[int]
    ALL_STATISTICS_FIELD_NUMBER: _ClassVar[int]
    RECORDED_DURATION_FIELD_NUMBER: _ClassVar[int]
    activity_type: int
    events: _containers.RepeatedCompositeFieldContainer[WorkoutEvent]
    activities: _containers.RepeatedCompositeFieldContainer[WorkoutActivity]
    statistics: _containers.MessageMap[str, Quantity]
    configuration: WorkoutConfiguration
    duration: float
    all_statistics: _containers.MessageMap[str, WorkoutStatistics]
    recorded_duration: float
    def __init__(self, activity_type: _Optional[int] = ..., events: _Optional[_Iterable[_Union[WorkoutEvent, _Mapping]]] = ..., activities: _Optional[_Iterable[_Union[WorkoutActivity, _Mapping]]] = ..., statistics: _Optional[_Mapping[str, Quantity]] = ..., configuration: _Optional[_Union[WorkoutConfiguration, _Mapping]] = ..., duration: _Optional[float] = ..., all_statistics: _Optional[_Mapping[str, WorkoutStatistics]] = ..., recorded_duration: _Optional[float] = ...) -> None: ...

class PrismValue(_message.Message):
    __slots__ = ("amount", "angle", "prism_base", "vertical_amount", "horizontal_amount", "vertical_base", "horizontal_base", "eye")
    AMOUNT_FIELD_NUMBER: _ClassVar[int]
    ANGLE_FIELD_NUMBER: _ClassVar[int]
    PRISM_BASE_FIELD_NUMBER: _ClassVar[int]
    VERTICAL_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    HORIZONTAL_AMOUNT_FIELD_NUMBER: _ClassVar[int]
    VERTICAL_BASE_FIELD_NUMBER: _ClassVar[int]
    HORIZONTAL_BASE_FIELD_NUMBER: _ClassVar[int]
    EYE_FIELD_NUMBER: _ClassVar[int]
    amount: float
    angle: float
    prism_base: int
    vertical_amount: float
    horizontal_amount: float
    vertical_base: int
    horizontal_base: int
    eye: int
    def __init__(self, amount: _Optional[float] = ..., angle: _Optional[float] = ..., prism_base: _Optional[int] = ..., vertical_amount: _Optional[float] = ..., horizontal_amount: _Optional[float] = ..., vertical_base: _Optional[int] = ..., horizontal_base: _Optional[int] = ..., eye: _Optional[int] = ...) -> None: ...

class LensSpecification(_message.Message):
    __slots__ = ("sphere", "cylinder", "axis", "add_power", "vertex_distance", "prism", "base_curve", "diameter", "far_pupillary_distance", "near_pupillary_distance")
    SPHERE_FIELD_NUMBER: _ClassVar[int]
    CYLINDER_FIELD_NUMBER: _ClassVar[int]
    AXIS_FIELD_NUMBER: _ClassVar[int]
    ADD_POWER_FIELD_NUMBER: _ClassVar[int]
    VERTEX_DISTANCE_FIELD_NUMBER: _ClassVar[int]
    PRISM_FIELD_NUMBER: _ClassVar[int]
    BASE_CURVE_FIELD_NUMBER: _ClassVar[int]
    DIAMETER_FIELD_NUMBER: _ClassVar[int]
    FAR_PUPILLARY_DISTANCE_FIELD_NUMBER: _ClassVar[int]
    NEAR_PUPILLARY_DISTANCE_FIELD_NUMBER: _ClassVar[int]
    sphere: float
    cylinder: float
    axis: float
    add_power: float
    vertex_distance: float
    prism: PrismValue
    base_curve: float
    diameter: float
    far_pupillary_distance: float
    near_pupillary_distance: float
    def __init__(self, sphere: _Optional[float] = ..., cylinder: _Optional[float] = ..., axis: _Optional[float] = ..., add_power: _Optional[float] = ..., vertex_distance: _Optional[float] = ..., prism: _Optional[_Union[PrismValue, _Mapping]] = ..., base_curve: _Optional[float] = ..., diameter: _Optional[float] = ..., far_pupillary_distance: _Optional[float] = ..., near_pupillary_distance: _Optional[float] = ...) -> None: ...

class VisionPrescription(_message.Message):
    __slots__ = ("prescription_type", "date_issued", "expiration_date", "right_eye", "left_eye", "brand")
    PRESCRIPTION_TYPE_FIELD_NUMBER: _ClassVar[int]
    DATE_ISSUED_FIELD_NUMBER: _ClassVar[int]
    EXPIRATION_DATE_FIELD_NUMBER: _ClassVar[int]
    RIGHT_EYE_FIELD_NUMBER: _ClassVar[int]
    LEFT_EYE_FIELD_NUMBER: _ClassVar[int]
    BRAND_FIELD_NUMBER: _ClassVar[int]
    prescription_type: int
    date_issued: int
    expiration_date: int
    right_eye: LensSpecification
    left_eye: LensSpecification
    brand: str
    def __init__(self, prescription_type: _Optional[int] = ..., date_issued: _Optional[int] = ..., expiration_date: _Optional[int] = ..., right_eye: _Optional[_Union[LensSpecification, _Mapping]] = ..., left_eye: _Optional[_Union[LensSpecification, _Mapping]] = ..., brand: _Optional[str] = ...) -> None: ...

class Document(_message.Message):
    __slots__ = ("content_type", "data", "title", "patient_name", "author_name", "custodian_name", "effective_time")
    CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
    DATA_FIELD_NUMBER: _ClassVar[int]
    TITLE_FIELD_NUMBER: _ClassVar[int]
    PATIENT_NAME_FIELD_NUMBER: _ClassVar[int]
    AUTHOR_NAME_FIELD_NUMBER: _ClassVar[int]
    CUSTODIAN_NAME_FIELD_NUMBER: _ClassVar[int]
    EFFECTIVE_TIME_FIELD_NUMBER: _ClassVar[int]
    content_type: str
    data: bytes
    title: str
    patient_name: str
    author_name: str
    custodian_name: str
    effective_time: int
    def __init__(self, content_type: _Optional[str] = ..., data: _Optional[bytes] = ..., title: _Optional[str] = ..., patient_name: _Optional[str] = ..., author_name: _Optional[str] = ..., custodian_name: _Optional[str] = ..., effective_time: _Optional[int] = ...) -> None: ...

class ClinicalRecord(_message.Message):
    __slots__ = ("fhir_data", "fhir_version", "display_name", "source_name", "source_url", "received_date", "resource_id", "resource_type")
    FHIR_DATA_FIELD_NUMBER: _ClassVar[int]
    FHIR_VERSION_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_NAME_FIELD_NUMBER: _ClassVar[int]
    SOURCE_URL_FIELD_NUMBER: _ClassVar[int]
    RECEIVED_DATE_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_ID_FIELD_NUMBER: _ClassVar[int]
    RESOURCE_TYPE_FIELD_NUMBER: _ClassVar[int]
    fhir_data: bytes
    fhir_version: str
    display_name: str
    source_name: str
    source_url: str
    received_date: int
    resource_id: str
    resource_type: str
    def __init__(self, fhir_data: _Optional[bytes] = ..., fhir_version: _Optional[str] = ..., display_name: _Optional[str] = ..., source_name: _Optional[str] = ..., source_url: _Optional[str] = ..., received_date: _Optional[int] = ..., resource_id: _Optional[str] = ..., resource_type: _Optional[str] = ...) -> None: ...

class Electrocardiogram(_message.Message):
    __slots__ = ("classification", "symptoms_status", "average_heart_rate", "sampling_frequency", "number_of_voltage_measurements", "voltages")
    CLASSIFICATION_FIELD_NUMBER: _ClassVar[int]
    SYMPTOMS_STATUS_FIELD_NUMBER: _ClassVar[int]
    AVERAGE_HEART_RATE_FIELD_NUMBER: _ClassVar[int]
    SAMPLING_FREQUENCY_FIELD_NUMBER: _ClassVar[int]
    NUMBER_OF_VOLTAGE_MEASUREMENTS_FIELD_NUMBER: _ClassVar[int]
    VOLTAGES_FIELD_NUMBER: _ClassVar[int]
    classification: int
    symptoms_status: int
    average_heart_rate: float
    sampling_frequency: float
    number_of_voltage_measurements: int
    voltages: _containers.RepeatedCompositeFieldContainer[ElectrocardiogramVoltage]
    def __init__(self, classification: _Optional[int] = ..., symptoms_status: _Optional[int] = ..., average_heart_rate: _Optional[float] = ..., sampling_frequency: _Optional[float] = ..., number_of_voltage_measurements: _Optional[int] = ..., voltages: _Optional[_Iterable[_Union[ElectrocardiogramVoltage, _Mapping]]] = ...) -> None: ...

class WorkoutRoute(_message.Message):
    __slots__ = ("workout_uuid", "location_count", "locations")
    WORKOUT_UUID_FIELD_NUMBER: _ClassVar[int]
    LOCATION_COUNT_FIELD_NUMBER: _ClassVar[int]
    LOCATIONS_FIELD_NUMBER: _ClassVar[int]
    workout_uuid: bytes
    location_count: int
    locations: _containers.RepeatedCompositeFieldContainer[RouteLocation]
    def __init__(self, workout_uuid: _Optional[bytes] = ..., location_count: _Optional[int] = ..., locations: _Optional[_Iterable[_Union[RouteLocation, _Mapping]]] = ...) -> None: ...

class RouteLocation(_message.Message):
    __slots__ = ("timestamp", "latitude", "longitude", "altitude", "horizontal_accuracy", "vertical_accuracy", "course", "speed")
    TIMESTAMP_FIELD_NUMBER: _ClassVar[int]
    LATITUDE_FIELD_NUMBER: _ClassVar[int]
    LONGITUDE_FIELD_NUMBER: _ClassVar[int]
    ALTITUDE_FIELD_NUMBER: _ClassVar[int]
    HORIZONTAL_ACCURACY_FIELD_NUMBER: _ClassVar[int]
    VERTICAL_ACCURACY_FIELD_NUMBER: _ClassVar[int]
    COURSE_FIELD_NUMBER: _ClassVar[int]
    SPEED_FIELD_NUMBER: _ClassVar[int]
    timestamp: int
    latitude: float
    longitude: float
    altitude: float
    horizontal_accuracy: float
    vertical_accuracy: float
    course: float
    speed: float
    def __init__(self, timestamp: _Optional[int] = ..., latitude: _Optional[float] = ..., longitude: _Optional[float] = ..., altitude: _Optional[float] = ..., horizontal_accuracy: _Optional[float] = ..., vertical_accuracy: _Optional[float] = ..., course: _Optional[float] = ..., speed: _Optional[float] = ...) -> None: ...

class ElectrocardiogramVoltage(_message.Message):
    __slots__ = ("time_since_sample_start", "microvolts", "lead")
    TIME_SINCE_SAMPLE_START_FIELD_NUMBER: _ClassVar[int]
    MICROVOLTS_FIELD_NUMBER: _ClassVar[int]
    LEAD_FIELD_NUMBER: _ClassVar[int]
    time_since_sample_start: float
    microvolts: float
    lead: int
    def __init__(self, time_since_sample_start: _Optional[float] = ..., microvolts: _Optional[float] = ..., lead: _Optional[int] = ...) -> None: ...

class Audiogram(_message.Message):
    __slots__ = ("sensitivity_points",)
    SENSITIVITY_POINTS_FIELD_NUMBER: _ClassVar[int]
    sensitivity_points: _containers.RepeatedCompositeFieldContainer[AudiogramSensitivityPoint]
    def __init__(self, sensitivity_points: _Optional[_Iterable[_Union[AudiogramSensitivityPoint, _Mapping]]] = ...) -> None: ...

class AudiogramSensitivityPoint(_message.Message):
    __slots__ = ("frequency", "tests")
    FREQUENCY_FIELD_NUMBER: _ClassVar[int]
    TESTS_FIELD_NUMBER: _ClassVar[int]
    frequency: float
    tests: _containers.RepeatedCompositeFieldContainer[AudiogramSensitivityTest]
    def __init__(self, frequency: _Optional[float] = ..., tests: _Optional[_Iterable[_Union[AudiogramSensitivityTest, _Mapping]]] = ...) -> None: ...

class AudiogramSensitivityTest(_message.Message):
    __slots__ = ("sensitivity", "conduction_type", "masked", "side", "clamping_range")
    SENSITIVITY_FIELD_NUMBER: _ClassVar[int]
    CONDUCTION_TYPE_FIELD_NUMBER: _ClassVar[int]
    MASKED_FIELD_NUMBER: _ClassVar[int]
    SIDE_FIELD_NUMBER: _ClassVar[int]
    CLAMPING_RANGE_FIELD_NUMBER: _ClassVar[int]
    sensitivity: float
    conduction_type: int
    masked: bool
    side: int
    clamping_range: AudiogramClampingRange
    def __init__(self, sensitivity: _Optional[float] = ..., conduction_type: _Optional[int] = ..., masked: _Optional[bool] = ..., side: _Optional[int] = ..., clamping_range: _Optional[_Union[AudiogramClampingRange, _Mapping]] = ...) -> None: ...

class AudiogramClampingRange(_message.Message):
    __slots__ = ("lower_bound", "upper_bound")
    LOWER_BOUND_FIELD_NUMBER: _ClassVar[int]
    UPPER_BOUND_FIELD_NUMBER: _ClassVar[int]
    lower_bound: float
    upper_bound: float
    def __init__(self, lower_bound: _Optional[float] = ..., upper_bound: _Optional[float] = ...) -> None: ...

class HeartbeatSeries(_message.Message):
    __slots__ = ("beats",)
    BEATS_FIELD_NUMBER: _ClassVar[int]
    beats: _containers.RepeatedCompositeFieldContainer[Heartbeat]
    def __init__(self, beats: _Optional[_Iterable[_Union[Heartbeat, _Mapping]]] = ...) -> None: ...

class Heartbeat(_message.Message):
    __slots__ = ("time_since_series_start", "preceded_by_gap")
    TIME_SINCE_SERIES_START_FIELD_NUMBER: _ClassVar[int]
    PRECEDED_BY_GAP_FIELD_NUMBER: _ClassVar[int]
    time_since_series_start: float
    preceded_by_gap: bool
    def __init__(self, time_since_series_start: _Optional[float] = ..., preceded_by_gap: _Optional[bool] = ...) -> None: ...

class StateOfMind(_message.Message):
    __slots__ = ("kind", "valence", "valence_classification", "labels", "associations")
    KIND_FIELD_NUMBER: _ClassVar[int]
    VALENCE_FIELD_NUMBER: _ClassVar[int]
    VALENCE_CLASSIFICATION_FIELD_NUMBER: _ClassVar[int]
    LABELS_FIELD_NUMBER: _ClassVar[int]
    ASSOCIATIONS_FIELD_NUMBER: _ClassVar[int]
    kind: int
    valence: float
    valence_classification: int
    labels: _containers.RepeatedScalarFieldContainer[int]
    associations: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, kind: _Optional[int] = ..., valence: _Optional[float] = ..., valence_classification: _Optional[int] = ..., labels: _Optional[_Iterable[int]] = ..., associations: _Optional[_Iterable[int]] = ...) -> None: ...

class MedicationDoseEvent(_message.Message):
    __slots__ = ("log_status", "schedule_type", "medication_concept_identifier", "scheduled_date", "scheduled_dose_quantity", "dose_quantity", "unit")
    LOG_STATUS_FIELD_NUMBER: _ClassVar[int]
    SCHEDULE_TYPE_FIELD_NUMBER: _ClassVar[int]
    MEDICATION_CONCEPT_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_DATE_FIELD_NUMBER: _ClassVar[int]
    SCHEDULED_DOSE_QUANTITY_FIELD_NUMBER: _ClassVar[int]
    DOSE_QUANTITY_FIELD_NUMBER: _ClassVar[int]
    UNIT_FIELD_NUMBER: _ClassVar[int]
    log_status: int
    schedule_type: int
    medication_concept_identifier: str
    scheduled_date: int
    scheduled_dose_quantity: float
    dose_quantity: float
    unit: str
    def __init__(self, log_status: _Optional[int] = ..., schedule_type: _Optional[int] = ..., medication_concept_identifier: _Optional[str] = ..., scheduled_date: _Optional[int] = ..., scheduled_dose_quantity: _Optional[float] = ..., dose_quantity: _Optional[float] = ..., unit: _Optional[str] = ...) -> None: ...

class ClinicalCoding(_message.Message):
    __slots__ = ("system", "version", "code")
    SYSTEM_FIELD_NUMBER: _ClassVar[int]
    VERSION_FIELD_NUMBER: _ClassVar[int]
    CODE_FIELD_NUMBER: _ClassVar[int]
    system: str
    version: str
    code: str
    def __init__(self, system: _Optional[str] = ..., version: _Optional[str] = ..., code: _Optional[str] = ...) -> None: ...

class UserAnnotatedMedication(_message.Message):
    __slots__ = ("concept_identifier", "display_text", "general_form", "related_codings", "nickname", "is_archived", "has_schedule")
    CONCEPT_IDENTIFIER_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_TEXT_FIELD_NUMBER: _ClassVar[int]
    GENERAL_FORM_FIELD_NUMBER: _ClassVar[int]
    RELATED_CODINGS_FIELD_NUMBER: _ClassVar[int]
    NICKNAME_FIELD_NUMBER: _ClassVar[int]
    IS_ARCHIVED_FIELD_NUMBER: _ClassVar[int]
    HAS_SCHEDULE_FIELD_NUMBER: _ClassVar[int]
    concept_identifier: str
    display_text: str
    general_form: str
    related_codings: _containers.RepeatedCompositeFieldContainer[ClinicalCoding]
    nickname: str
    is_archived: bool
    has_schedule: bool
    def __init__(self, concept_identifier: _Optional[str] = ..., display_text: _Optional[str] = ..., general_form: _Optional[str] = ..., related_codings: _Optional[_Iterable[_Union[ClinicalCoding, _Mapping]]] = ..., nickname: _Optional[str] = ..., is_archived: _Optional[bool] = ..., has_schedule: _Optional[bool] = ...) -> None: ...

class ScoredAssessment(_message.Message):
    __slots__ = ("instrument", "answers", "score", "risk")
    INSTRUMENT_FIELD_NUMBER: _ClassVar[int]
    ANSWERS_FIELD_NUMBER: _ClassVar[int]
    SCORE_FIELD_NUMBER: _ClassVar[int]
    RISK_FIELD_NUMBER: _ClassVar[int]
    instrument: AssessmentInstrument
    answers: _containers.RepeatedScalarFieldContainer[int]
    score: int
    risk: int
    def __init__(self, instrument: _Optional[_Union[AssessmentInstrument, str]] = ..., answers: _Optional[_Iterable[int]] = ..., score: _Optional[int] = ..., risk: _Optional[int] = ...) -> None: ...

class Correlation(_message.Message):
    __slots__ = ("objects",)
    OBJECTS_FIELD_NUMBER: _ClassVar[int]
    objects: _containers.RepeatedCompositeFieldContainer[Sample]
    def __init__(self, objects: _Optional[_Iterable[_Union[Sample, _Mapping]]] = ...) -> None: ...

class Sample(_message.Message):
    __slots__ = ("uuid", "type", "start_date", "end_date", "quantity", "category", "workout", "vision_prescription", "document", "correlation", "electrocardiogram", "audiogram", "heartbeat_series", "state_of_mind", "medication_dose_event", "scored_assessment", "clinical_record", "workout_route", "user_annotated_medication", "source_revision", "device", "metadata", "creation_date")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: MetadataValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[MetadataValue, _Mapping]] = ...) -> None: ...
    UUID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    START_DATE_FIELD_NUMBER: _ClassVar[int]
    END_DATE_FIELD_NUMBER: _ClassVar[int]
    QUANTITY_FIELD_NUMBER: _ClassVar[int]
    CATEGORY_FIELD_NUMBER: _ClassVar[int]
    WORKOUT_FIELD_NUMBER: _ClassVar[int]
    VISION_PRESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DOCUMENT_FIELD_NUMBER: _ClassVar[int]
    CORRELATION_FIELD_NUMBER: _ClassVar[int]
    ELECTROCARDIOGRAM_FIELD_NUMBER: _ClassVar[int]
    AUDIOGRAM_FIELD_NUMBER: _ClassVar[int]
    HEARTBEAT_SERIES_FIELD_NUMBER: _ClassVar[int]
    STATE_OF_MIND_FIELD_NUMBER: _ClassVar[int]
    MEDICATION_DOSE_EVENT_FIELD_NUMBER: _ClassVar[int]
    SCORED_ASSESSMENT_FIELD_NUMBER: _ClassVar[int]
    CLINICAL_RECORD_FIELD_NUMBER: _ClassVar[int]
    WORKOUT_ROUTE_FIELD_NUMBER: _ClassVar[int]
    USER_ANNOTATED_MEDICATION_FIELD_NUMBER: _ClassVar[int]
    SOURCE_REVISION_FIELD_NUMBER: _ClassVar[int]
    DEVICE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    CREATION_DATE_FIELD_NUMBER: _ClassVar[int]
    uuid: bytes
    type: str
    start_date: int
    end_date: int
    quantity: Quantity
    category: CategoryValue
    workout: Workout
    vision_prescription: VisionPrescription
    document: Document
    correlation: Correlation
    electrocardiogram: Electrocardiogram
    audiogram: Audiogram
    heartbeat_series: HeartbeatSeries
    state_of_mind: StateOfMind
    medication_dose_event: MedicationDoseEvent
    scored_assessment: ScoredAssessment
    clinical_record: ClinicalRecord
    workout_route: WorkoutRoute
    user_annotated_medication: UserAnnotatedMedication
    source_revision: SourceRevision
    device: Device
    metadata: _containers.MessageMap[str, MetadataValue]
    creation_date: int
    def __init__(self, uuid: _Optional[bytes] = ..., type: _Optional[str] = ..., start_date: _Optional[int] = ..., end_date: _Optional[int] = ..., quantity: _Optional[_Union[Quantity, _Mapping]] = ..., category: _Optional[_Union[CategoryValue, _Mapping]] = ..., workout: _Optional[_Union[Workout, _Mapping]] = ..., vision_prescription: _Optional[_Union[VisionPrescription, _Mapping]] = ..., document: _Optional[_Union[Document, _Mapping]] = ..., correlation: _Optional[_Union[Correlation, _Mapping]] = ..., electrocardiogram: _Optional[_Union[Electrocardiogram, _Mapping]] = ..., audiogram: _Optional[_Union[Audiogram, _Mapping]] = ..., heartbeat_series: _Optional[_Union[HeartbeatSeries, _Mapping]] = ..., state_of_mind: _Optional[_Union[StateOfMind, _Mapping]] = ..., medication_dose_event: _Optional[_Union[MedicationDoseEvent, _Mapping]] = ..., scored_assessment: _Optional[_Union[ScoredAssessment, _Mapping]] = ..., clinical_record: _Optional[_Union[ClinicalRecord, _Mapping]] = ..., workout_route: _Optional[_Union[WorkoutRoute, _Mapping]] = ..., user_annotated_medication: _Optional[_Union[UserAnnotatedMedication, _Mapping]] = ..., source_revision: _Optional[_Union[SourceRevision, _Mapping]] = ..., device: _Optional[_Union[Device, _Mapping]] = ..., metadata: _Optional[_Mapping[str, MetadataValue]] = ..., creation_date: _Optional[int] = ...) -> None: ...

class DeletedObject(_message.Message):
    __slots__ = ("uuid", "type", "metadata")
    class MetadataEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: MetadataValue
        def __init__(self, key: _Optional[str] = ..., value: _Optional[_Union[MetadataValue, _Mapping]] = ...) -> None: ...
    UUID_FIELD_NUMBER: _ClassVar[int]
    TYPE_FIELD_NUMBER: _ClassVar[int]
    METADATA_FIELD_NUMBER: _ClassVar[int]
    uuid: bytes
    type: str
    metadata: _containers.MessageMap[str, MetadataValue]
    def __init__(self, uuid: _Optional[bytes] = ..., type: _Optional[str] = ..., metadata: _Optional[_Mapping[str, MetadataValue]] = ...) -> None: ...
