import Foundation
import SalusModel
import SalusProto

extension Workout {
    package init(wire: Salus_V1_Workout, path: String) throws(ValidationError) {
        var events: [WorkoutEvent] = []
        for (index, event) in wire.events.enumerated() {
            events.append(WorkoutEvent(
                type: Int(event.type),
                startDate: WireDate.date(event.startDate),
                endDate: WireDate.date(event.endDate),
                metadata: try MetadataValue.dictionary(wire: event.metadata, path: "\(path).events[\(index)].metadata")
            ))
        }
        var activities: [WorkoutActivity] = []
        for (index, activity) in wire.activities.enumerated() {
            let activityPath = "\(path).activities[\(index)]"
            var uuid = UUID()
            if !activity.uuid.isEmpty {
                guard let given = WireUUID.uuid(activity.uuid) else {
                    throw ValidationError(reason: .invalidValue, field: "\(activityPath).uuid", value: "\(activity.uuid.count) bytes", expected: "16 bytes")
                }
                uuid = given
            }
            activities.append(WorkoutActivity(
                uuid: uuid,
                activityType: UInt(activity.activityType),
                configuration: try WorkoutConfiguration(wire: activity.configuration, path: "\(activityPath).configuration"),
                startDate: WireDate.date(activity.startDate),
                endDate: activity.optionalEndDate != nil ? WireDate.date(activity.endDate) : nil,
                metadata: try MetadataValue.dictionary(wire: activity.metadata, path: "\(activityPath).metadata"),
                statistics: try Self.statistics(activity.statistics, path: "\(activityPath).statistics")
            ))
            activities[activities.count - 1].allStatistics = try Self.allStatistics(
                activity.allStatistics, path: "\(activityPath).allStatistics")
        }
        self.init(
            activityType: UInt(wire.activityType),
            configuration: try WorkoutConfiguration(wire: wire.configuration, path: "\(path).configuration"),
            events: events,
            activities: activities,
            statistics: try Self.statistics(wire.statistics, path: "\(path).statistics")
        )
        allStatistics = try Self.allStatistics(wire.allStatistics, path: "\(path).allStatistics")
        if wire.optionalRecordedDuration != nil { recordedDuration = wire.recordedDuration }
    }

    static func allStatistics(
        _ wire: [String: Salus_V1_WorkoutStatistics], path: String
    ) throws(ValidationError) -> [TypeIdentifier: WorkoutStatistics] {
        var result: [TypeIdentifier: WorkoutStatistics] = [:]
        for (type, statistics) in wire {
            let field = "\(path).\(type)"
            var figures = WorkoutStatistics(
                sum: statistics.hasSum ? try Quantity(wire: statistics.sum, path: "\(field).sum") : nil,
                average: statistics.hasAverage ? try Quantity(wire: statistics.average, path: "\(field).average") : nil,
                minimum: statistics.hasMinimum ? try Quantity(wire: statistics.minimum, path: "\(field).minimum") : nil,
                maximum: statistics.hasMaximum ? try Quantity(wire: statistics.maximum, path: "\(field).maximum") : nil)
            figures.fromSamples = statistics.fromSamples
            result[TypeIdentifier(rawValue: type)] = figures
        }
        return result
    }

    static func wire(_ all: [TypeIdentifier: WorkoutStatistics]) -> [String: Salus_V1_WorkoutStatistics] {
        Dictionary(uniqueKeysWithValues: all.map { type, statistics in
            var wire = Salus_V1_WorkoutStatistics()
            if let sum = statistics.sum { wire.sum = sum.wire }
            if let average = statistics.average { wire.average = average.wire }
            if let minimum = statistics.minimum { wire.minimum = minimum.wire }
            if let maximum = statistics.maximum { wire.maximum = maximum.wire }
            wire.fromSamples = statistics.fromSamples
            return (type.rawValue, wire)
        })
    }

