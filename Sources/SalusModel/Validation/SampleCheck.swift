import Foundation

extension TypeCatalog {
    /// Checks `samples` against every rule: the model's own (dates, finite numbers, sync keys,
    /// workouts, prescriptions, the other kinds' values, correlations' members), then what each
    /// sample's type declares (kind, unit dimension, bounds, enumeration, workout activity types
    /// and statistics, required and typed metadata, read-only; a correlation's members each as a
    /// sample of its type, and the member types its correlation type holds), then the owning
    /// plugin's validator. Throws the first error, whose field path
    /// starts with `path[index]` ("samples[3].quantity.unit").
    ///
    /// This is the one check a sample passes before it is saved; the store persists what it is
    /// given and decides only what needs the database (unique UUIDs, sync identifiers).
    /// `allowReadOnly` lets the owner's imports write types apps may not.
    package func check(_ samples: [Sample], at path: String = "samples", allowReadOnly: Bool = false) throws(ValidationError) {
        // By index: each sample is read in place, not copied out of the array.
        for index in samples.indices {
            // The path is written only when there is an error to name (most batches have none).
            if let first = validationErrors(of: samples[index], at: "\(path)[\(index)]", allowReadOnly: allowReadOnly).first {
                throw first
            }
        }
    }

    /// Every rule `sample` breaks (see `check(_:at:allowReadOnly:)`), in field order; the plugin's
    /// validator runs only when every declared rule passed. Empty when the sample is acceptable.
    package func validationErrors(
        of sample: Sample, at path: @autoclosure () -> String = "sample", allowReadOnly: Bool = false
    ) -> [ValidationError] {
        let modelErrors = sample.validationErrors(at: path())
        let declared = declaredErrors(of: sample, at: path(), allowReadOnly: allowReadOnly, modelRulesPassed: modelErrors.isEmpty)
        return modelErrors.isEmpty ? declared : modelErrors + declared
    }

    /// What `sample`'s type declares, then the owning plugin's validator when `modelRulesPassed`
    /// and every declared rule passed; a correlation's members are checked here as samples of
    /// their own types, under `correlation.objects[i]`.
    private func declaredErrors(
        of sample: Sample, at path: @autoclosure () -> String, allowReadOnly: Bool, modelRulesPassed: Bool
    ) -> [ValidationError] {
        var errors: [ValidationError] = []
        if sample.type.rawValue.isEmpty { return errors }
        guard let rules = rules(for: sample.type) else {
            errors.append(ValidationError(
                reason: .unknownType, field: "\(path()).type", value: "\"\(sample.type)\"",
                expected: "a type identifier a loaded plugin declares"))
            return errors
        }
        if rules.kind == .characteristic || rules.kind != sample.kind {
            errors.append(ValidationError(
                reason: .wrongKind, field: "\(path()).value", value: sample.kind.valueName,
                expected: rules.kind == .characteristic
                    ? "a sample type; \(sample.type) is a characteristic (set, not saved as samples)"
                    : "a \(rules.kind.rawValue) value for \(sample.type)"))
            return errors
        }
        if rules.readOnlyForApps && !allowReadOnly {
            errors.append(ValidationError(
                reason: .readOnlyType, field: "\(path()).type", value: "\"\(sample.type)\"",
                expected: "a type apps may write; \(sample.type) is read-only"))
        }
        var canonicalValue: Double?
        switch sample.value {
        case .quantity(let quantity):
            canonicalValue = checkQuantity(quantity, rules: rules, at: "\(path()).quantity", errors: &errors)
        case .category(let raw):
            if !rules.cases.isEmpty && rules.case(rawValue: Int64(raw)) == nil {
                let allowed = rules.cases.map { "\($0.name) \($0.rawValue)" }.joined(separator: ", ")
                errors.append(ValidationError(
                    reason: .invalidCategoryValue, field: "\(path()).category.value", value: "\(raw)",
                    expected: "one of \(sample.type)'s values: \(allowed)"))
            }
        case .workout(let workout):
            errors += checkWorkout(workout, rules: rules, at: "\(path()).workout")
        case .correlation(let correlation):
            errors += checkCorrelation(correlation, of: sample.type, at: "\(path()).correlation", allowReadOnly: allowReadOnly)
        default:
            // Every other kind's own (SampleKindRules), under its field.
            if let kindRules = sample.value.kindRules {
                errors += kindRules.declaredErrors(rules: rules, at: "\(path()).\(sample.kind.rawValue)")
            }
        }
        errors += checkMetadata(sample.metadata, rules: rules, at: "\(path()).metadata")
        guard modelRulesPassed, errors.isEmpty, rules.validated, let validator = validators[rules.pluginID] else {
            return errors
        }
        // The validator gets the quantity in the canonical unit; the copy is made only for it.
        var canonical = sample
        if let canonicalValue, case .quantity(let quantity) = sample.value {
            canonical.value = .quantity(Quantity(value: canonicalValue, unit: rules.canonicalUnit ?? quantity.unit))
        }
        return validator.validationErrors(of: canonical, at: path())
    }

