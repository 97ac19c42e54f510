import Foundation
import SalusModel

/// A correlation type identifier, HealthKit's `HKCorrelationTypeIdentifier`; any string is
/// accepted (third-party correlation types use reverse-DNS identifiers).
public struct CorrelationTypeIdentifier: RawRepresentable, Hashable, Sendable, ExpressibleByStringLiteral {
    /// The identifier string ("HKCorrelationTypeIdentifierBloodPressure").
    public var rawValue: String

    /// Wraps an identifier string.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// Wraps a literal identifier string.
    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    /// Blood pressure: exactly one systolic and one diastolic sample.
    public static let bloodPressure: Self = "HKCorrelationTypeIdentifierBloodPressure"
    /// Food: dietary quantity samples (energy, protein, carbohydrates, ...).
    public static let food: Self = "HKCorrelationTypeIdentifierFood"
}

extension QuantityTypeIdentifier {
    /// Systolic blood pressure (mmHg), a member of ``CorrelationTypeIdentifier/bloodPressure``.
    public static let bloodPressureSystolic: Self = "HKQuantityTypeIdentifierBloodPressureSystolic"
    /// Diastolic blood pressure (mmHg), a member of ``CorrelationTypeIdentifier/bloodPressure``.
    public static let bloodPressureDiastolic: Self = "HKQuantityTypeIdentifierBloodPressureDiastolic"
    /// Dietary energy (kcal, cumulative), what HealthKit asks every food correlation to hold.
    public static let dietaryEnergyConsumed: Self = "HKQuantityTypeIdentifierDietaryEnergyConsumed"
}

extension SampleType {
    /// A correlation type.
    public static func correlation(_ identifier: CorrelationTypeIdentifier) -> SampleType {
        SampleType(identifier.rawValue)
    }
}

extension Sample {
    /// A correlation to save, as HealthKit's `HKCorrelation(type:start:end:objects:)`: `objects`
    /// are the quantity and category samples it groups, saved with it in one transaction, each
    /// a sample of its own type. `end` defaults to `start`.
    ///
    /// A blood pressure correlation holds exactly one systolic and one diastolic sample; a food
    /// correlation dietary quantity samples. Saving needs share permission for the correlation
    /// type and for every member's type.
    public static func correlation(
        _ type: CorrelationTypeIdentifier,
        start: Date,
        end: Date? = nil,
        objects: [Sample],
        device: Device? = nil,
        metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        Sample(
            type: TypeIdentifier(rawValue: type.rawValue), startDate: start, endDate: end ?? start,
            value: .correlation(Correlation(objects: objects)), sourceRevision: unsavedSource, device: device,
            metadata: metadata
        )
    }

    /// A blood pressure reading to save: a ``CorrelationTypeIdentifier/bloodPressure`` correlation
    /// of a systolic and a diastolic sample in mmHg, all three over the same span and from the
    /// same device.
    public static func bloodPressure(
        systolic: Double,
        diastolic: Double,
        start: Date,
        end: Date? = nil,
        device: Device? = nil,
        metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        func reading(_ type: QuantityTypeIdentifier, _ value: Double) -> Sample {
            .quantity(type, Quantity(value: value, unit: .millimeterOfMercury), start: start, end: end, device: device)
        }
        return correlation(
            .bloodPressure, start: start, end: end,
            objects: [reading(.bloodPressureSystolic, systolic), reading(.bloodPressureDiastolic, diastolic)],
            device: device, metadata: metadata)
    }

    /// The correlation this sample is, with its members; nil for other samples.
    public var correlationValue: Correlation? {
        guard case .correlation(let correlation) = value else { return nil }
        return correlation
    }
}