    static func statistics(_ wire: [String: Salus_V1_Quantity], path: String) throws(ValidationError) -> [TypeIdentifier: Quantity] {
        var result: [TypeIdentifier: Quantity] = [:]
        for (type, quantity) in wire {
            result[TypeIdentifier(rawValue: type)] = try Quantity(wire: quantity, path: "\(path).\(type)")
        }
        return result
    }

    /// The wire form; `duration` (the recorded one, else seconds not paused) is set when the
    /// workout's dates are given.
    package func wire(start: Date? = nil, end: Date? = nil) -> Salus_V1_Workout {
        var wire = Salus_V1_Workout()
        wire.activityType = UInt32(clamping: activityType)
        wire.configuration = configuration.wire
        if let start, let end { wire.duration = duration(from: start, to: end) }
        if let recordedDuration { wire.recordedDuration = recordedDuration }
        wire.events = events.map { event in
            var wireEvent = Salus_V1_WorkoutEvent()
            wireEvent.type = Int32(clamping: event.type)
            wireEvent.startDate = WireDate.microseconds(event.startDate)
            wireEvent.endDate = WireDate.microseconds(event.endDate)
            wireEvent.metadata = event.metadata.mapValues(\.wire)
            return wireEvent
        }
        wire.activities = activities.map { activity in
            var wireActivity = Salus_V1_WorkoutActivity()
            wireActivity.uuid = WireUUID.bytes(activity.uuid)
            wireActivity.activityType = UInt32(clamping: activity.activityType)
            wireActivity.configuration = activity.configuration.wire
            if let end = activity.endDate { wireActivity.duration = activeDuration(from: activity.startDate, to: end) }
            wireActivity.startDate = WireDate.microseconds(activity.startDate)
            if let end = activity.endDate { wireActivity.endDate = WireDate.microseconds(end) }
            wireActivity.metadata = activity.metadata.mapValues(\.wire)
            wireActivity.statistics = Dictionary(uniqueKeysWithValues: activity.statistics.map { ($0.key.rawValue, $0.value.wire) })
            wireActivity.allStatistics = Self.wire(activity.allStatistics)
            return wireActivity
        }
        wire.statistics = Dictionary(uniqueKeysWithValues: statistics.map { ($0.key.rawValue, $0.value.wire) })
        wire.allStatistics = Self.wire(allStatistics)
        return wire
    }
}

extension WorkoutConfiguration {
    /// Reads a configuration; an unset location type (0) is unknown, other raw values outside
    /// HealthKit's enumerations are refused naming the field.
    package init(wire: Salus_V1_WorkoutConfiguration, path: String) throws(ValidationError) {
        let location = wire.locationType == 0 ? .unknown : WorkoutLocationType(rawValue: Int(wire.locationType))
        guard let location else {
            throw ValidationError(
                reason: .invalidValue, field: "\(path).locationType", value: "\(wire.locationType)",
                expected: "an HKWorkoutSessionLocationType raw value: 1 unknown, 2 indoor, 3 outdoor")
        }
        guard let swimming = WorkoutSwimmingLocationType(rawValue: Int(wire.swimmingLocationType)) else {
            throw ValidationError(
                reason: .invalidValue, field: "\(path).swimmingLocationType", value: "\(wire.swimmingLocationType)",
                expected: "an HKWorkoutSwimmingLocationType raw value: 0 unknown, 1 pool, 2 openWater")
        }
        self.init(
            locationType: location, swimmingLocationType: swimming,
            lapLength: wire.hasLapLength ? try Quantity(wire: wire.lapLength, path: "\(path).lapLength") : nil)
    }

    /// The wire form.
    package var wire: Salus_V1_WorkoutConfiguration {
        var wire = Salus_V1_WorkoutConfiguration()
        wire.locationType = Int32(locationType.rawValue)
        wire.swimmingLocationType = Int32(swimmingLocationType.rawValue)
        if let lapLength { wire.lapLength = lapLength.wire }
        return wire
    }
}

