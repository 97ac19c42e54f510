import Foundation

extension Sample {
    /// The model's own rules, the first part of `TypeCatalog.check`: every rule this sample
    /// breaks that can be checked without the type's rules, in field
    /// order; empty when the sample is valid.
    ///
    /// Checked: a non-empty type; finite dates in the years 1 to 9999 (UTC) with start ≤ end; a finite quantity value;
    /// non-empty metadata keys with finite numbers and quantities, at most
    /// `Validation.maximumMetadataBytes` of them; the sync identifier (a string of at most
    /// `Validation.maximumSyncIdentifierBytes`) and sync version (a number) present together; a workout with at least one activity, events
    /// of a known type and activities that have ended, each with end ≥ start inside the workout,
    /// activities that do not overlap, of the workout's type (swimming, cycling, running or
    /// transition in a swimBikeRun workout), and a positive lap length; a prescription that does
    /// not expire before it is issued, a brand exactly for contacts, lenses with a sphere, finite
    /// values inside HealthKit's ranges (`LensSpecification.ranges`), no field of the other
    /// prescription type and a well-formed prism for the lens's own eye; an electrocardiogram with finite voltages inside the
    /// sample's interval, within ±1 V, at most `Electrocardiogram.maximumVoltageCount`, as many as it
    /// says, and a finite non-negative heart rate and a sampling frequency of 1 Hz to 100 kHz; an audiogram whose frequencies are positive and distinct, with finite
    /// sensitivities and clamping ranges of at least one bound, lower below upper; heartbeats
    /// strictly ascending inside the sample's interval; a valence in -1...1; a medication dose
    /// with its concept identifier, a scheduled date and dose exactly when scheduled, and
    /// non-negative quantities; a user-annotated medication with its concept identifier, display
    /// text and general form, each text at most `UserAnnotatedMedication.maximumTextBytes`; a scored assessment with one answer per question of its
    /// instrument (preferNotToAnswer only for PHQ-9's ninth), of the instrument its HealthKit
    /// type names; a correlation with at least one member, each a quantity or category sample
    /// that passes these rules itself (under `correlation.objects[i]`). Whether the category raw
    /// value, unit dimension or required metadata suit the type, and which member types a
    /// correlation type holds, is the registry's check; a clinical record whose FHIR data is a JSON
    /// object with a resourceType its type holds, a FHIR version, a source name and a finite
    /// received date; a workout route with 1 to `WorkoutRouteValue.maximumLocationCount`
    /// locations, as many as it says, each valid (`WorkoutRoute.validationErrors(at:)`); and the
    /// whole sample at most `Validation.maximumSampleBytes` as it is read back (`SampleSize`),
    /// named by its largest part. `path` prefixes every field path.
    package func validationErrors(at path: @autoclosure () -> String = "sample") -> [ValidationError] {
        var errors: [ValidationError] = []
        if type.rawValue.isEmpty {
            errors.append(
                ValidationError(
                    reason: .emptyTypeIdentifier, field: "\(path()).type", value: "\"\"",
                    expected: "a type identifier such as \"HKQuantityTypeIdentifierStepCount\""))
        }
        let dateErrors = Validation.dateRange(start: startDate, end: endDate, at: path())
        errors += dateErrors
        if case .quantity(let quantity) = value {
            errors += Validation.finite(quantity.value, at: "\(path()).quantity.value")
        } else if let rules = value.kindRules {
            // Each kind's own rules (SampleKindRules), under its field: "sample.audiogram".
            errors += rules.validationErrors(in: self, datesValid: dateErrors.isEmpty, at: "\(path()).\(value.kind.rawValue)")
        }
        errors += Validation.metadata(metadata, at: "\(path()).metadata")
        errors += Validation.syncKeys(metadata, at: "\(path()).metadata")
        if let error = SampleSize.error(of: self, at: path()) {
            errors.append(error)
        }
        return errors
    }
}

