/// An electrocardiogram's value, as HealthKit's `HKElectrocardiogram`: the classification, the
/// symptoms status, the average heart rate, the sampling frequency and the voltage measurements.
///
/// Units are fixed: average heart rate in beats per minute (`count/min`), sampling frequency in
/// hertz (`Hz`), voltages in microvolts (`µV`), time offsets in seconds since the sample's start.
///
/// **The voltages travel apart.** An Apple Watch recording holds about 15,000 voltages (30 s at
/// 512 Hz), too many to carry in every query. Saving takes them with the sample, and then
/// `numberOfVoltageMeasurements` must equal `voltages.count`; the store keeps them in their own
/// table. Queries return the value with `voltages` empty and `numberOfVoltageMeasurements`
/// saying how many there are; the voltages of one electrocardiogram are read with their own
/// streamed query, in chunks.
public struct Electrocardiogram: Hashable, Sendable {
    /// The result of Apple Watch's ECG algorithm; raw values are HealthKit's
    /// `HKElectrocardiogramClassification`.
    public enum Classification: Int, CaseIterable, Hashable, Sendable {
        /// No classification is set (0).
        case notSet = 0
        /// No sign of atrial fibrillation (1).
        case sinusRhythm = 1
        /// Signs of atrial fibrillation (2).
        case atrialFibrillation = 2
        /// Not classified: a heart rate under 50 bpm (3).
        case inconclusiveLowHeartRate = 3
        /// Not classified: a high heart rate (4).
        case inconclusiveHighHeartRate = 4
        /// Not classified: the signal did not meet the requirements (5).
        case inconclusivePoorReading = 5
        /// Not classified, for another reason (6).
        case inconclusiveOther = 6
        /// A classification this version does not recognize (100).
        case unrecognized = 100
    }

    /// Whether the person reported symptoms; raw values are HealthKit's
    /// `HKElectrocardiogramSymptomsStatus`.
    public enum SymptomsStatus: Int, CaseIterable, Hashable, Sendable {
        /// Not said (0).
        case notSet = 0
        /// No symptoms (1).
        case none = 1
        /// Symptoms present (2); the symptoms themselves are category samples of their own.
        case present = 2
    }

    /// The lead a voltage was measured on; raw values are HealthKit's `HKElectrocardiogramLead`.
    public enum Lead: Int, CaseIterable, Hashable, Sendable {
        /// Apple Watch's electrical heart sensor, similar to a Lead I ECG (1).
        case appleWatchSimilarToLeadI = 1
    }

    /// The algorithm's classification.
    public var classification: Classification
    /// Whether the person reported symptoms.
    public var symptomsStatus: SymptomsStatus
    /// The average heart rate during the recording, in beats per minute; nil when not known.
    public var averageHeartRate: Double?
    /// The frequency the voltages were sampled at, in hertz; nil when not known.
    public var samplingFrequency: Double?
    /// How many voltage measurements the electrocardiogram has, whether or not `voltages`
    /// carries them.
    public var numberOfVoltageMeasurements: Int
    /// The voltage measurements, in recording order: every one when saving, none in query
    /// results.
    public var voltages: [ElectrocardiogramVoltage]

    /// Creates an electrocardiogram value; `numberOfVoltageMeasurements` defaults to
    /// `voltages.count`.
    public init(
        classification: Classification,
        symptomsStatus: SymptomsStatus = .notSet,
        averageHeartRate: Double? = nil,
        samplingFrequency: Double? = nil,
        voltages: [ElectrocardiogramVoltage] = [],
        numberOfVoltageMeasurements: Int? = nil
    ) {
        self.classification = classification
        self.symptomsStatus = symptomsStatus
        self.averageHeartRate = averageHeartRate
        self.samplingFrequency = samplingFrequency
        self.voltages = voltages
        self.numberOfVoltageMeasurements = numberOfVoltageMeasurements ?? voltages.count
    }

    /// The sampling frequencies accepted, in hertz: from the slowest to the fastest recorders
    /// (Apple Watch samples at 512 Hz, clinical machines at 250 Hz to a few kHz, research systems
    /// up to 100 kHz). A rate of 10^-300 Hz is not a recording.
    package static let samplingFrequencies: ClosedRange<Double> = 1...100_000
    /// The voltages accepted, in microvolts: ±1 V, far beyond any skin-surface signal (a few
    /// millivolts) and an electrode's offset (a few hundred).
    package static let microvolts: ClosedRange<Double> = -1_000_000...1_000_000
    /// The most voltages one electrocardiogram holds: ten minutes at 1,024 Hz. An Apple Watch
    /// recording is 30 s at 512 Hz (15,360 voltages); a larger one costs memory on every save,
    /// import and read.
    package static let maximumVoltageCount = 614_400

    /// This value without its voltages (the count kept), as queries return it.
    public var withoutVoltages: Electrocardiogram {
        var value = self
        value.voltages = []
        return value
    }
}

/// One voltage measurement of an electrocardiogram, as HealthKit's
/// `HKElectrocardiogram.VoltageMeasurement` for one lead.
public struct ElectrocardiogramVoltage: Hashable, Sendable {
    /// Seconds from the sample's start date to the measurement.
    public var timeSinceSampleStart: Double
    /// The voltage, in microvolts.
    public var microvolts: Double
    /// The lead it was measured on.
    public var lead: Electrocardiogram.Lead

    /// Creates a measurement.
    public init(timeSinceSampleStart: Double, microvolts: Double, lead: Electrocardiogram.Lead = .appleWatchSimilarToLeadI) {
        self.timeSinceSampleStart = timeSinceSampleStart
        self.microvolts = microvolts
        self.lead = lead
    }
}
