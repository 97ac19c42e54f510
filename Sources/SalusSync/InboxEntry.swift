import Foundation
import Logging
import PostgresNIO
import SalusKit
import SalusModel

/// One row of `salus.inbox`: what a care team wrote for the person (a lab result, a weight
/// entry, a corrected value), to be saved into the store.
///
/// **Rule: every inbox row carries a sync identifier and a sync version, and is saved with them
/// as `HKMetadataKeySyncIdentifier` and `HKMetadataKeySyncVersion`.** Why: the save into the
/// store and the mark on the row cannot share a transaction (two databases). A crash between
/// them delivers the row again; the store keeps the sample it has for that identifier unless the
/// version is higher, so a re-delivery adds nothing, a higher version replaces the sample, a lower
/// one is ignored. What breaks without them: every re-delivery would add a duplicate.
///
/// **Rule: the inbox flows one way.** The saved sample comes back through the feed into
/// `salus.samples` (source: the sync app, with its sync identifier), never into the inbox, so
/// nothing the server sent is sent back as new.
package struct InboxEntry: Hashable, Sendable {
    /// The row's id.
    package var id: Int64
    /// The type identifier.
    package var type: String
    /// The sample's start.
    package var start: Date
    /// Its end (the start when nil).
    package var end: Date?
    /// A quantity's value, with ``quantityUnit``.
    package var quantityValue: Double?
    /// A quantity's unit string.
    package var quantityUnit: String?
    /// A category's raw value.
    package var categoryValue: Int?
    /// The metadata, as JSON text.
    package var metadataJSON: String
    /// The sync identifier.
    package var syncIdentifier: String
    /// The sync version.
    package var syncVersion: Double

    /// An entry as read from its row.
    package init(
        id: Int64, type: String, start: Date, end: Date?, quantityValue: Double?, quantityUnit: String?, categoryValue: Int?,
        metadataJSON: String, syncIdentifier: String, syncVersion: Double
    ) {
        self.id = id
        self.type = type
        self.start = start
        self.end = end
        self.quantityValue = quantityValue
        self.quantityUnit = quantityUnit
        self.categoryValue = categoryValue
        self.metadataJSON = metadataJSON
        self.syncIdentifier = syncIdentifier
        self.syncVersion = syncVersion
    }

    /// The sample to save, or the error naming the column at fault.
    package func sample() throws(SyncError) -> Sample {
        let field = "salus.inbox[\(id)]"
        var metadata = try Self.metadata(json: metadataJSON, field: "\(field).metadata")
        guard !syncIdentifier.isEmpty else {
            throw SyncError(.inbox, "an empty sync identifier", field: "\(field).sync_identifier", value: "", expected: "a non-empty string")
        }
        guard syncVersion.isFinite else {
            throw SyncError(.inbox, "a sync version that is not a number", field: "\(field).sync_version", value: "\(syncVersion)", expected: "a finite number")
        }
        metadata[MetadataKey.syncIdentifier] = .string(syncIdentifier)
        metadata[MetadataKey.syncVersion] = .number(syncVersion)
        let value: SampleValue
        switch (quantityValue, quantityUnit, categoryValue) {
        case (let number?, let unitText?, nil):
            do {
                value = .quantity(Quantity(value: number, unit: try SalusUnit(parsing: unitText)))
            } catch {
                throw SyncError(.inbox, "a unit that does not parse", field: "\(field).quantity_unit", value: unitText, expected: "a HealthKit unit string (count, kg, count/min, mg/dL)")
            }
        case (nil, nil, let raw?):
            value = .category(raw)
        case (_?, nil, _):
            throw SyncError(.inbox, "a quantity without a unit", field: "\(field).quantity_unit", value: "NULL", expected: "a unit with quantity_value")
        default:
            throw SyncError(
                .inbox, "no single value", field: "\(field)", value: "quantity_value \(quantityValue.map { "\($0)" } ?? "NULL"), category_value \(categoryValue.map { "\($0)" } ?? "NULL")",
                expected: "quantity_value with quantity_unit, or category_value alone")
        }
        return Sample(
            type: TypeIdentifier(rawValue: type), startDate: start, endDate: end ?? start, value: value,
            sourceRevision: Sample.unsavedSource, metadata: metadata)
    }

    /// Metadata from the inbox's JSONB object: strings, numbers and booleans as themselves,
    /// `{"date": ISO 8601}` and `{"value": n, "unit": "kg"}` as in `salus.samples`.
    static func metadata(json: String, field: String) throws(SyncError) -> [String: MetadataValue] {
        let object: [String: InboxMetadataValue]
        do {
            object = try JSONDecoder().decode([String: InboxMetadataValue].self, from: Data(json.utf8))
        } catch {
            throw SyncError(
                .inbox, "metadata of no known form", field: field, value: json,
                expected: "a JSON object of strings, numbers, booleans, {\"date\": ISO 8601} or {\"value\": number, \"unit\": unit}")
        }
        var metadata: [String: MetadataValue] = [:]
        for (key, raw) in object {
            switch raw {
            case .bool(let flag): metadata[key] = .bool(flag)
            case .number(let number): metadata[key] = .number(number)
            case .string(let text): metadata[key] = .string(text)
            case .date(let text):
                guard let date = try? Date(text, strategy: .iso8601) else {
                    throw SyncError(.inbox, "a date that does not parse", field: "\(field).\(key).date", value: text, expected: "an ISO 8601 date and time")
                }
                metadata[key] = .date(date)
            case .quantity(let number, let unitText):
                guard let unit = try? SalusUnit(parsing: unitText) else {
                    throw SyncError(.inbox, "a unit that does not parse", field: "\(field).\(key).unit", value: unitText, expected: "a HealthKit unit string")
                }
                metadata[key] = .quantity(Quantity(value: number, unit: unit))
            }
        }
        return metadata
    }
}

