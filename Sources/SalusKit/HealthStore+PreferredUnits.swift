import SalusModel
import SalusProto
import SalusRPC

extension HealthStore {
    /// The unit the person reads each quantity type in, as HealthKit's `preferredUnits(for:)`:
    /// the one they chose (`salusctl units set distanceWalkingRunning km`), else the type's
    /// canonical unit. Statistics queries without a unit are answered in it.
    ///
    /// ```swift
    /// let units = try await store.preferredUnits(for: [.quantity(.distanceWalkingRunning)])
    /// let distance = units[.quantity(.distanceWalkingRunning)]!   // km, mi or m
    /// ```
    ///
    /// A type the daemon does not know as a quantity type fails with
    /// ``SalusError/Code/invalidArgument`` naming `types[i]`.
    public func preferredUnits(for types: Set<SampleType>) async throws(SalusError) -> [SampleType: SalusUnit] {
        guard !types.isEmpty else { return [:] }
        var request = Salus_V1_PreferredUnitsRequest()
        request.types = types.map(\.identifier.rawValue).sorted()
        let response: Salus_V1_PreferredUnits = try await mappingErrors {
            try await client.unary(SalusMethods.Statistics.getPreferredUnits, request: request)
        }
        var units: [SampleType: SalusUnit] = [:]
        for (index, entry) in response.units.enumerated() {
            do {
                units[SampleType(entry.type)] = try SalusUnit(parsing: entry.unit)
            } catch {
                throw SalusError.malformed(field: "units[\(index)].unit", value: entry.unit, expected: "a unit string such as km")
            }
        }
        for type in types where units[type] == nil {
            throw SalusError.malformed(field: "units", value: "no entry for \(type.identifier)", expected: "one unit per type asked")
        }
        return units
    }
}
