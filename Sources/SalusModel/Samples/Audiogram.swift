/// An audiogram's value, as HealthKit's `HKAudiogramSample`: hearing sensitivity per tested
/// frequency.
///
/// Units are fixed: frequencies in hertz (`Hz`), sensitivities in decibels hearing level
/// (`dBHL`, 0 being the baseline; a loss of hearing is a higher number). An Apple Health export's
/// `SensitivityPoint` (`leftEarValue`, `leftEarMasked`, `leftEarClampingRangeLowerBound`, … and
/// the same for the right ear) is one point whose tests are one per ear it gives.
public struct Audiogram: Hashable, Sendable {
    /// The tested frequencies, each once.
    public var sensitivityPoints: [AudiogramSensitivityPoint]

    /// Creates an audiogram value.
    public init(sensitivityPoints: [AudiogramSensitivityPoint]) {
        self.sensitivityPoints = sensitivityPoints
    }
}

/// The results at one frequency, as HealthKit's `HKAudiogramSensitivityPoint`.
public struct AudiogramSensitivityPoint: Hashable, Sendable {
    /// The tested frequency, in hertz.
    public var frequency: Double
    /// The tests at this frequency (one per ear, or more: masked and unmasked, say).
    public var tests: [AudiogramSensitivityTest]

    /// Creates a sensitivity point.
    public init(frequency: Double, tests: [AudiogramSensitivityTest]) {
        self.frequency = frequency
        self.tests = tests
    }

    /// A point with one unmasked air-conduction test per ear given, as HealthKit's older
    /// `leftEarSensitivity`/`rightEarSensitivity` described it.
    public init(frequency: Double, leftEar: Double? = nil, rightEar: Double? = nil) {
        self.frequency = frequency
        tests = [(AudiogramSensitivityTest.Side.left, leftEar), (.right, rightEar)].compactMap { side, sensitivity in
            sensitivity.map { AudiogramSensitivityTest(sensitivity: $0, side: side) }
        }
    }

    /// The sensitivity of the first unmasked test of `side`, else of its first test; nil when
    /// that ear was not tested.
    public func sensitivity(of side: AudiogramSensitivityTest.Side) -> Double? {
        let tests = tests.filter { $0.side == side }
        return (tests.first { !$0.masked } ?? tests.first)?.sensitivity
    }
}

/// One test at one frequency, as HealthKit's `HKAudiogramSensitivityTest`.
public struct AudiogramSensitivityTest: Hashable, Sendable {
    /// How the sound was conducted; raw values are HealthKit's `HKAudiogramConductionType`.
    public enum ConductionType: Int, CaseIterable, Hashable, Sendable {
        /// Through the air (0).
        case air = 0
    }

    /// The tested ear; raw values are HealthKit's `HKAudiogramSensitivityTestSide`.
    public enum Side: Int, CaseIterable, Hashable, Sendable {
        /// The left ear (0).
        case left = 0
        /// The right ear (1).
        case right = 1
    }

    /// The ear's sensitivity, in dBHL.
    public var sensitivity: Double
    /// How the sound was conducted.
    public var conductionType: ConductionType
    /// Whether the other ear was masked during the test.
    public var masked: Bool
    /// The tested ear.
    public var side: Side
    /// The range the sensitivity may have been clamped to (for safety, by the hardware or the
    /// algorithm); nil when it was not.
    public var clampingRange: AudiogramClampingRange?

    /// Creates a test.
    public init(
        sensitivity: Double,
        conductionType: ConductionType = .air,
        masked: Bool = false,
        side: Side,
        clampingRange: AudiogramClampingRange? = nil
    ) {
        self.sensitivity = sensitivity
        self.conductionType = conductionType
        self.masked = masked
        self.side = side
        self.clampingRange = clampingRange
    }
}

/// The range a sensitivity may have been clamped to, as HealthKit's
/// `HKAudiogramSensitivityPointClampingRange`: at least one bound, in dBHL, and the lower below
/// the upper when both are given.
public struct AudiogramClampingRange: Hashable, Sendable {
    /// The lower bound, in dBHL, if any.
    public var lowerBound: Double?
    /// The upper bound, in dBHL, if any.
    public var upperBound: Double?

    /// Creates a clamping range.
    public init(lowerBound: Double? = nil, upperBound: Double? = nil) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }
}
