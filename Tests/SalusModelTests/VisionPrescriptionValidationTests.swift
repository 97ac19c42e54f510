import Foundation
import Testing

@testable import SalusModel

/// The rules of a vision prescription: HealthKit's documented lens ranges, the required sphere
/// and contacts brand, the fields of each prescription type and the prism's form, each refusal
/// naming the eye, the field and the value.
@Suite("Vision prescription validation")
struct VisionPrescriptionValidationTests {
    static let issued = Date(timeIntervalSince1970: 1_700_000_000)

    /// A valid sample holding `prescription`.
    static func sample(_ prescription: VisionPrescription) -> Sample {
        Sample(
            type: "HKVisionPrescriptionTypeIdentifier", startDate: issued, endDate: issued,
            value: .visionPrescription(prescription),
            sourceRevision: SourceRevision(appID: "org.example.optician", name: "Optician"))
    }

    static let glassesLens = LensSpecification(
        sphere: -1.25, cylinder: -0.5, axis: 90, addPower: 1.5, vertexDistance: 13,
        prism: VisionPrism(amount: 1, angle: 90, verticalAmount: 1, verticalBase: 1, eye: 2),
        farPupillaryDistance: 32, nearPupillaryDistance: 30)
    static let contactsLens = LensSpecification(sphere: -2, cylinder: 1, axis: 10, baseCurve: 8.6, diameter: 14.2)

    @Test("Complete glasses and contacts prescriptions pass, at the edges of every range too")
    func validPrescriptions() {
        let glasses = VisionPrescription(
            prescriptionType: .glasses, dateIssued: Self.issued, expirationDate: Self.issued.addingTimeInterval(86_400),
            rightEye: Self.glassesLens,
            leftEye: LensSpecification(
                sphere: 6.5, cylinder: 3, axis: 180, addPower: 0.25, vertexDistance: 12,
                prism: VisionPrism(amount: 0.5, angle: 0, horizontalAmount: 0.5, horizontalBase: 4, eye: 1)))
        #expect(Self.sample(glasses).validationErrors().isEmpty)
        let contacts = VisionPrescription(
            prescriptionType: .contacts, dateIssued: Self.issued, rightEye: Self.contactsLens,
            leftEye: LensSpecification(sphere: -10.5, cylinder: -3, axis: 0, addPower: 2.5, baseCurve: 7.8, diameter: 9),
            brand: "Acuvue Oasys")
        #expect(Self.sample(contacts).validationErrors().isEmpty)
    }

    /// One value out of range per case: the field, a value just outside, the eye it is put on.
    static let outOfRange: [(field: String, value: Double, contacts: Bool)] = [
        ("sphere", -10.75, false), ("sphere", 6.75, true), ("cylinder", -3.25, false), ("cylinder", 3.25, true),
        ("axis", -1, false), ("axis", 181, true), ("addPower", 0.2, false), ("addPower", 2.75, true),
        ("vertexDistance", 11.5, false), ("vertexDistance", 14.5, false), ("farPupillaryDistance", 0, false),
        ("nearPupillaryDistance", -30, false), ("baseCurve", 7.7, true), ("baseCurve", 9.3, true),
        ("diameter", 8.9, true), ("diameter", 15.1, true),
    ]

    @Test("A lens value outside its range is refused, naming eye, field and value", arguments: outOfRange.indices)
    func rangeRefusals(index: Int) throws {
        let (field, value, contacts) = Self.outOfRange[index]
        var lens = contacts ? Self.contactsLens : Self.glassesLens
        switch field {
        case "sphere": lens.sphere = value
        case "cylinder": lens.cylinder = value
        case "axis": lens.axis = value
        case "addPower": lens.addPower = value
        case "vertexDistance": lens.vertexDistance = value
        case "farPupillaryDistance": lens.farPupillaryDistance = value
        case "nearPupillaryDistance": lens.nearPupillaryDistance = value
        case "baseCurve": lens.baseCurve = value
        default: lens.diameter = value
        }
        var rightEye = contacts ? Self.contactsLens : Self.glassesLens
        if !contacts { rightEye.prism?.eye = 2 }
        var leftEye = lens
        leftEye.prism?.eye = 1
        let prescription = VisionPrescription(
            prescriptionType: contacts ? .contacts : .glasses, dateIssued: Self.issued, rightEye: rightEye,
            leftEye: leftEye, brand: contacts ? "Acuvue" : nil)
        let errors = Self.sample(prescription).validationErrors()
        let error = try #require(errors.first)
        #expect(errors.count == 1)
        #expect(error.reason == .valueOutOfRange)
        #expect(error.field == "sample.visionPrescription.leftEye.\(field)")
        #expect(error.value.hasPrefix("\(value) "))
        #expect(error.expected.contains(" to ") || error.expected.contains("above 0"))
    }

