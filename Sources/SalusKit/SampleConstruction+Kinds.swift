import Foundation
import SalusModel

/// Electrocardiograms, audiograms, heartbeat series, states of mind, medication dose events,
/// user-annotated medications and scored assessments: making them to save, and reading their values from query results.
extension Sample {
    /// An electrocardiogram to save, with all its voltages (its `numberOfVoltageMeasurements`
    /// must equal their count, which is what ``Electrocardiogram``'s initializer sets by
    /// default). The whole save must fit in one frame (4 MiB, about 190,000 voltages); a larger
    /// one fails with ``SalusError/Code/resourceExhausted``.
    public static func electrocardiogram(
        _ value: Electrocardiogram,
        start: Date,
        end: Date,
        type: SampleType = .electrocardiogram,
        device: Device? = nil,
        metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        make(type, .electrocardiogram(value), start: start, end: end, device: device, metadata: metadata)
    }

    /// An audiogram to save, as HealthKit's `HKAudiogramSample(sensitivityPoints:start:end:…)`.
    public static func audiogram(
        _ value: Audiogram,
        start: Date,
        end: Date,
        type: SampleType = .audiogram,
        device: Device? = nil,
        metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        make(type, .audiogram(value), start: start, end: end, device: device, metadata: metadata)
    }

    /// A heartbeat series to save, as HealthKit's `HKHeartbeatSeriesBuilder` would finish it:
    /// the beats' times are seconds since `start`, ascending, and no later than `end`.
    public static func heartbeatSeries(
        _ value: HeartbeatSeries,
        start: Date,
        end: Date,
        type: SampleType = .heartbeatSeries,
        device: Device? = nil,
        metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        make(type, .heartbeatSeries(value), start: start, end: end, device: device, metadata: metadata)
    }

    /// A state of mind to save at `date`, as HealthKit's
    /// `HKStateOfMind(date:kind:valence:labels:associations:)`.
    public static func stateOfMind(
        _ value: StateOfMind,
        date: Date,
        type: SampleType = .stateOfMind,
        metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        make(type, .stateOfMind(value), start: date, end: date, device: nil, metadata: metadata)
    }

    /// A medication dose event to save; `end` defaults to `start`.
    public static func medicationDoseEvent(
        _ value: MedicationDoseEvent,
        start: Date,
        end: Date? = nil,
        type: SampleType = .medicationDoseEvent,
        device: Device? = nil,
        metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        make(type, .medicationDoseEvent(value), start: start, end: end ?? start, device: device, metadata: metadata)
    }

    /// A medication the person added, with their annotations, to save as of `date` (when it was
    /// added or last annotated; an edit is a delete plus a new object, as for any sample).
    public static func userAnnotatedMedication(
        _ value: UserAnnotatedMedication,
        date: Date,
        type: SampleType = .userAnnotatedMedication,
        metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        make(type, .userAnnotatedMedication(value), start: date, end: date, device: nil, metadata: metadata)
    }

    /// A GAD-7 or PHQ-9 assessment to save at `date`, of the instrument's HealthKit type, as
    /// HealthKit's `HKGAD7Assessment(date:answers:)` and `HKPHQ9Assessment(date:answers:)`.
    public static func scoredAssessment(
        _ instrument: ScoredAssessment.Instrument,
        answers: [ScoredAssessment.Answer],
        date: Date,
        metadata: [String: MetadataValue] = [:]
    ) -> Sample {
        make(
            SampleType(instrument.typeIdentifier), .scoredAssessment(ScoredAssessment(instrument: instrument, answers: answers)),
            start: date, end: date, device: nil, metadata: metadata)
    }

    private static func make(
        _ type: SampleType, _ value: SampleValue, start: Date, end: Date, device: Device?,
        metadata: [String: MetadataValue]
    ) -> Sample {
        Sample(type: type, value: value, start: start, end: end, device: device, metadata: metadata)
    }

    /// The electrocardiogram, when the sample is one. Query results carry no voltages: read them
    /// with ``ElectrocardiogramQueryDescriptor``.
    public var electrocardiogram: Electrocardiogram? {
        if case .electrocardiogram(let value) = value { value } else { nil }
    }

    /// The audiogram, when the sample is one.
    public var audiogram: Audiogram? {
        if case .audiogram(let value) = value { value } else { nil }
    }

    /// The heartbeat series, when the sample is one.
    public var heartbeatSeries: HeartbeatSeries? {
        if case .heartbeatSeries(let value) = value { value } else { nil }
    }

    /// The state of mind, when the sample is one.
    public var stateOfMind: StateOfMind? {
        if case .stateOfMind(let value) = value { value } else { nil }
    }

    /// The medication dose event, when the sample is one.
    public var medicationDoseEvent: MedicationDoseEvent? {
        if case .medicationDoseEvent(let value) = value { value } else { nil }
    }

    /// The user-annotated medication, when the sample is one.
    public var userAnnotatedMedication: UserAnnotatedMedication? {
        if case .userAnnotatedMedication(let value) = value { value } else { nil }
    }

    /// The GAD-7 or PHQ-9 assessment, with its score and risk, when the sample is one.
    public var scoredAssessment: ScoredAssessment? {
        if case .scoredAssessment(let value) = value { value } else { nil }
    }
}
