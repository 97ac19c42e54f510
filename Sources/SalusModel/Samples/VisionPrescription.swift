import Foundation

/// A glasses or contacts prescription, as HealthKit's `HKVisionPrescription` and its subclasses.
///
/// Lens values use fixed units: sphere, cylinder and add power in diopters (`D`), axis in
/// degrees (`deg`), distances, base curve and diameter in millimetres (`mm`).
public struct VisionPrescription: Hashable, Sendable {
    /// Glasses or contacts; raw values are HealthKit's `HKVisionPrescriptionType`.
    public enum PrescriptionType: Int, CaseIterable, Hashable, Sendable {
        /// Glasses (1).
        case glasses = 1
        /// Contact lenses (2).
        case contacts = 2
    }

    /// An eye; raw values are HealthKit's `HKVisionEye`.
    public enum Eye: Int, CaseIterable, Hashable, Sendable, CustomStringConvertible {
        /// The left eye (1).
        case left = 1
        /// The right eye (2).
        case right = 2

        /// "left" or "right".
        public var description: String { self == .left ? "left" : "right" }
    }

    /// Whether the prescription is in force at `date`: issued at or before it and not expired
    /// (an expiration date after `date`, or none).
    public func isValid(at date: Date) -> Bool {
        dateIssued <= date && (expirationDate.map { $0 > date } ?? true)
    }

    /// Glasses or contacts.
    public var prescriptionType: PrescriptionType
    /// When the prescription was issued.
    public var dateIssued: Date
    /// When it expires, if it does.
    public var expirationDate: Date?
    /// The right eye's lens.
    public var rightEye: LensSpecification?
    /// The left eye's lens.
    public var leftEye: LensSpecification?
    /// The contact lens brand; HealthKit requires it for contacts.
    public var brand: String?

    /// Creates a prescription.
    public init(
        prescriptionType: PrescriptionType,
        dateIssued: Date,
        expirationDate: Date? = nil,
        rightEye: LensSpecification? = nil,
        leftEye: LensSpecification? = nil,
        brand: String? = nil
    ) {
        self.prescriptionType = prescriptionType
        self.dateIssued = dateIssued
        self.expirationDate = expirationDate
        self.rightEye = rightEye
        self.leftEye = leftEye
        self.brand = brand
    }
}

/// One eye's lens, as HealthKit's `HKGlassesLensSpecification` / `HKContactsLensSpecification`.
///
/// Units are fixed: diopters for sphere, cylinder and add power; degrees for axis; millimetres
/// for distances, base curve and diameter. The glasses-only and contacts-only fields are nil for
/// the other kind.
public struct LensSpecification: Hashable, Sendable {
    /// Sphere power in diopters (required by HealthKit).
    public var sphere: Double?
    /// Cylinder power in diopters.
    public var cylinder: Double?
    /// Cylinder axis in degrees.
    public var axis: Double?
    /// Add power in diopters.
    public var addPower: Double?
    /// Glasses: vertex distance in millimetres.
    public var vertexDistance: Double?
    /// Glasses: the prism.
    public var prism: VisionPrism?
    /// Glasses: far pupillary distance in millimetres.
    public var farPupillaryDistance: Double?
    /// Glasses: near pupillary distance in millimetres.
    public var nearPupillaryDistance: Double?
    /// Contacts: base curve in millimetres.
    public var baseCurve: Double?
    /// Contacts: diameter in millimetres.
    public var diameter: Double?

    /// Creates a lens specification; pass only what the prescription gives.
    public init(
        sphere: Double? = nil,
        cylinder: Double? = nil,
        axis: Double? = nil,
        addPower: Double? = nil,
        vertexDistance: Double? = nil,
        prism: VisionPrism? = nil,
        farPupillaryDistance: Double? = nil,
        nearPupillaryDistance: Double? = nil,
        baseCurve: Double? = nil,
        diameter: Double? = nil
    ) {
        self.sphere = sphere
        self.cylinder = cylinder
        self.axis = axis
        self.addPower = addPower
        self.vertexDistance = vertexDistance
        self.prism = prism
        self.farPupillaryDistance = farPupillaryDistance
        self.nearPupillaryDistance = nearPupillaryDistance
        self.baseCurve = baseCurve
        self.diameter = diameter
    }