extension VisionPrescription: WireConvertibleValue {
    package init(wire: Salus_V1_VisionPrescription, path: String) throws(ValidationError) {
        guard let type = PrescriptionType(rawValue: Int(wire.prescriptionType)) else {
            throw ValidationError(
                reason: .invalidValue, field: "\(path).prescriptionType", value: "\(wire.prescriptionType)",
                expected: "1 (glasses) or 2 (contacts)"
            )
        }
        self.init(
            prescriptionType: type,
            dateIssued: WireDate.date(wire.dateIssued),
            expirationDate: wire.optionalExpirationDate != nil ? WireDate.date(wire.expirationDate) : nil,
            rightEye: wire.hasRightEye ? LensSpecification(wire: wire.rightEye) : nil,
            leftEye: wire.hasLeftEye ? LensSpecification(wire: wire.leftEye) : nil,
            brand: wire.optionalBrand != nil ? wire.brand : nil
        )
    }

    package var wire: Salus_V1_VisionPrescription {
        var wire = Salus_V1_VisionPrescription()
        wire.prescriptionType = Int32(prescriptionType.rawValue)
        wire.dateIssued = WireDate.microseconds(dateIssued)
        if let expirationDate { wire.expirationDate = WireDate.microseconds(expirationDate) }
        if let rightEye { wire.rightEye = rightEye.wire }
        if let leftEye { wire.leftEye = leftEye.wire }
        if let brand { wire.brand = brand }
        return wire
    }
}

extension LensSpecification {
    package init(wire: Salus_V1_LensSpecification) {
        self.init(
            sphere: wire.optionalSphere != nil ? wire.sphere : nil,
            cylinder: wire.optionalCylinder != nil ? wire.cylinder : nil,
            axis: wire.optionalAxis != nil ? wire.axis : nil,
            addPower: wire.optionalAddPower != nil ? wire.addPower : nil,
            vertexDistance: wire.optionalVertexDistance != nil ? wire.vertexDistance : nil,
            prism: wire.hasPrism ? VisionPrism(
                amount: wire.prism.amount,
                angle: wire.prism.angle,
                verticalAmount: wire.prism.verticalAmount,
                verticalBase: Int(wire.prism.verticalBase),
                horizontalAmount: wire.prism.horizontalAmount,
                horizontalBase: Int(wire.prism.horizontalBase),
                eye: Int(wire.prism.eye)
            ) : nil,
            farPupillaryDistance: wire.optionalFarPupillaryDistance != nil ? wire.farPupillaryDistance : nil,
            nearPupillaryDistance: wire.optionalNearPupillaryDistance != nil ? wire.nearPupillaryDistance : nil,
            baseCurve: wire.optionalBaseCurve != nil ? wire.baseCurve : nil,
            diameter: wire.optionalDiameter != nil ? wire.diameter : nil
        )
    }

    package var wire: Salus_V1_LensSpecification {
        var wire = Salus_V1_LensSpecification()
        if let sphere { wire.sphere = sphere }
        if let cylinder { wire.cylinder = cylinder }
        if let axis { wire.axis = axis }
        if let addPower { wire.addPower = addPower }
        if let vertexDistance { wire.vertexDistance = vertexDistance }
        if let prism {
            var wirePrism = Salus_V1_PrismValue()
            wirePrism.amount = prism.amount
            wirePrism.angle = prism.angle
            wirePrism.verticalAmount = prism.verticalAmount
            wirePrism.verticalBase = Int32(clamping: prism.verticalBase)
            wirePrism.horizontalAmount = prism.horizontalAmount
            wirePrism.horizontalBase = Int32(clamping: prism.horizontalBase)
            wirePrism.eye = Int32(clamping: prism.eye)
            wire.prism = wirePrism
        }
        if let farPupillaryDistance { wire.farPupillaryDistance = farPupillaryDistance }
        if let nearPupillaryDistance { wire.nearPupillaryDistance = nearPupillaryDistance }
        if let baseCurve { wire.baseCurve = baseCurve }
        if let diameter { wire.diameter = diameter }
        return wire
    }
}
