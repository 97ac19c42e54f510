import Foundation
import SalusModel

/// The JSON the store keeps in `samples.payload` for workouts, prescriptions and documents.
///
/// These mirror the model's values field for field; dates are encoded as Foundation encodes
/// them by default (seconds since 2001 as a double), which round-trips exactly.
enum Payloads {
    struct QuantityPayload: Codable {
        var value: Double
        var unit: String
    }

    enum MetadataPayload: Codable {
        case string(String)
        case number(Double)
        case bool(Bool)
        case date(Date)
        case quantity(QuantityPayload)
    }

    struct EventPayload: Codable {
        var type: Int
        var startDate: Date
        var endDate: Date
        var metadata: [String: MetadataPayload]
    }

    struct ActivityPayload: Codable {
        var uuid: UUID
        var activityType: UInt
        var startDate: Date
        var endDate: Date?
        var metadata: [String: MetadataPayload]
        var statistics: [String: QuantityPayload]
    }

    struct WorkoutPayload: Codable {
        var activityType: UInt
        var events: [EventPayload]
        var activities: [ActivityPayload]
        var statistics: [String: QuantityPayload]
    }

    struct PrismPayload: Codable {
        var amount: Double
        var angle: Double
        var verticalAmount: Double
        var verticalBase: Int
        var horizontalAmount: Double
        var horizontalBase: Int
        var eye: Int
    }

    struct LensPayload: Codable {
        var sphere: Double?
        var cylinder: Double?
        var axis: Double?
        var addPower: Double?
        var vertexDistance: Double?
        var prism: PrismPayload?
        var farPupillaryDistance: Double?
        var nearPupillaryDistance: Double?
        var baseCurve: Double?
        var diameter: Double?
    }

    struct PrescriptionPayload: Codable {
        var prescriptionType: Int
        var dateIssued: Date
        var expirationDate: Date?
        var rightEye: LensPayload?
        var leftEye: LensPayload?
        var brand: String?
    }

    struct DocumentPayload: Codable {
        var contentType: String
        var data: Data
        var title: String?
    }

    // MARK: Encoding