/// A metadata value as the inbox's JSONB spells it.
private enum InboxMetadataValue: Decodable {
    case bool(Bool)
    case number(Double)
    case string(String)
    case date(String)
    case quantity(Double, String)

    private enum Keys: String, CodingKey { case date, value, unit }

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.singleValueContainer() {
            if let flag = try? container.decode(Bool.self) { self = .bool(flag); return }
            if let number = try? container.decode(Double.self) { self = .number(number); return }
            if let text = try? container.decode(String.self) { self = .string(text); return }
        }
        let container = try decoder.container(keyedBy: Keys.self)
        if let text = try container.decodeIfPresent(String.self, forKey: .date) {
            self = .date(text)
        } else {
            self = .quantity(try container.decode(Double.self, forKey: .value), try container.decode(String.self, forKey: .unit))
        }
    }
}

/// Takes inbox rows one at a time (`FOR UPDATE SKIP LOCKED`, so two processes never take the
/// same row), saves each into the store and marks it with what became of it.
struct InboxProcessor: Sendable {
    let connection: PostgresConnection
    let person: String
    let store: HealthStore
    let logger: Logger
    /// How long one row may take before the connection is given up (``PostgresMirror/answered(within:_:)``).
    let timeout: Duration

    /// What one pass did.
    struct Pass { var applied = 0; var rejected = 0 }

    /// Applies every pending row; returns how many were applied and rejected.
    func drain() async throws -> Pass {
        var pass = Pass()
        while let outcome = try await applyNext() {
            if outcome { pass.applied += 1 } else { pass.rejected += 1 }
        }
        return pass
    }

    /// Applies the oldest pending row: true when saved (or kept), false when rejected, nil when
    /// there was none. A store that cannot be reached rolls the row back for the next pass.
    private func applyNext() async throws -> Bool? {
        try await PostgresMirror.answered(on: connection, within: timeout) { try await applyNextUnbounded() }
    }

    private func applyNextUnbounded() async throws -> Bool? {
        try await PostgresMirror.transaction(connection, logger: logger) { connection in
            let rows = try await connection.query(
                """
                SELECT id, type, start_date, end_date, quantity_value, quantity_unit, category_value, metadata::text,
                    sync_identifier, sync_version
                FROM salus.inbox WHERE person_id = \(person) AND applied_at IS NULL
                ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED
                """, logger: logger
            ).collect()
            guard let row = rows.first else { return nil }
            let (id, type, start, end, quantityValue, quantityUnit, categoryValue, metadata, syncIdentifier, syncVersion) = try row.decode(
                (Int64, String, Date, Date?, Double?, String?, Int32?, String, String, Double).self)
            let entry = InboxEntry(
                id: id, type: type, start: start, end: end, quantityValue: quantityValue, quantityUnit: quantityUnit,
                categoryValue: categoryValue.map(Int.init), metadataJSON: metadata, syncIdentifier: syncIdentifier, syncVersion: syncVersion)
            let outcome: String
            var uuid: UUID? = nil
            var problem: String? = nil
            do {
                let result = try await store.save(try entry.sample())
                uuid = result.uuid
                switch result.outcome {
                case .saved: outcome = "saved"
                case .keptExisting: outcome = "kept"
                case .replaced: outcome = "replaced"
                }
            } catch let error as SyncError {
                outcome = "rejected"
                problem = error.description
            } catch let error as SalusError where error.code == .invalidArgument || error.code == .authorizationDenied
                || error.code == .authorizationNotDetermined {
                outcome = "rejected"
                problem = error.description
            }
            try PostgresMirror.checkOpen(connection)
            try await connection.query(
                """
                UPDATE salus.inbox SET applied_at = now(), applied_uuid = \(uuid), outcome = \(outcome), error = \(problem)
                WHERE person_id = \(person) AND id = \(id)
                """, logger: logger)
            if let problem { logger.warning("inbox row rejected", metadata: ["id": "\(id)", "error": "\(problem)"]) }
            return problem == nil
        }
    }
}
