import Foundation
import SalusModel
import SalusStore
import Synchronization

/// What the owner says about themselves: characteristics (date of birth, biological sex, blood
/// type, skin type, wheelchair use, move mode, ...), the activity goals with the day each takes
/// effect, and the time zone days are counted in. Kept in `person.json` beside the database,
/// written atomically before a change is used (as the other owner settings).
///
/// Keys: a characteristic's type identifier; `activity.goals.YYYY-MM-DD` for goals from that
/// day; `activity.timeZone`.
///
/// Subscribers of ``changes()`` hear of every change, so live activity summaries follow goals
/// and characteristics as they follow samples.
package final class PersonSettings: Sendable {
    /// The file name in the data directory.
    package static let fileName = "person.json"

    enum Entry: Codable, Sendable, Hashable {
        case enumeration(Int64)
        case date(String)
        case goals(ActivityGoals)
        case timeZone(String)
    }

    private let file: OwnerSettingsFile<Entry>
    private let listeners = Mutex<[UUID: AsyncStream<Void>.Continuation]>([:])
    static let goalsPrefix = "activity.goals."
    static let timeZoneKey = "activity.timeZone"

    /// Reads the settings at `path` (nil: memory only); throws `database` naming the file when
    /// it cannot be read.
    package init(path: String?) throws(StoreError) {
        file = try OwnerSettingsFile(path: path, name: "person settings")
    }

    // MARK: Characteristics

    /// The value of a characteristic, nil when not set.
    package func characteristic(_ type: TypeIdentifier) -> Characteristic.Value? {
        switch file[type.rawValue] {
        case .enumeration(let raw)?: .enumeration(raw)
        case .date(let text)?: CalendarDate(text).map { .date($0) }
        default: nil
        }
    }

    /// Sets `values` and clears `cleared` in one write. The values must have passed
    /// `TypeCatalog.checkCharacteristic`.
    package func setCharacteristics(_ values: [Characteristic], clear cleared: [TypeIdentifier]) throws(StoreError) {
        var changes: [String: Entry?] = [:]
        for type in cleared { changes[type.rawValue] = .some(nil) }
        for item in values {
            switch item.value {
            case .enumeration(let raw)?: changes[item.type.rawValue] = .enumeration(raw)
            case .date(let date)?: changes[item.type.rawValue] = .date(date.description)
            case nil: changes[item.type.rawValue] = .some(nil)
            }
        }
        try file.update(changes)
        notify()
    }

    // MARK: Activity

    /// The goal entries, oldest first.
    package var goalHistory: [ActivityGoals] {
        file.all.compactMap { key, entry -> ActivityGoals? in
            guard key.hasPrefix(Self.goalsPrefix), case .goals(let goals) = entry else { return nil }
            return goals
        }.sorted { $0.from < $1.from }
    }

    /// The goals that apply on `day`: the latest entry from that day or before, else the
    /// defaults.
    package func goals(on day: CalendarDate) -> ActivityGoals {
        goalHistory.last { $0.from <= day } ?? .defaults
    }

    /// Records `goals` from `goals.from` on (replacing an entry from the same day).
    package func setGoals(_ goals: ActivityGoals) throws(StoreError) {
        try file.set(.goals(goals), for: Self.goalsPrefix + goals.from.description)
        notify()
    }

    /// The person's time zone: the one set, else the daemon's.
    package var timeZone: TimeZone {
        if case .timeZone(let name)? = file[Self.timeZoneKey], let zone = TimeZone(identifier: name) { return zone }
        return TimeZone.current
    }

    /// Sets the person's time zone.
    package func setTimeZone(_ zone: TimeZone) throws(StoreError) {
        try file.set(.timeZone(zone.identifier), for: Self.timeZoneKey)
        notify()
    }

    // MARK: Changes

    /// A signal for every change from now on (changes may coalesce); ends when the task that
    /// iterates it is cancelled.
    package func changes() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        let id = UUID()
        listeners.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.removeValue(forKey: id) }
        }
        return stream
    }

    private func notify() {
        for listener in listeners.withLock({ Array($0.values) }) { listener.yield() }
    }
}