    static func encode(_ value: SampleValue) throws -> [UInt8]? {
        if case .quantity = value { return nil }
        if case .category = value { return nil }
        if case .correlation = value { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        switch value {
        case .quantity, .category, .correlation:
            return nil
        case .workout(let workout):
            return Array(try encoder.encode(payload(workout)))
        case .visionPrescription(let prescription):
            return Array(try encoder.encode(payload(prescription)))
        case .document(let document):
            return Array(
                try encoder.encode(
                    DocumentPayload(contentType: document.contentType, data: document.data, title: document.title)))
        }
    }

    static func payload(_ quantity: Quantity) -> QuantityPayload {
        QuantityPayload(value: quantity.value, unit: quantity.unit.description)
    }

    static func payload(_ value: MetadataValue) -> MetadataPayload {
        switch value {
        case .string(let text): .string(text)
        case .number(let number): .number(number)
        case .bool(let flag): .bool(flag)
        case .date(let date): .date(date)
        case .quantity(let quantity): .quantity(payload(quantity))
        }
    }

    static func payload(_ metadata: [String: MetadataValue]) -> [String: MetadataPayload] {
        metadata.mapValues { payload($0) }
    }

    static func payload(_ statistics: [TypeIdentifier: Quantity]) -> [String: QuantityPayload] {
        Dictionary(uniqueKeysWithValues: statistics.map { ($0.key.rawValue, payload($0.value)) })
    }

    static func payload(_ workout: Workout) -> WorkoutPayload {
        WorkoutPayload(
            activityType: workout.activityType,
            events: workout.events.map {
                EventPayload(type: $0.type, startDate: $0.startDate, endDate: $0.endDate, metadata: payload($0.metadata))
            },
            activities: workout.activities.map {
                ActivityPayload(
                    uuid: $0.uuid, activityType: $0.activityType, startDate: $0.startDate, endDate: $0.endDate,
                    metadata: payload($0.metadata), statistics: payload($0.statistics))
            },
            statistics: payload(workout.statistics))
    }

    static func payload(_ lens: LensSpecification) -> LensPayload {
        LensPayload(
            sphere: lens.sphere, cylinder: lens.cylinder, axis: lens.axis, addPower: lens.addPower,
            vertexDistance: lens.vertexDistance,
            prism: lens.prism.map {
                PrismPayload(
                    amount: $0.amount, angle: $0.angle, verticalAmount: $0.verticalAmount,
                    verticalBase: $0.verticalBase, horizontalAmount: $0.horizontalAmount,
                    horizontalBase: $0.horizontalBase, eye: $0.eye)
            },
            farPupillaryDistance: lens.farPupillaryDistance, nearPupillaryDistance: lens.nearPupillaryDistance,
            baseCurve: lens.baseCurve, diameter: lens.diameter)
    }

    static func payload(_ prescription: VisionPrescription) -> PrescriptionPayload {
        PrescriptionPayload(
            prescriptionType: prescription.prescriptionType.rawValue, dateIssued: prescription.dateIssued,
            expirationDate: prescription.expirationDate, rightEye: prescription.rightEye.map { payload($0) },
            leftEye: prescription.leftEye.map { payload($0) }, brand: prescription.brand)
    }

    // MARK: Decoding

    static func quantity(_ payload: QuantityPayload) throws -> Quantity {
        Quantity(value: payload.value, unit: try SalusUnit(parsing: payload.unit))
    }

    static func metadata(_ payload: [String: MetadataPayload]) throws -> [String: MetadataValue] {
        try payload.mapValues { value in
            switch value {
            case .string(let text): .string(text)
            case .number(let number): .number(number)
            case .bool(let flag): .bool(flag)
            case .date(let date): .date(date)
            case .quantity(let quantity): .quantity(try self.quantity(quantity))
            }
        }
    }

    static func statistics(_ payload: [String: QuantityPayload]) throws -> [TypeIdentifier: Quantity] {
        Dictionary(uniqueKeysWithValues: try payload.map { (TypeIdentifier($0.key), try quantity($0.value)) })
    }

    static func decode(kind: ObjectKind, bytes: [UInt8]) throws -> SampleValue {
        let decoder = JSONDecoder()
        let data = Data(bytes)
        switch kind {
        case .workout:
            let payload = try decoder.decode(WorkoutPayload.self, from: data)
            return .workout(
                Workout(
                    activityType: payload.activityType,
                    events: try payload.events.map {
                        WorkoutEvent(
                            type: $0.type, startDate: $0.startDate, endDate: $0.endDate,
                            metadata: try metadata($0.metadata))
                    },
                    activities: try payload.activities.map {
                        WorkoutActivity(
                            uuid: $0.uuid, activityType: $0.activityType, startDate: $0.startDate,
                            endDate: $0.endDate, metadata: try metadata($0.metadata),
                            statistics: try statistics($0.statistics))
                    },
                    statistics: try statistics(payload.statistics)))
        case .visionPrescription:
            let payload = try decoder.decode(PrescriptionPayload.self, from: data)
            func lens(_ lens: LensPayload?) -> LensSpecification? {
                guard let lens else { return nil }
                return LensSpecification(
                    sphere: lens.sphere, cylinder: lens.cylinder, axis: lens.axis, addPower: lens.addPower,
                    vertexDistance: lens.vertexDistance,
                    prism: lens.prism.map {
                        VisionPrism(
                            amount: $0.amount, angle: $0.angle, verticalAmount: $0.verticalAmount,
                            verticalBase: $0.verticalBase, horizontalAmount: $0.horizontalAmount,
                            horizontalBase: $0.horizontalBase, eye: $0.eye)
                    },
                    farPupillaryDistance: lens.farPupillaryDistance,
                    nearPupillaryDistance: lens.nearPupillaryDistance, baseCurve: lens.baseCurve,
                    diameter: lens.diameter)
            }
            return .visionPrescription(
                VisionPrescription(
                    prescriptionType: VisionPrescription.PrescriptionType(rawValue: payload.prescriptionType)
                        ?? .glasses,
                    dateIssued: payload.dateIssued, expirationDate: payload.expirationDate,
                    rightEye: lens(payload.rightEye), leftEye: lens(payload.leftEye), brand: payload.brand))
        case .document:
            let payload = try decoder.decode(DocumentPayload.self, from: data)
            return .document(ClinicalDocument(contentType: payload.contentType, data: payload.data, title: payload.title))
        case .quantity, .category, .characteristic, .correlation:
            throw StoreError(code: .database, message: "a \(kind.rawValue) sample has no payload")
        }
    }
}

/// The integer codes the schema uses for object kinds and metadata value types.
enum StoredCodes {
    static func kind(_ kind: ObjectKind) -> Int64 {
        switch kind {
        case .quantity: 0
        case .category: 1
        case .workout: 2
        case .visionPrescription: 3
        case .document: 4
        case .characteristic: 5
        // The wire's OBJECT_KIND_CORRELATION: kinds added later take their wire numbers too, so
        // codes stay unique whatever order the kinds were added in.
        case .correlation: 7
        }
    }

    static func kind(code: Int64) -> ObjectKind? {
        switch code {
        case 0: .quantity
        case 1: .category
        case 2: .workout
        case 3: .visionPrescription
        case 4: .document
        case 5: .characteristic
        case 7: .correlation
        default: nil
        }
    }
}