    @Test("The documented ranges are HealthKit's")
    func documentedRanges() {
        let ranges = Dictionary(uniqueKeysWithValues: LensSpecification.ranges.map { ($0.field, $0.bounds) })
        #expect(ranges["sphere"] == -10.5...6.5)
        #expect(ranges["cylinder"] == -3...3)
        #expect(ranges["addPower"] == 0.25...2.5)
        #expect(ranges["vertexDistance"] == 12...14)
        #expect(ranges["baseCurve"] == 7.8...9.2)
        #expect(ranges["diameter"] == 9...15)
    }

    @Test("Every lens needs a sphere; contacts need a brand, glasses have none")
    func requiredFields() {
        let noSphere = VisionPrescription(
            prescriptionType: .glasses, dateIssued: Self.issued, rightEye: LensSpecification(cylinder: -0.5, axis: 90))
        let sphereErrors = Self.sample(noSphere).validationErrors()
        #expect(sphereErrors.map(\.field) == ["sample.visionPrescription.rightEye.sphere"])
        #expect(sphereErrors.map(\.reason) == [.missingValue])

        for brand in [nil, "", "  "] as [String?] {
            let contacts = VisionPrescription(
                prescriptionType: .contacts, dateIssued: Self.issued, leftEye: Self.contactsLens, brand: brand)
            let errors = Self.sample(contacts).validationErrors()
            #expect(errors.map(\.field) == ["sample.visionPrescription.brand"])
            #expect(errors.map(\.reason) == [.missingValue])
        }
        let glasses = VisionPrescription(
            prescriptionType: .glasses, dateIssued: Self.issued, rightEye: Self.glassesLens, brand: "Ray-Ban")
        let errors = Self.sample(glasses).validationErrors()
        #expect(errors.map(\.field) == ["sample.visionPrescription.brand"])
        #expect(errors.first?.value == "\"Ray-Ban\"")
    }

    @Test("A field of the other prescription type is refused")
    func otherTypeFields() {
        var glassesLens = Self.glassesLens
        glassesLens.baseCurve = 8.6
        let glasses = VisionPrescription(prescriptionType: .glasses, dateIssued: Self.issued, rightEye: glassesLens)
        #expect(Self.sample(glasses).validationErrors().map(\.field) == ["sample.visionPrescription.rightEye.baseCurve"])

        var contactsLens = Self.contactsLens
        contactsLens.vertexDistance = 13
        contactsLens.prism = VisionPrism(amount: 1, angle: 90, eye: 1)
        let contacts = VisionPrescription(
            prescriptionType: .contacts, dateIssued: Self.issued, leftEye: contactsLens, brand: "Acuvue")
        #expect(Self.sample(contacts).validationErrors().map(\.field) == [
            "sample.visionPrescription.leftEye.vertexDistance", "sample.visionPrescription.leftEye.prism",
        ])
    }

    @Test("A prism needs its lens's eye, bases for its direction and amounts of zero or more")
    func prismRules() {
        func errors(_ prism: VisionPrism) -> [ValidationError] {
            var lens = Self.glassesLens
            lens.prism = prism
            return Self.sample(VisionPrescription(prescriptionType: .glasses, dateIssued: Self.issued, rightEye: lens))
                .validationErrors()
        }
        let wrongEye = errors(VisionPrism(amount: 1, angle: 90, eye: 1))
        #expect(wrongEye.map(\.field) == ["sample.visionPrescription.rightEye.prism.eye"])
        #expect(wrongEye.first?.value == "1")
        #expect(
            errors(VisionPrism(amount: 1, angle: 90, verticalAmount: 1, verticalBase: 3, eye: 2)).map(\.field)
                == ["sample.visionPrescription.rightEye.prism.verticalBase"])
        #expect(
            errors(VisionPrism(amount: 1, angle: 0, horizontalAmount: 1, horizontalBase: 0, eye: 2)).map(\.field)
                == ["sample.visionPrescription.rightEye.prism.horizontalBase"])
        #expect(
            errors(VisionPrism(amount: -1, angle: 360, eye: 2)).map(\.field) == [
                "sample.visionPrescription.rightEye.prism.amount", "sample.visionPrescription.rightEye.prism.angle",
            ])
        #expect(errors(VisionPrism(amount: .infinity, angle: 0, eye: 2)).map(\.reason) == [.nonFiniteValue])
    }

    @Test("A prescription is valid from its issue date until it expires")
    func validity() {
        let prescription = VisionPrescription(
            prescriptionType: .glasses, dateIssued: Self.issued, expirationDate: Self.issued.addingTimeInterval(100))
        #expect(!prescription.isValid(at: Self.issued.addingTimeInterval(-1)))
        #expect(prescription.isValid(at: Self.issued))
        #expect(prescription.isValid(at: Self.issued.addingTimeInterval(99)))
        #expect(!prescription.isValid(at: Self.issued.addingTimeInterval(100)))
        let open = VisionPrescription(prescriptionType: .glasses, dateIssued: Self.issued)
        #expect(open.isValid(at: Self.issued.addingTimeInterval(1e9)))
    }
}