    /// The quantity's value in the canonical unit, or nil (with an error) when its unit has
    /// another dimension or the value lies outside the type's bounds.
    private func checkQuantity(
        _ quantity: Quantity, rules: TypeRules, at path: @autoclosure () -> String, errors: inout [ValidationError]
    ) -> Double? {
        guard let unit = rules.canonicalUnit else { return quantity.value }
        guard let value = try? quantity.doubleValue(for: unit) else {
            errors.append(ValidationError(
                reason: .invalidUnit, field: "\(path()).unit", value: "\(quantity.unit)",
                expected: "a unit of \(unit.dimension), like \(rules.identifier)'s canonical unit \(unit), "
                    + "not one of \(quantity.unit.dimension)"))
            return nil
        }
        if let bounds = rules.bounds, !bounds.contains(value) {
            errors.append(ValidationError(
                reason: .valueOutOfRange, field: "\(path()).value", value: "\(quantity)",
                expected: "a value in \(bounds.description) \(unit), the possible range of \(rules.identifier)"))
            return nil
        }
        return value
    }

    /// What the registry decides about a workout: registered activity types (the workout's and
    /// each activity's), typed metadata on events and activities (a lap's
    /// `HKSwimmingStrokeStyle` among its values), statistics of known quantity types in units of
    /// their dimension.
    private func checkWorkout(_ workout: Workout, rules workoutRules: TypeRules, at path: String) -> [ValidationError] {
        var errors: [ValidationError] = []
        func activityType(_ raw: UInt, at field: String) {
            if workoutActivityTypes[UInt32(clamping: raw)] == nil {
                errors.append(ValidationError(
                    reason: .invalidValue, field: field, value: "\(raw)",
                    expected: "a registered workout activity type raw value such as 37 (running)"))
            }
        }
        activityType(workout.activityType, at: "\(path).activityType")
        for (index, event) in workout.events.enumerated() {
            errors += checkMetadata(event.metadata, rules: workoutRules, at: "\(path).events[\(index)].metadata", checkRequired: false)
        }
        for (index, activity) in workout.activities.enumerated() {
            let activityPath = "\(path).activities[\(index)]"
            activityType(activity.activityType, at: "\(activityPath).activityType")
            errors += checkMetadata(activity.metadata, rules: workoutRules, at: "\(activityPath).metadata", checkRequired: false)
        }
        /// The first fault of a statistic of `type` (its type, unit or range), named `field`;
        /// `figure` prefixes the value ("minimum ").
        func statisticError(_ type: TypeIdentifier, _ quantity: Quantity, field: String, figure: String = "") -> ValidationError? {
            guard let statistic = rules(for: type), statistic.kind == .quantity, let unit = statistic.canonicalUnit else {
                return ValidationError(
                    reason: .unknownType, field: field, value: "\"\(type)\"", expected: "a quantity type a loaded plugin declares")
            }
            if !quantity.value.isFinite {
                return ValidationError(
                    reason: .nonFiniteValue, field: field, value: "\(figure)\(quantity.value)", expected: "a finite number")
            } else if !quantity.unit.isCompatible(with: unit) {
                return ValidationError(
                    reason: .invalidUnit, field: field, value: "\(figure)\(quantity)", expected: "a unit of \(unit.dimension), like \(unit)")
            } else if let bounds = statistic.bounds, let value = try? quantity.doubleValue(for: unit), !bounds.contains(value) {
                // A total (an average, a minimum, a maximum) of samples of the type lies in the
                // range one sample may hold.
                return ValidationError(
                    reason: .valueOutOfRange, field: field, value: "\(figure)\(quantity)",
                    expected: "a value in \(bounds.description) \(unit), the possible range of \(type)")
            }
            return nil
        }
        for (type, quantity) in workout.statistics.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            if let error = statisticError(type, quantity, field: "\(path).statistics.\(type)") { errors.append(error) }
        }
        /// Every figure of `all`, each type's first fault only, at `prefix.TYPE`.
        func check(_ all: [TypeIdentifier: WorkoutStatistics], at prefix: String) {
            for (type, figures) in all.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
                let named = [("sum", figures.sum), ("average", figures.average), ("minimum", figures.minimum), ("maximum", figures.maximum)]
                for case let (name, quantity?) in named {
                    if let error = statisticError(type, quantity, field: "\(prefix).\(type)", figure: name + " ") {
                        errors.append(error)
                        break
                    }
                }
            }
        }
        check(workout.allStatistics, at: "\(path).allStatistics")
        for (index, activity) in workout.activities.enumerated() {
            check(activity.allStatistics, at: "\(path).activities[\(index)].allStatistics")
        }
        return errors
    }

    /// Each member as a sample of its own type (those of another kind than quantity and category
    /// the model's rules refused already), then what the correlation type holds
    /// (`Correlation.composition(of:)`).
    private func checkCorrelation(
        _ correlation: Correlation, of type: TypeIdentifier, at path: String, allowReadOnly: Bool
    ) -> [ValidationError] {
        var errors: [ValidationError] = []
        let objects = correlation.objects
        for (index, member) in objects.enumerated() where member.kind == .quantity || member.kind == .category {
            let memberPath = "\(path).objects[\(index)]"
            errors += declaredErrors(
                of: member, at: memberPath, allowReadOnly: allowReadOnly,
                modelRulesPassed: member.validationErrors(at: memberPath).isEmpty)
        }
        guard !objects.isEmpty else { return errors }
        switch Correlation.composition(of: type) {
        case .exactlyOneOfEach(let required):
            let names = required.map(\.rawValue).joined(separator: " and ")
            var seen: [TypeIdentifier: Int] = [:]
            for (index, member) in objects.enumerated() {
                let field = "\(path).objects[\(index)].type"
                if !required.contains(member.type) {
                    errors.append(ValidationError(
                        reason: .invalidCorrelationMember, field: field, value: "\"\(member.type)\"",
                        expected: "\(names): \(type) holds exactly one sample of each and nothing else"))
                } else if let earlier = seen[member.type] {
                    errors.append(ValidationError(
                        reason: .invalidCorrelationMember, field: field, value: "\"\(member.type)\"",
                        expected: "one \(member.type) sample only: objects[\(earlier)] is one already"))
                } else {
                    seen[member.type] = index
                }
            }
            for missing in required where seen[missing] == nil {
                errors.append(ValidationError(
                    reason: .invalidCorrelationMember, field: "\(path).objects", value: "no \(missing) sample",
                    expected: "exactly one sample of each of \(names): \(type) holds both"))
            }
        case .quantityTypes(let prefix):
            for (index, member) in objects.enumerated()
            where member.kind != .quantity || !member.type.rawValue.hasPrefix(prefix) {
                errors.append(ValidationError(
                    reason: .invalidCorrelationMember, field: "\(path).objects[\(index)].type",
                    value: "\"\(member.type)\"",
                    expected: "a quantity type whose identifier starts with \(prefix): \(type) holds only those"))
            }
        case .anyQuantityOrCategory:
            break
        }
        return errors
    }

    /// Typed metadata keys with values of their type, among their allowed values and in units of
    /// their dimension; with `checkRequired`, the keys the type requires.
    private func checkMetadata(
        _ metadata: [String: MetadataValue], rules: TypeRules, at path: @autoclosure () -> String, checkRequired: Bool = true
    ) -> [ValidationError] {
        var errors: [ValidationError] = []
        if metadata.isEmpty && (!checkRequired || rules.requiredMetadataKeys.isEmpty) { return errors }
        for required in rules.requiredMetadataKeys where checkRequired && metadata[required.key] == nil {
            errors.append(ValidationError(
                reason: .missingMetadata, field: "\(path()).\(required.key)", value: "nil",
                expected: "a \(required.valueType.rawValue) value: \(rules.identifier) requires it"))
        }
        // The keys are checked in the dictionary's order and the errors given in the keys' order
        // (each key's in the order found): sorting every sample's keys first was 1-3% of salusd's
        // time in a FIT import.
        var found: [(key: String, error: ValidationError)] = []
        for (key, value) in metadata {
            func field() -> String { "\(path()).\(key)" }
            // The key's registration, looked up once for both its rules (a lookup hashes the key).
            let definition = metadataKeys[key]
            let declared = (rules.requiredMetadataKeys.first { $0.key == key } ?? rules.optionalMetadataKeys.first { $0.key == key })?.valueType
            if let expected = declared ?? definition?.valueType, expected != value.type {
                // HealthKit stores booleans as numbers 0/1; accept those for bool keys.
                if expected == .bool, case .number(let number) = value, number == 0 || number == 1 { continue }
                found.append((key, ValidationError(
                    reason: .invalidMetadataValue, field: field(), value: "\(value) (\(value.type.rawValue))",
                    expected: "a \(expected.rawValue) value")))
                continue
            }
            guard let definition else { continue }
            if case .number(let number) = value, !definition.allowedValues.isEmpty,
                !definition.allowedValues.contains(where: { Double($0.rawValue) == number })
            {
                let allowed = definition.allowedValues.map { "\($0.name) \($0.rawValue)" }.joined(separator: ", ")
                found.append((key, ValidationError(
                    reason: .invalidMetadataValue, field: field(), value: "\(value)", expected: "one of \(allowed)")))
            }
            if let unit = definition.unit, case .quantity(let quantity) = value, !quantity.unit.isCompatible(with: unit) {
                found.append((key, ValidationError(
                    reason: .invalidUnit, field: field(), value: "\(quantity)",
                    expected: "a unit of \(unit.dimension), like \(unit), not one of \(quantity.unit.dimension)")))
            }
        }
        if found.count > 1 {
            // By key, and within a key in the order found.
            found = found.enumerated().sorted { ($0.element.key, $0.offset) < ($1.element.key, $1.offset) }.map(\.element)
        }
        return errors + found.map(\.error)
    }
}