    /// One field's allowed values, in the field's fixed unit.
    package struct Range: Sendable {
        /// The field's name (`sphere`).
        package var field: String
        /// The allowed values, bounds included.
        package var bounds: ClosedRange<Double>
        /// The fixed unit (`D`, `deg`, `mm`).
        package var unit: String
        /// What a refusal says was expected.
        package var expected: String
    }

    /// The allowed values of each field: HealthKit's documented ranges (sphere, cylinder, add
    /// power, vertex distance, base curve, diameter); where HealthKit gives none, what the
    /// quantity can physically be (an axis of 0–180 degrees, a positive pupillary distance).
    package static let ranges: [Range] = [
        Range(field: "sphere", bounds: -10.5...6.5, unit: "D", expected: "a sphere from -10.5 to +6.5 diopters"),
        Range(field: "cylinder", bounds: -3...3, unit: "D", expected: "a cylinder from -3.0 to +3.0 diopters"),
        Range(field: "axis", bounds: 0...180, unit: "deg", expected: "an axis from 0 to 180 degrees"),
        Range(field: "addPower", bounds: 0.25...2.5, unit: "D", expected: "an add power from 0.25 to 2.5 diopters"),
        Range(
            field: "vertexDistance", bounds: 12...14, unit: "mm",
            expected: "a vertex distance from 12 to 14 millimetres"),
        Range(
            field: "farPupillaryDistance", bounds: Double.leastNonzeroMagnitude...Double.greatestFiniteMagnitude,
            unit: "mm", expected: "a far pupillary distance above 0 millimetres"),
        Range(
            field: "nearPupillaryDistance", bounds: Double.leastNonzeroMagnitude...Double.greatestFiniteMagnitude,
            unit: "mm", expected: "a near pupillary distance above 0 millimetres"),
        Range(field: "baseCurve", bounds: 7.8...9.2, unit: "mm", expected: "a base curve from 7.8 to 9.2 millimetres"),
        Range(field: "diameter", bounds: 9...15, unit: "mm", expected: "a diameter from 9 to 15 millimetres"),
    ]

    /// Every numeric field with its name (`sphere`, ..., `diameter`), for validation and display.
    public var numericFields: [(String, Double?)] {
        [
            ("sphere", sphere), ("cylinder", cylinder), ("axis", axis), ("addPower", addPower),
            ("vertexDistance", vertexDistance), ("farPupillaryDistance", farPupillaryDistance),
            ("nearPupillaryDistance", nearPupillaryDistance), ("baseCurve", baseCurve),
            ("diameter", diameter),
        ]
    }
}

/// A prism correction, as HealthKit's `HKVisionPrism`: amounts in prism diopters, angle in
/// degrees, bases as raw values.
public struct VisionPrism: Hashable, Sendable {
    /// The prism power in prism diopters.
    public var amount: Double
    /// The base direction in degrees.
    public var angle: Double
    /// The vertical component in prism diopters.
    public var verticalAmount: Double
    /// The vertical base: `HKPrismBase` raw value (up 1, down 2).
    public var verticalBase: Int
    /// The horizontal component in prism diopters.
    public var horizontalAmount: Double
    /// The horizontal base: `HKPrismBase` raw value (in 3, out 4).
    public var horizontalBase: Int
    /// The eye: `HKVisionEye` raw value (left 1, right 2).
    public var eye: Int

    /// Creates a prism.
    public init(
        amount: Double,
        angle: Double,
        verticalAmount: Double = 0,
        verticalBase: Int = 0,
        horizontalAmount: Double = 0,
        horizontalBase: Int = 0,
        eye: Int
    ) {
        self.amount = amount
        self.angle = angle
        self.verticalAmount = verticalAmount
        self.verticalBase = verticalBase
        self.horizontalAmount = horizontalAmount
        self.horizontalBase = horizontalBase
        self.eye = eye
    }
}
