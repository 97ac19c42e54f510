import SalusModel

/// The names an Apple Health export writes for raw values: category and characteristic cases
/// (`HKCategoryValueSleepAnalysisAsleepCore`, `HKBloodTypeONegative`) and workout activity types
/// (`HKWorkoutActivityTypeRunning`), from the running catalogue, so that what the writer puts out
/// is what `RecordMapper` reads back.
package struct ExportNames: Sendable {
    /// Case names by type identifier, then raw value ("asleepCore").
    package var cases: [String: [Int64: String]]
    /// The quantity types whose workout statistics are sums (cumulative types).
    package var cumulative: Set<String>
    /// Workout activity type names by raw value ("running").
    package var activityTypes: [UInt32: String]

    /// Names from their parts.
    package init(cases: [String: [Int64: String]], cumulative: Set<String>, activityTypes: [UInt32: String]) {
        self.cases = cases
        self.cumulative = cumulative
        self.activityTypes = activityTypes
    }

    /// The names of everything `catalog` registers.
    package init(catalog: TypeCatalog) {
        var cases: [String: [Int64: String]] = [:]
        var cumulative: Set<String> = []
        for rules in catalog.types.values {
            if !rules.cases.isEmpty {
                cases[rules.identifier] = Dictionary(rules.cases.map { ($0.rawValue, $0.name) }) { first, _ in first }
            }
            if rules.aggregationStyle == .cumulative { cumulative.insert(rules.identifier) }
        }
        self.init(
            cases: cases, cumulative: cumulative,
            activityTypes: Dictionary(catalog.workoutActivityTypes.map { ($0.key, $0.value.name) }) { first, _ in first })
    }

    /// A category value as exports write it: `HKCategoryValue`, the type's name and the case
    /// (`HKCategoryValueSleepAnalysisAsleepCore`); `HKCategoryValueNotApplicable` for
    /// notApplicable; the bare number when the type has no case of that value.
    package func categoryValue(_ raw: Int, of type: String) -> String {
        guard let name = cases[type]?[Int64(raw)] else { return String(raw) }
        if name == "notApplicable" { return "HKCategoryValueNotApplicable" }
        return "HKCategoryValue" + Self.stem(type, after: "TypeIdentifier") + Self.capitalized(name)
    }

    /// A characteristic's value as `Me` writes it: `HK`, the type's name and the case
    /// (`HKBiologicalSexFemale`, `HKFitzpatrickSkinTypeIII`); nil when the type has no case of
    /// that value.
    package func characteristicValue(_ raw: Int64, of type: String) -> String? {
        guard let name = cases[type]?[raw] else { return nil }
        return "HK" + Self.stem(type, after: "HKCharacteristicTypeIdentifier") + Self.capitalized(name)
    }

    /// A workout activity type as exports write it (`HKWorkoutActivityTypeRunning`); the bare
    /// number when unknown.
    package func activityType(_ raw: UInt) -> String {
        guard let key = UInt32(exactly: raw), let name = activityTypes[key] else { return String(raw) }
        return "HKWorkoutActivityType" + Self.capitalized(name)
    }

    /// What follows `marker` in `identifier` (`SleepAnalysis`), or the identifier's last
    /// reverse-DNS component for third-party types.
    static func stem(_ identifier: String, after marker: String) -> String {
        if let range = identifier.range(of: marker) { return String(identifier[range.upperBound...]) }
        return capitalized(String(identifier.split(separator: ".").last ?? Substring(identifier)))
    }

    static func capitalized(_ name: String) -> String {
        name.prefix(1).uppercased() + name.dropFirst()
    }
}