/// The individual rules, shared by samples, events and activities.
package enum Validation {
    static func render(_ date: Date) -> String {
        guard date.timeIntervalSinceReferenceDate.isFinite else { return "\(date.timeIntervalSinceReferenceDate)" }
        return date.formatted(Date.ISO8601FormatStyle(includingFractionalSeconds: true))
    }

    static func finite(_ value: Double, at field: @autoclosure () -> String) -> [ValidationError] {
        guard !value.isFinite else { return [] }
        return [ValidationError(reason: .nonFiniteValue, field: field(), value: "\(value)", expected: "a finite number")]
    }

    /// The dates a sample may carry, in seconds since 1970: 0001-01-01T00:00:00Z up to the end
    /// of 9999 (UTC), the years ISO 8601 and Apple Health's export write with four digits. A date
    /// outside can only be a mistake or an overflow (a recording of 10^9 voltages at 10^-300 Hz
    /// ends after the year 10^290), and would not survive an export.
    static let sampleDates: ClosedRange<Double> = -62_135_596_800...253_402_300_799.999_999

    static func dateRange(
        start: Date, end: Date, at path: @autoclosure () -> String, startName: String = "startDate",
        endName: String = "endDate"
    ) -> [ValidationError] {
        var errors: [ValidationError] = []
        for (name, date) in [(startName, start), (endName, end)] {
            if !date.timeIntervalSinceReferenceDate.isFinite {
                errors.append(
                    ValidationError(
                        reason: .nonFiniteValue, field: "\(path()).\(name)", value: render(date), expected: "a finite date"))
            } else if !sampleDates.contains(date.timeIntervalSince1970) {
                errors.append(
                    ValidationError(
                        reason: .invalidValue, field: "\(path()).\(name)", value: render(date),
                        expected: "a date in the years 1 to 9999 (UTC)"))
            }
        }
        if errors.isEmpty, end < start {
            errors.append(
                ValidationError(
                    reason: .invalidDateRange, field: "\(path()).\(endName)", value: render(end),
                    expected: "a date at or after \(startName) \(render(start))"))
        }
        return errors
    }

    /// The most bytes one metadata dictionary (a sample's, a workout event's or activity's) may
    /// hold, its keys and values together (`bytes(_:_:)`). Why: what the store accepts must come
    /// back, and a sample comes back in one frame of at most 4 MiB. A sample query's page ends
    /// once it holds 1 MiB of samples, so it holds at most 1 MiB plus its last sample, and an
    /// anchored page adds up to 2,000 deleted objects, each with a sync identifier of at most
    /// `maximumSyncIdentifierBytes` (about 2.4 MB); 1 MiB + 256 KiB + 2.4 MB leaves room under
    /// 4 MiB for the rest of the sample. Apple's metadata values are a few hundred bytes.
    package static let maximumMetadataBytes = 256 << 10

    /// The most bytes one sample may take as it is read back (`Sample.readBytes`, counted by
    /// `SampleSize`: every field of its `salus.v1.Sample`, a correlation's members and a
    /// workout's events and activities included, a document's and a clinical record's data
    /// too; not an electrocardiogram's voltages nor a route's locations, which are read by calls
    /// of their own): 512 KiB. Why: what the store accepts must come back, and every read
    /// answer is one frame of at most 4 MiB (`WireLimits.maxFramePayload`). A page of a read
    /// ends once its changes, samples and deleted objects alike, hold 1 MiB
    /// (`SampleWirePages.pageBytes`; `StoreReads.Cut` for anchored pages), so a frame carries at
    /// most 1 MiB less a byte and the change that reached it: this sample, with room left under
    /// 4 MiB for what a read adds beyond what is counted (a workout's statistics computed from
    /// its samples). Before deleted objects were weighed, an anchored page read with a limit
    /// could add up to 2,000 of them (about 1,170 bytes each with a sync identifier of
    /// `maximumSyncIdentifierBytes`, 2.34 MB) after the samples, which is what 512 KiB was
    /// chosen for. A CDA document or a FHIR resource of 512 KiB is about three times HL7's
    /// largest C-CDA example here (CCD_1.xml, 176 KB).
    package static let maximumSampleBytes = 512 << 10

    /// The most bytes (UTF-8) of a sync identifier (`HKMetadataKeySyncIdentifier`). It is
    /// stored in its own indexed column and kept by the sample's deleted object, and an
    /// anchored page carries up to 2,000 deleted objects in one frame (see
    /// `maximumMetadataBytes`); an import's identifiers are about 100 bytes.
    package static let maximumSyncIdentifierBytes = 1_024

    /// The bytes a metadata entry counts for against `maximumMetadataBytes`: its key's UTF-8
    /// bytes and its value's (a string's UTF-8 bytes, 8 for a number or a date, 1 for a
    /// boolean, 8 and its unit's text for a quantity).
    package static func bytes(_ key: String, _ value: MetadataValue) -> Int {
        let valueBytes =
            switch value {
            case .string(let text): text.utf8.count
            case .number, .date: 8
            case .bool: 1
            case .quantity(let quantity): 8 + quantity.unit.description.utf8.count
            }
        return key.utf8.count + valueBytes
    }

    static func metadata(_ metadata: [String: MetadataValue], at path: @autoclosure () -> String) -> [ValidationError] {
        var errors: [ValidationError] = []
        if metadata.isEmpty { return errors }
        var total = 0
        var largest: (key: String, bytes: Int) = ("", 0)
        for (key, value) in metadata {
            let size = bytes(key, value)
            total += size
            if size > largest.bytes { largest = (key, size) }
        }
        if total > maximumMetadataBytes {
            let expected = "at most \(maximumMetadataBytes) bytes of metadata, keys and values together, so that the sample "
                + "can be read back in one frame"
            if largest.bytes > maximumMetadataBytes {
                errors.append(
                    ValidationError(
                        reason: .valueOutOfRange, field: "\(path()).\(largest.key)", value: "\(largest.bytes) bytes",
                        expected: expected))
            } else {
                errors.append(
                    ValidationError(
                        reason: .valueOutOfRange, field: path(), value: "\(total) bytes in \(metadata.count) entries",
                        expected: expected))
            }
        }
        // Most samples' metadata breaks no rule: the keys are sorted (the errors come in their
        // order) only when one does, and each value is read where it lies, not looked up again.
        guard metadata.contains(where: { key, value in key.isEmpty || !isFinite(value) }) else { return errors }
        for key in metadata.keys.sorted() {
            func field() -> String { "\(path()).\(key)" }
            if key.isEmpty {
                errors.append(
                    ValidationError(
                        reason: .emptyMetadataKey, field: field(), value: "\"\"",
                        expected: "a non-empty key such as \"HKTimeZone\" or \"org.example.note\""))
            }
            switch metadata[key]! {
            case .number(let number):
                errors += finite(number, at: field())
            case .quantity(let quantity):
                errors += finite(quantity.value, at: field())
            case .date(let date) where !date.timeIntervalSinceReferenceDate.isFinite:
                errors.append(
                    ValidationError(
                        reason: .nonFiniteValue, field: field(), value: render(date), expected: "a finite date"))
            default:
                break
            }
        }
        return errors
    }

    /// Whether a metadata value's number, quantity or date is finite (other values are).
    static func isFinite(_ value: MetadataValue) -> Bool {
        switch value {
        case .number(let number): number.isFinite
        case .quantity(let quantity): quantity.value.isFinite
        case .date(let date): date.timeIntervalSinceReferenceDate.isFinite
        default: true
        }
    }

    /// The most keys read one by one rather than looked up: comparing a few keys costs less than
    /// hashing the two sync keys (an import's samples carry those two and little else).
    static let scannedMetadataKeys = 8

    static func syncKeys(_ metadata: [String: MetadataValue], at path: @autoclosure () -> String) -> [ValidationError] {
        if metadata.isEmpty { return [] }
        var identifier: MetadataValue?
        var version: MetadataValue?
        if metadata.count <= scannedMetadataKeys {
            for (key, value) in metadata {
                if key == MetadataKey.syncIdentifier {
                    identifier = value
                } else if key == MetadataKey.syncVersion {
                    version = value
                }
            }
        } else {
            identifier = metadata[MetadataKey.syncIdentifier]
            version = metadata[MetadataKey.syncVersion]
        }
        func identifierField() -> String { "\(path()).\(MetadataKey.syncIdentifier)" }
        func versionField() -> String { "\(path()).\(MetadataKey.syncVersion)" }
        var errors: [ValidationError] = []
        if let identifier, identifier.type != .string {
            errors.append(
                ValidationError(
                    reason: .invalidMetadataValue, field: identifierField(), value: "\(identifier) (\(identifier.type))",
                    expected: "a string"))
        } else if case .string(let text)? = identifier, text.utf8.count > maximumSyncIdentifierBytes {
            errors.append(
                ValidationError(
                    reason: .valueOutOfRange, field: identifierField(), value: "\(text.utf8.count) bytes",
                    expected: "at most \(maximumSyncIdentifierBytes) bytes (UTF-8)"))
        }
        if let version, version.type != .number {
            errors.append(
                ValidationError(
                    reason: .invalidMetadataValue, field: versionField(), value: "\(version) (\(version.type))",
                    expected: "a number"))
        }
        if let identifier, version == nil {
            errors.append(
                ValidationError(
                    reason: .missingSyncVersion, field: versionField(), value: "nil",
                    expected: "a sync version number, required with sync identifier \(identifier)"))
        }
        if let version, identifier == nil {
            errors.append(
                ValidationError(
                    reason: .missingSyncIdentifier, field: identifierField(), value: "nil",
                    expected: "a sync identifier string, required with sync version \(version)"))
        }
        return errors
    }

    /// A workout's own rules (docs/workouts.md): at least one activity; events of a known type
    /// inside the workout, end ≥ start; activities that have ended, lie inside the workout and do
    /// not overlap; a swimBikeRun workout's activities swimming, cycling, running or transition,
    /// any other workout's of the workout's own type; a lap length that is a positive length.
    /// `start` and `end` are the workout sample's dates (nil when they are not a valid range).
    static func workout(_ workout: Workout, start: Date?, end: Date?, at path: String) -> [ValidationError] {
        var errors: [ValidationError] = []
        errors += configuration(workout.configuration, at: "\(path).configuration")
        if let recorded = workout.recordedDuration {
            let interval = start.flatMap { start in end.map { $0.timeIntervalSince(start) } }
            if !recorded.isFinite || recorded < 0 || (interval.map { recorded > $0 + Workout.recordedDurationSlack } ?? false) {
                errors.append(
                    ValidationError(
                        reason: recorded.isFinite ? .valueOutOfRange : .nonFiniteValue, field: "\(path).recordedDuration",
                        value: "\(recorded) s",
                        expected: "0 to the workout's \(interval.map { "\($0)" } ?? "") s from start to end "
                            + "(a second more for the fraction its whole-second dates leave out)"))
            }
        }
        for (index, event) in workout.events.enumerated() {
            let eventPath = "\(path).events[\(index)]"
            if WorkoutEventType(rawValue: event.type) == nil {
                errors.append(
                    ValidationError(
                        reason: .invalidValue, field: "\(eventPath).type", value: "\(event.type)",
                        expected: "an HKWorkoutEventType raw value: \(WorkoutEventType.allowedDescription)"))
            }
            let eventDates = dateRange(start: event.startDate, end: event.endDate, at: eventPath)
            errors += eventDates
            if eventDates.isEmpty {
                errors += inside(event.startDate, event.endDate, start: start, end: end, at: eventPath, what: "an event")
            }
            errors += metadata(event.metadata, at: "\(eventPath).metadata")
        }
        if workout.activities.isEmpty {
            errors.append(
                ValidationError(
                    reason: .missingValue, field: "\(path).activities", value: "no activities",
                    expected: "at least one activity (a save adds one spanning the workout when none is given)"))
        }
        let multisport = workout.activityType == WorkoutActivityType.swimBikeRun
        for (index, activity) in workout.activities.enumerated() {
            let activityPath = "\(path).activities[\(index)]"
            if multisport && !WorkoutActivityType.multisportLegs.contains(activity.activityType) {
                errors.append(
                    ValidationError(
                        reason: .invalidValue, field: "\(activityPath).activityType", value: "\(activity.activityType)",
                        expected: "46 (swimming), 13 (cycling), 37 (running) or 83 (transition): "
                            + "the activities of a swimBikeRun (82) workout"))
            } else if !multisport && activity.activityType != workout.activityType {
                errors.append(
                    ValidationError(
                        reason: .invalidValue, field: "\(activityPath).activityType", value: "\(activity.activityType)",
                        expected: "\(workout.activityType), the workout's activity type: only a swimBikeRun (82) "
                            + "workout's activities have other types"))
            }
            errors += configuration(activity.configuration, at: "\(activityPath).configuration")
            guard let activityEnd = activity.endDate else {
                errors.append(
                    ValidationError(
                        reason: .missingValue, field: "\(activityPath).endDate", value: "nil",
                        expected: "the date the activity ended: a saved workout's activities have ended"))
                errors += metadata(activity.metadata, at: "\(activityPath).metadata")
                continue
            }
            let activityDates = dateRange(start: activity.startDate, end: activityEnd, at: activityPath)
            errors += activityDates
            if activityDates.isEmpty {
                errors += inside(activity.startDate, activityEnd, start: start, end: end, at: activityPath, what: "an activity")
            }
            errors += metadata(activity.metadata, at: "\(activityPath).metadata")
        }
        let ordered = workout.activities.enumerated().sorted { $0.element.startDate < $1.element.startDate }
        for (previous, next) in zip(ordered, ordered.dropFirst()) {
            let previousEnd = previous.element.endDate ?? .distantFuture
            if next.element.startDate < previousEnd {
                errors.append(
                    ValidationError(
                        reason: .overlappingActivities, field: "\(path).activities[\(next.offset)].startDate",
                        value: render(next.element.startDate),
                        expected: "a start at or after the end of activities[\(previous.offset)]"
                            + (previous.element.endDate.map { " (\(render($0)))" } ?? ", which has not ended")))
            }
        }
        return errors
    }

    /// A span of a workout (event, activity) lies inside the workout's `start`...`end`.
    private static func inside(
        _ spanStart: Date, _ spanEnd: Date, start: Date?, end: Date?, at path: String, what: String
    ) -> [ValidationError] {
        guard let start, let end else { return [] }
        var errors: [ValidationError] = []
        if spanStart < start {
            errors.append(
                ValidationError(
                    reason: .outsideWorkout, field: "\(path).startDate", value: render(spanStart),
                    expected: "a date at or after the workout's startDate \(render(start)): \(what) lies inside its workout"))
        }
        if spanEnd > end {
            errors.append(
                ValidationError(
                    reason: .outsideWorkout, field: "\(path).endDate", value: render(spanEnd),
                    expected: "a date at or before the workout's endDate \(render(end)): \(what) lies inside its workout"))
        }
        return errors
    }

    /// A configuration's lap length is a finite, positive length.
    static func configuration(_ configuration: WorkoutConfiguration, at path: String) -> [ValidationError] {
        guard let lap = configuration.lapLength else { return [] }
        let field = "\(path).lapLength"
        guard lap.unit.isCompatible(with: .meter) else {
            return [
                ValidationError(
                    reason: .invalidUnit, field: field, value: "\(lap)",
                    expected: "a length, like 25 m or 25 yd, not one of \(lap.unit.dimension)")
            ]
        }
        guard lap.value.isFinite else { return finite(lap.value, at: "\(field).value") }
        guard lap.value > 0 else {
            return [
                ValidationError(
                    reason: .valueOutOfRange, field: field, value: "\(lap)", expected: "a length above 0, like 25 m")
            ]
        }
        return []
    }

    /// A correlation's own rules: members exist, are quantity or category samples, and each
    /// passes the model's rules itself.
    static func correlation(_ correlation: Correlation, at path: String) -> [ValidationError] {
        guard !correlation.objects.isEmpty else {
            return [
                ValidationError(
                    reason: .missingValue, field: "\(path).objects", value: "no samples",
                    expected: "at least one quantity or category sample")
            ]
        }
        var errors: [ValidationError] = []
        for (index, member) in correlation.objects.enumerated() {
            let memberPath = "\(path).objects[\(index)]"
            guard member.kind == .quantity || member.kind == .category else {
                errors.append(
                    ValidationError(
                        reason: .wrongKind, field: "\(memberPath).value", value: member.kind.valueName,
                        expected: "a quantity or category sample: a correlation groups only those"))
                continue
            }
            errors += member.validationErrors(at: memberPath)
        }
        return errors
    }

    static func prescription(_ prescription: VisionPrescription, at path: String) -> [ValidationError] {
        var errors: [ValidationError] = []
        if let expiration = prescription.expirationDate {
            errors += dateRange(
                start: prescription.dateIssued, end: expiration, at: path, startName: "dateIssued",
                endName: "expirationDate")
        }
        switch prescription.prescriptionType {
        case .contacts:
            if (prescription.brand ?? "").trimmingCharacters(in: .whitespaces).isEmpty {
                errors.append(
                    ValidationError(
                        reason: .missingValue, field: "\(path).brand",
                        value: prescription.brand.map { "\"\($0)\"" } ?? "none",
                        expected: "the contact lens brand: a contacts prescription requires one"))
            }
        case .glasses:
            if let brand = prescription.brand {
                errors.append(
                    ValidationError(
                        reason: .invalidValue, field: "\(path).brand", value: "\"\(brand)\"",
                        expected: "no brand: only a contacts prescription has one"))
            }
        }
        for (eye, raw, lens) in [
            ("rightEye", VisionPrescription.Eye.right, prescription.rightEye),
            ("leftEye", VisionPrescription.Eye.left, prescription.leftEye),
        ] {
            guard let lens else { continue }
            errors += Validation.lens(lens, eye: raw, type: prescription.prescriptionType, at: "\(path).\(eye)")
        }
        return errors
    }

    /// One eye's lens: sphere required, every value finite and inside HealthKit's documented
    /// range, the fields of the other prescription type absent, the prism well formed.
    static func lens(
        _ lens: LensSpecification, eye: VisionPrescription.Eye, type: VisionPrescription.PrescriptionType,
        at path: String
    ) -> [ValidationError] {
        var errors: [ValidationError] = []
        for (name, value) in lens.numericFields {
            if let value { errors += finite(value, at: "\(path).\(name)") }
        }
        guard errors.isEmpty else { return errors }
        if lens.sphere == nil {
            errors.append(
                ValidationError(
                    reason: .missingValue, field: "\(path).sphere", value: "none",
                    expected: "a sphere in diopters: every lens specification requires one"))
        }
        let otherKind: [(String, Bool)]
        switch type {
        case .glasses:
            otherKind = [("baseCurve", lens.baseCurve != nil), ("diameter", lens.diameter != nil)]
        case .contacts:
            otherKind = [
                ("vertexDistance", lens.vertexDistance != nil), ("prism", lens.prism != nil),
                ("farPupillaryDistance", lens.farPupillaryDistance != nil),
                ("nearPupillaryDistance", lens.nearPupillaryDistance != nil),
            ]
        }
        for (name, present) in otherKind where present {
            let owner = type == .glasses ? "contacts" : "glasses"
            errors.append(
                ValidationError(
                    reason: .invalidValue, field: "\(path).\(name)",
                    value: name == "prism" ? "a prism" : "\(lens.numericFields.first { $0.0 == name }?.1 ?? 0)",
                    expected: "no \(name) on a \(type == .glasses ? "glasses" : "contacts") lens: it belongs to a \(owner) lens"))
        }
        for range in LensSpecification.ranges {
            guard let value = lens.numericFields.first(where: { $0.0 == range.field })?.1 else { continue }
            if !range.bounds.contains(value) {
                errors.append(
                    ValidationError(
                        reason: .valueOutOfRange, field: "\(path).\(range.field)", value: "\(value) \(range.unit)",
                        expected: range.expected))
            }
        }
        if let prism = lens.prism {
            errors += Validation.prism(prism, eye: eye, at: "\(path).prism")
        }
        return errors
    }

    /// A prism: finite, non-negative amounts, an angle in 0..<360 degrees, bases that are
    /// HealthKit's `HKPrismBase` values for their direction (required when the component is not
    /// zero), and the eye of the lens that holds it.
    static func prism(_ prism: VisionPrism, eye: VisionPrescription.Eye, at path: String) -> [ValidationError] {
        var errors: [ValidationError] = []
        let numbers = [
            ("amount", prism.amount), ("angle", prism.angle), ("verticalAmount", prism.verticalAmount),
            ("horizontalAmount", prism.horizontalAmount),
        ]
        for (name, value) in numbers { errors += finite(value, at: "\(path).\(name)") }
        guard errors.isEmpty else { return errors }
        for (name, value) in numbers where name != "angle" && value < 0 {
            errors.append(
                ValidationError(
                    reason: .valueOutOfRange, field: "\(path).\(name)", value: "\(value) prismDiopter",
                    expected: "a prism amount of 0 or more prism diopters"))
        }
        if !(0..<360).contains(prism.angle) {
            errors.append(
                ValidationError(
                    reason: .valueOutOfRange, field: "\(path).angle", value: "\(prism.angle) deg",
                    expected: "a base direction from 0 up to (not including) 360 degrees"))
        }
        let vertical: Set<Int> = prism.verticalAmount > 0 ? [1, 2] : [0, 1, 2]
        if !vertical.contains(prism.verticalBase) {
            errors.append(
                ValidationError(
                    reason: .invalidValue, field: "\(path).verticalBase", value: "\(prism.verticalBase)",
                    expected: prism.verticalAmount > 0
                        ? "1 (up) or 2 (down) for a vertical amount of \(prism.verticalAmount)"
                        : "0 (none), 1 (up) or 2 (down)"))
        }
        let horizontal: Set<Int> = prism.horizontalAmount > 0 ? [3, 4] : [0, 3, 4]
        if !horizontal.contains(prism.horizontalBase) {
            errors.append(
                ValidationError(
                    reason: .invalidValue, field: "\(path).horizontalBase", value: "\(prism.horizontalBase)",
                    expected: prism.horizontalAmount > 0
                        ? "3 (in) or 4 (out) for a horizontal amount of \(prism.horizontalAmount)"
                        : "0 (none), 3 (in) or 4 (out)"))
        }
        if prism.eye != eye.rawValue {
            errors.append(
                ValidationError(
                    reason: .invalidValue, field: "\(path).eye", value: "\(prism.eye)",
                    expected: "\(eye.rawValue) (\(eye)), the eye of the lens that holds the prism"))
        }
        return errors
    }
}

// The older kinds' rules, kept beside the functions above; a new kind declares its rules in its
// own file (`SampleKindRules`).

extension Workout: SampleKindRules {
    package func validationErrors(in sample: Sample, datesValid: Bool, at path: String) -> [ValidationError] {
        Validation.workout(self, start: datesValid ? sample.startDate : nil, end: datesValid ? sample.endDate : nil, at: path)
    }
}

extension Correlation: SampleKindRules {
    package func validationErrors(in sample: Sample, datesValid: Bool, at path: String) -> [ValidationError] {
        Validation.correlation(self, at: path)
    }
}

extension VisionPrescription: SampleKindRules {
    package func validationErrors(in sample: Sample, datesValid: Bool, at path: String) -> [ValidationError] {
        Validation.prescription(self, at: path)
    }
}

extension ClinicalDocument: SampleKindRules {
    /// None of the model's: a document's content is checked when the daemon reads it.
    package func validationErrors(in sample: Sample, datesValid: Bool, at path: String) -> [ValidationError] { [] }
}
