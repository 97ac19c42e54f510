import SalusModel
import SalusProto

/// A sample type with an optional predicate: what an anchored or observer query follows, as
/// HealthKit's `HKSamplePredicate`.
///
/// ```swift
/// let sleep = SampleTypePredicate(.category(.sleepAnalysis), predicate: .sleepAnalysis(.allAsleepValues))
/// ```
public struct SampleTypePredicate: Hashable, Sendable {
    /// The type.
    public var type: SampleType
    /// Which of its samples; nil means all.
    public var predicate: SamplePredicate?

    /// Samples of `type` that match `predicate` (nil: all of them).
    public init(_ type: SampleType, predicate: SamplePredicate? = nil) {
        self.type = type
        self.predicate = predicate
    }

    /// Samples of `type` that match `predicate` (nil: all of them).
    public static func samples(_ type: SampleType, predicate: SamplePredicate? = nil) -> SampleTypePredicate {
        SampleTypePredicate(type, predicate: predicate)
    }

    /// Quantity samples of `type` that match `predicate` (nil: all of them), as HealthKit's
    /// `HKSamplePredicate.quantitySample(type:predicate:)`: what statistics queries take.
    public static func quantitySample(type: QuantityTypeIdentifier, predicate: SamplePredicate? = nil) -> SampleTypePredicate {
        SampleTypePredicate(.quantity(type), predicate: predicate)
    }

    /// The wire form (`salus.v1.TypedPredicate`).
    package var wire: Salus_V1_TypedPredicate {
        var wire = Salus_V1_TypedPredicate()
        wire.type = type.identifier.rawValue
        if let predicate { wire.predicate = predicate.wire }
        return wire
    }
}
