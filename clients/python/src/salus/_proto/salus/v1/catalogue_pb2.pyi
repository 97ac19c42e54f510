from salus._proto.salus.v1 import plugin_pb2 as _plugin_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class UnitScale(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    UNIT_SCALE_UNSPECIFIED: _ClassVar[UnitScale]
    UNIT_SCALE_LINEAR: _ClassVar[UnitScale]
    UNIT_SCALE_TEMPERATURE: _ClassVar[UnitScale]
    UNIT_SCALE_SOUND_PRESSURE_LEVEL: _ClassVar[UnitScale]
UNIT_SCALE_UNSPECIFIED: UnitScale
UNIT_SCALE_LINEAR: UnitScale
UNIT_SCALE_TEMPERATURE: UnitScale
UNIT_SCALE_SOUND_PRESSURE_LEVEL: UnitScale

class CatalogueRequest(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class UnitSymbol(_message.Message):
    __slots__ = ("symbol", "other_spellings", "dimension", "scale", "mantissa", "power_of_ten", "offset", "takes_prefix")
    class DimensionEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    SYMBOL_FIELD_NUMBER: _ClassVar[int]
    OTHER_SPELLINGS_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    SCALE_FIELD_NUMBER: _ClassVar[int]
    MANTISSA_FIELD_NUMBER: _ClassVar[int]
    POWER_OF_TEN_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    TAKES_PREFIX_FIELD_NUMBER: _ClassVar[int]
    symbol: str
    other_spellings: _containers.RepeatedScalarFieldContainer[str]
    dimension: _containers.ScalarMap[str, int]
    scale: UnitScale
    mantissa: float
    power_of_ten: int
    offset: float
    takes_prefix: bool
    def __init__(self, symbol: _Optional[str] = ..., other_spellings: _Optional[_Iterable[str]] = ..., dimension: _Optional[_Mapping[str, int]] = ..., scale: _Optional[_Union[UnitScale, str]] = ..., mantissa: _Optional[float] = ..., power_of_ten: _Optional[int] = ..., offset: _Optional[float] = ..., takes_prefix: _Optional[bool] = ...) -> None: ...

class UnitPrefix(_message.Message):
    __slots__ = ("symbol", "other_spellings", "power_of_ten")
    SYMBOL_FIELD_NUMBER: _ClassVar[int]
    OTHER_SPELLINGS_FIELD_NUMBER: _ClassVar[int]
    POWER_OF_TEN_FIELD_NUMBER: _ClassVar[int]
    symbol: str
    other_spellings: _containers.RepeatedScalarFieldContainer[str]
    power_of_ten: int
    def __init__(self, symbol: _Optional[str] = ..., other_spellings: _Optional[_Iterable[str]] = ..., power_of_ten: _Optional[int] = ...) -> None: ...

class UnitConversion(_message.Message):
    __slots__ = ("unit", "canonical", "dimension", "reference_unit", "one", "thirty_seven_and_a_half")
    UNIT_FIELD_NUMBER: _ClassVar[int]
    CANONICAL_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    REFERENCE_UNIT_FIELD_NUMBER: _ClassVar[int]
    ONE_FIELD_NUMBER: _ClassVar[int]
    THIRTY_SEVEN_AND_A_HALF_FIELD_NUMBER: _ClassVar[int]
    unit: str
    canonical: str
    dimension: str
    reference_unit: str
    one: float
    thirty_seven_and_a_half: float
    def __init__(self, unit: _Optional[str] = ..., canonical: _Optional[str] = ..., dimension: _Optional[str] = ..., reference_unit: _Optional[str] = ..., one: _Optional[float] = ..., thirty_seven_and_a_half: _Optional[float] = ...) -> None: ...

class CatalogueResponse(_message.Message):
    __slots__ = ("symbols", "prefixes", "units", "types")
    SYMBOLS_FIELD_NUMBER: _ClassVar[int]
    PREFIXES_FIELD_NUMBER: _ClassVar[int]
    UNITS_FIELD_NUMBER: _ClassVar[int]
    TYPES_FIELD_NUMBER: _ClassVar[int]
    symbols: _containers.RepeatedCompositeFieldContainer[UnitSymbol]
    prefixes: _containers.RepeatedCompositeFieldContainer[UnitPrefix]
    units: _containers.RepeatedCompositeFieldContainer[UnitConversion]
    types: _containers.RepeatedCompositeFieldContainer[_plugin_pb2.TypeDefinition]
    def __init__(self, symbols: _Optional[_Iterable[_Union[UnitSymbol, _Mapping]]] = ..., prefixes: _Optional[_Iterable[_Union[UnitPrefix, _Mapping]]] = ..., units: _Optional[_Iterable[_Union[UnitConversion, _Mapping]]] = ..., types: _Optional[_Iterable[_Union[_plugin_pb2.TypeDefinition, _Mapping]]] = ...) -> None: ...

class DescribeUnitsRequest(_message.Message):
    __slots__ = ("units",)
    UNITS_FIELD_NUMBER: _ClassVar[int]
    units: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, units: _Optional[_Iterable[str]] = ...) -> None: ...

class UnitMeaning(_message.Message):
    __slots__ = ("canonical", "dimension", "dimension_text", "scale", "mantissa", "power_of_ten", "offset", "contains_sound_pressure_level")
    class DimensionEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: int
        def __init__(self, key: _Optional[str] = ..., value: _Optional[int] = ...) -> None: ...
    CANONICAL_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_FIELD_NUMBER: _ClassVar[int]
    DIMENSION_TEXT_FIELD_NUMBER: _ClassVar[int]
    SCALE_FIELD_NUMBER: _ClassVar[int]
    MANTISSA_FIELD_NUMBER: _ClassVar[int]
    POWER_OF_TEN_FIELD_NUMBER: _ClassVar[int]
    OFFSET_FIELD_NUMBER: _ClassVar[int]
    CONTAINS_SOUND_PRESSURE_LEVEL_FIELD_NUMBER: _ClassVar[int]
    canonical: str
    dimension: _containers.ScalarMap[str, int]
    dimension_text: str
    scale: UnitScale
    mantissa: float
    power_of_ten: int
    offset: float
    contains_sound_pressure_level: bool
    def __init__(self, canonical: _Optional[str] = ..., dimension: _Optional[_Mapping[str, int]] = ..., dimension_text: _Optional[str] = ..., scale: _Optional[_Union[UnitScale, str]] = ..., mantissa: _Optional[float] = ..., power_of_ten: _Optional[int] = ..., offset: _Optional[float] = ..., contains_sound_pressure_level: _Optional[bool] = ...) -> None: ...

class UnitProblem(_message.Message):
    __slots__ = ("code", "message", "position", "expected")
    CODE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    POSITION_FIELD_NUMBER: _ClassVar[int]
    EXPECTED_FIELD_NUMBER: _ClassVar[int]
    code: str
    message: str
    position: int
    expected: str
    def __init__(self, code: _Optional[str] = ..., message: _Optional[str] = ..., position: _Optional[int] = ..., expected: _Optional[str] = ...) -> None: ...

class UnitDescription(_message.Message):
    __slots__ = ("unit", "meaning", "problem")
    UNIT_FIELD_NUMBER: _ClassVar[int]
    MEANING_FIELD_NUMBER: _ClassVar[int]
    PROBLEM_FIELD_NUMBER: _ClassVar[int]
    unit: str
    meaning: UnitMeaning
    problem: UnitProblem
    def __init__(self, unit: _Optional[str] = ..., meaning: _Optional[_Union[UnitMeaning, _Mapping]] = ..., problem: _Optional[_Union[UnitProblem, _Mapping]] = ...) -> None: ...

class DescribeUnitsResponse(_message.Message):
    __slots__ = ("units",)
    UNITS_FIELD_NUMBER: _ClassVar[int]
    units: _containers.RepeatedCompositeFieldContainer[UnitDescription]
    def __init__(self, units: _Optional[_Iterable[_Union[UnitDescription, _Mapping]]] = ...) -> None: ...
