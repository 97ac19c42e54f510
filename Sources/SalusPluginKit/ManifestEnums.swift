/// How a quantity type's values combine (`salus.v1.AggregationStyle`). The names are
/// HealthKit's; the wire numbers are the manifest's own.
public enum QuantityAggregation: Int64, Sendable, Hashable {
    case cumulative = 1
    case discreteArithmetic = 2
    case discreteTemporallyWeighted = 3
    case discreteEquivalentContinuousLevel = 4
}

/// The type of a metadata value (`salus.v1.MetadataValueType`).
public enum MetadataValueKind: Int64, Sendable, Hashable {
    case string = 1
    case number = 2
    case bool = 3
    case date = 4
    case quantity = 5
}

/// How a characteristic's value is expressed (`salus.v1.CharacteristicValueType`).
public enum CharacteristicValueKind: Int64, Sendable, Hashable {
    case enumeration = 1
    case date = 2
}
