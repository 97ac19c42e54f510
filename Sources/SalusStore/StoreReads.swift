import Foundation
import SalusModel

/// The queries, as functions of a reader connection; `SampleStore` runs them on its readers.
package enum StoreReads {
    /// The compiled where-clause of one descriptor for samples and for tombstones.
    struct CompiledDescriptor: Sendable {
        var type: TypeIdentifier
        var samples: SQLFragment
        var tombstones: SQLFragment
        /// `QueryDescriptor.localChangesOnly`.
        var localChangesOnly = false
    }

    static func compile(_ descriptors: [QueryDescriptor], catalog: TypeCatalog) throws(StoreError)
        -> [CompiledDescriptor]
    {
        var compiled: [CompiledDescriptor] = []
        for (index, descriptor) in descriptors.enumerated() {
            let info = catalog.rules(for: descriptor.type)
            let path = "descriptors[\(index)].predicate"
            let samples = try PredicateCompiler(type: descriptor.type, info: info, catalog: catalog, target: .samples)
                .compile(descriptor.predicate, path: path)
            let tombstones = try PredicateCompiler(
                type: descriptor.type, info: info, catalog: catalog, target: .tombstones
            ).compile(descriptor.predicate, path: path)
            compiled.append(
                CompiledDescriptor(
                    type: descriptor.type, samples: samples, tombstones: tombstones,
                    localChangesOnly: descriptor.localChangesOnly))
        }
        return compiled
    }

    /// The change positions after `anchor` up to the latest, checked against the tombstone
    /// horizon; call inside a read transaction.
    static func range(_ database: Database, after anchor: Anchor?) throws -> (from: Int64, last: Int64) {
        let last = try database.scalarInt("SELECT value FROM store_info WHERE key = 'last_sequence'") ?? 0
        let horizon = try database.scalarInt("SELECT value FROM store_info WHERE key = 'tombstone_horizon'") ?? 0
        let from = anchor?.int64 ?? 0
        if from > 0 && from < horizon {
            throw StoreError(
                code: .anchorExpired, field: "anchor", value: "\(from)",
                expected: "an anchor at or after the tombstone horizon \(horizon): deletions before it were "
                    + "purged; resync from the start")
        }
        if from > last {
            throw StoreError.invalid(
                "anchor", value: "\(from)", expected: "an anchor at or before the latest change \(last)")
        }
        return (from, last)
    }

    /// A stored sample's bytes that its wire form grows with: its value (payload) and its
    /// metadata and sync identifier, columns 9, 26 and 27 of `SampleRows.columns`, plus the
    /// fields every sample has (`maxBytes` of `anchored`).
    static func storedBytes(_ statement: Statement) -> Int {
        160 + statement.byteCount(9) + statement.byteCount(26) + statement.byteCount(27)
    }

    /// A tombstone's bytes in a deleted object (columns 2 and 3 of the tombstone statement: its
    /// type and sync identifier), plus the fields every one has.
    static func deletedBytes(_ statement: Statement) -> Int {
        64 + statement.byteCount(2) + statement.byteCount(3)
    }

    /// `storedBytes` in SQL, over the alias `r` of `samples` (`length` of a BLOB counts bytes,
    /// where a TEXT's counts characters).
    static let storedBytesSQL = "160 + coalesce(length(CAST(r.payload AS BLOB)), 0) + "
        + "coalesce(length(CAST(r.metadata AS BLOB)), 0) + coalesce(length(CAST(r.sync_identifier AS BLOB)), 0)"

    /// With `maxBytes`, the page also ends, with more to come, after the sample that brings its
    /// samples' stored bytes (`storedBytes`) to `maxBytes`: a page that a server sends as one
    /// frame stays under the frame limit however large its samples are.
    static func anchored(
        _ database: Database, descriptors: [CompiledDescriptor], anchor: Anchor?, limit: Int?, maxBytes: Int? = nil
    ) throws -> AnchoredQueryResult {
        try database.transaction(immediate: false) {
            let (from, last) = try range(database, after: anchor)
            let (sampleStatement, tombstoneStatement) = try anchoredStatements(
                database, descriptors: descriptors, from: from, last: last, limit: limit)
            defer {
                sampleStatement.reset()
                tombstoneStatement.reset()
            }
            var decoder = SampleRowDecoder()
            var rows: [DecodedRow] = []
            var weights: [Int] = []
            while try sampleStatement.step() {
                rows.append(try decoder.decode(sampleStatement))
                if maxBytes != nil { weights.append(storedBytes(sampleStatement)) }
            }
            var deletions: [(Int64, DeletedObject)] = []
            var deletionWeights: [Int] = []
            while try tombstoneStatement.step() {
                if maxBytes != nil { deletionWeights.append(deletedBytes(tombstoneStatement)) }
                var metadata: [String: MetadataValue] = [:]
                // Its bytes, not a C string: an identifier may hold a NUL.
                let row = "tombstone \(tombstoneStatement.int64(0))"
                if let identifier = try StoredRowChecks.identifier(tombstoneStatement, column: 3, row: row) {
                    metadata[MetadataKey.syncIdentifier] = .string(String(decoding: identifier, as: UTF8.self))
                }
                if let version = try StoredRowChecks.version(tombstoneStatement, column: 4, row: row) {
                    metadata[MetadataKey.syncVersion] = .number(version)
                }
                deletions.append(
                    (
                        tombstoneStatement.int64(0),
                        DeletedObject(
                            uuid: tombstoneStatement.uuid(1)!, type: TypeIdentifier(tombstoneStatement.text(2) ?? ""),
                            metadata: metadata)
                    ))
            }
            // A correlation's members go in its frame: they weigh in its size.
            if maxBytes != nil {
                let members = try SampleRows.memberBytes(
                    database, correlations: rows.lazy.filter { $0.sample.kind == .correlation }.map(\.id))
                if !members.isEmpty {
                    for index in rows.indices { weights[index] += members[rows[index].id] ?? 0 }
                }
            }
            let cut = Cut(
                rows: rows.lazy.map(\.sequence), deletions: deletions.lazy.map(\.0), from: from, last: last, limit: limit,
                weights: maxBytes == nil ? nil : weights, deletionWeights: maxBytes == nil ? nil : deletionWeights,
                maxBytes: maxBytes)
            let samples = try SampleRows.samples(database, rows: Array(rows.prefix(cut.rows)))
            var result = AnchoredQueryResult(
                added: samples, deleted: deletions.prefix(cut.deletions).map(\.1), anchor: Anchor(sequence: cut.anchor),
                hasMore: cut.hasMore)
            if maxBytes != nil { result.storedBytes = weights.prefix(cut.rows).reduce(0, +) }
            return result
        }
    }

    /// The same changes as `anchored`, written as the bytes of `AnchoredBatch` fields 1 (added)
    /// and 2 (deleted) by `builder`, with no model sample in between. It walks the table in
    /// row-id order: a sample's row id is its change position (docs/storage.md, "a sample's row
    /// id is its change position").
    static func anchoredWire(
        _ database: Database, descriptors: [CompiledDescriptor], anchor: Anchor?, limit: Int?, builder: WirePageBuilder,
        walk: AnchoredWalk = .rowID
    ) throws -> WireAnchoredPage {
        try database.transaction(immediate: false) {
            let (from, last) = try range(database, after: anchor)
            do {
                return try anchoredWirePage(
                    database, descriptors: descriptors, from: from, last: last, limit: limit, builder: builder, walk: walk)
            } catch is RowOrderBroken {
                // Row ids out of change order (a file written by something else): the page is
                // read again along the change-sequence index, which is always right.
                return try anchoredWirePage(
                    database, descriptors: descriptors, from: from, last: last, limit: limit, builder: builder, walk: .sequence)
            }
        }
    }

    /// Thrown when a walk in row-id order meets a row whose change number is not above the
    /// previous row's.
    struct RowOrderBroken: Error {}

    private static func anchoredWirePage(
        _ database: Database, descriptors: [CompiledDescriptor], from: Int64, last: Int64, limit: Int?,
        builder: WirePageBuilder, walk: AnchoredWalk
    ) throws -> WireAnchoredPage {
        let (sampleStatement, tombstoneStatement) = try anchoredStatements(
            database, descriptors: descriptors, from: from, last: last, limit: limit, wire: true, walk: walk)
        defer {
            sampleStatement.reset()
            tombstoneStatement.reset()
        }
        return try builder.page(on: database) { page in
            var previous = from
            // A page is one frame: large samples (long metadata, documents with their data) end
            // it at `SampleWirePages.pageBytes`, before the frame limit, and the changes after
            // the last sample read wait for the next page, deletions included. A read with no
            // limit asked for every change in one page and gets it.
            var through = last
            var full = false
            while try sampleStatement.step() {
                try page.addSample(sampleStatement, database)
                let sequence = page.rows[page.rows.count - 1].sequence
                if sequence <= previous { throw RowOrderBroken() }
                previous = sequence
                if limit != nil && page.sampleBytes >= SampleWirePages.pageBytes {
                    (through, full) = (sequence, true)
                    break
                }
            }
            while try tombstoneStatement.step() { try page.addDeletion(tombstoneStatement) }
            let deletions = Array(page.deletionRows.lazy.map(\.sequence).prefix { $0 <= through })
            // With a limit, deletions weigh in too: a limit past a page's 2,000 changes over
            // tombstones with long sync identifiers made a frame past the limit.
            let weighed = limit != nil
            var cut = Cut(
                rows: page.rows.lazy.map(\.sequence), deletions: deletions, from: from, last: through, limit: limit,
                weights: weighed ? page.rows.map { $0.head.count + $0.tail.count + $0.meta.count } : nil,
                deletionWeights: weighed ? page.deletionRows.prefix(deletions.count).map { $0.range.count + 4 } : nil,
                maxBytes: weighed ? SampleWirePages.pageBytes : nil)
            if full { cut.hasMore = true }
            let bytes = page.encoded(samples: 0..<cut.rows, deletions: 0..<cut.deletions, trailer: WireAnchoredPage.trailerRoom)
            return WireAnchoredPage(
                changes: WirePage(bytes: bytes, count: cut.rows + cut.deletions), added: cut.rows,
                deleted: cut.deletions, anchor: Anchor(sequence: cut.anchor), hasMore: cut.hasMore)
        }
    }

    /// The statements of an anchored read: samples, then tombstones, each matching any
    /// descriptor, in change order, after `from` up to `last`, at most one more than `limit`. The
    /// samples' columns are `SampleRows.columns`, or `SampleRows.wireColumns` for the wire path
    /// (`wire`).
    static func anchoredStatements(
        _ database: Database, descriptors: [CompiledDescriptor], from: Int64, last: Int64, limit: Int?, wire: Bool = false,
        walk: AnchoredWalk = .sequence
    ) throws -> (samples: Statement, tombstones: Statement) {
        var sampleTests: [String] = []
        var sampleArguments: [SQLValue] = [.integer(from), .integer(last)]
        var tombstoneTests: [String] = []
        var tombstoneArguments: [SQLValue] = [.integer(from), .integer(last)]
        for descriptor in descriptors {
            // `+r.type_id`: walk the table in row-id (change) order instead of the type's
            // date index, so each page costs its own rows, not the whole type.
            let local = descriptor.localChangesOnly ? " AND r.replica IS NULL" : ""
            sampleTests.append(
                "(+r.type_id = (SELECT id FROM types WHERE identifier = ?)\(local) AND \(descriptor.samples.sql))")
            sampleArguments += [.text(descriptor.type.rawValue)] + descriptor.samples.arguments
            tombstoneTests.append(
                "(+r.type_id = (SELECT id FROM types WHERE identifier = ?)\(local) AND coalesce(\(descriptor.tombstones.sql), 1))")
            tombstoneArguments += [.text(descriptor.type.rawValue)] + descriptor.tombstones.arguments
        }
        let matchSamples = sampleTests.isEmpty ? "0" : sampleTests.joined(separator: " OR ")
        let matchTombstones = tombstoneTests.isEmpty ? "0" : tombstoneTests.joined(separator: " OR ")
        let fetch = limit.map { Int64(Swift.min($0, Int(Int32.max))) + 1 } ?? -1
        sampleArguments.append(.integer(fetch))
        tombstoneArguments.append(.integer(fetch))

        let sampleStatement = try database.prepareRecent(anchoredSampleSQL(matching: matchSamples, wire: wire, walk: walk))
        try sampleStatement.bind(sampleArguments)
        let tombstoneStatement = try database.prepareRecent(
            "SELECT r.seq, r.uuid, t.identifier, r.sync_identifier, r.sync_version FROM tombstones r "
                + "JOIN types t ON t.id = r.type_id WHERE r.seq > ? AND r.seq <= ? AND (\(matchTombstones)) "
                + "ORDER BY r.seq LIMIT ?")
        try tombstoneStatement.bind(tombstoneArguments)
        return (sampleStatement, tombstoneStatement)
    }

    /// The samples statement of an anchored read: its arguments are the anchor, the last
    /// change, those of `matching`, and the limit. A sample's row id is its change position
    /// (schema 15), so both walks are the same walk of the table from the anchor's row on.
    package static func anchoredSampleSQL(matching: String, wire: Bool, walk: AnchoredWalk) -> String {
        (wire ? "SELECT \(SampleRows.wireColumns) FROM samples r" : "SELECT \(SampleRows.columns) \(SampleRows.from)")
            + " WHERE r.id > ? AND r.id <= ? AND (\(matching)) ORDER BY r.id LIMIT ?"
    }

    /// Where an anchored read stops: both lists merged in change order and cut at the limit.
    /// Kept are a prefix of each list.
    struct Cut {
        var rows = 0
        var deletions = 0
        var anchor: Int64
        var hasMore = false

        /// With `weights` (one per row), `deletionWeights` (one per deletion) and `maxBytes`, the
        /// cut also comes, with more to come, once the changes taken weigh `maxBytes` or more.
        init<R: Collection, D: Collection>(
            rows: R, deletions: D, from: Int64, last: Int64, limit: Int?, weights: [Int]? = nil,
            deletionWeights: [Int]? = nil, maxBytes: Int? = nil
        )
        where R.Element == Int64, D.Element == Int64, R.Index == Int, D.Index == Int {
            var lastTaken = from
            var weight = 0
            anchor = last
            while self.rows < rows.count || self.deletions < deletions.count {
                if let limit, self.rows + self.deletions == limit {
                    hasMore = true
                    anchor = lastTaken
                    return
                }
                if let maxBytes, weight >= maxBytes {
                    hasMore = true
                    anchor = lastTaken
                    return
                }
                let rowSequence = self.rows < rows.count ? rows[self.rows] : .max
                let deletionSequence = self.deletions < deletions.count ? deletions[self.deletions] : .max
                if rowSequence < deletionSequence {
                    lastTaken = rowSequence
                    if let weights { weight += weights[self.rows] }
                    self.rows += 1
                } else {
                    lastTaken = deletionSequence
                    if let deletionWeights { weight += deletionWeights[self.deletions] }
                    self.deletions += 1
                }
            }
        }
    }

    static func sources(_ database: Database, type: TypeIdentifier, fragment: SQLFragment) throws -> [SourceInfo] {
        let statement = try database.prepare(
            """
            SELECT a.app_id, (SELECT name FROM sources WHERE app_ref = a.id ORDER BY id DESC LIMIT 1), \
            d.id, d.name, d.manufacturer, d.model, d.hardware_version, d.firmware_version, d.software_version, \
            d.local_identifier, d.udi_device_identifier \
            FROM (SELECT r.app_ref, r.device_id, min(r.id) AS first FROM samples r \
            WHERE r.type_id = (SELECT id FROM types WHERE identifier = ?) AND \(fragment.sql) \
            GROUP BY r.app_ref, r.device_id) g \
            JOIN apps a ON a.id = g.app_ref LEFT JOIN devices d ON d.id = g.device_id \
            ORDER BY a.app_id, g.first
            """, cached: false)
        try statement.bind([.text(type.rawValue)] + fragment.arguments)
        var result: [SourceInfo] = []
        while try statement.step() {
            let appID = statement.text(0) ?? ""
            if result.last?.appID != appID {
                result.append(SourceInfo(appID: appID, name: statement.text(1) ?? "", devices: []))
            }
            if !statement.isNull(2) {
                result[result.count - 1].devices.append(
                    Device(
                        name: statement.text(3), manufacturer: statement.text(4), model: statement.text(5),
                        hardwareVersion: statement.text(6), firmwareVersion: statement.text(7),
                        softwareVersion: statement.text(8), localIdentifier: statement.text(9),
                        udiDeviceIdentifier: statement.text(10)))
            }
        }
        return result
    }
}

/// How an anchored read walks the samples table. Since schema 15 a sample's row id is its
/// change position, so both are one walk of the table in row-id order from the anchor; each
/// row read still checks that positions go up (a row out of order abandons the walk and the
/// page is read again, the same way).
package enum AnchoredWalk: Sendable {
    /// In row-id order, from the first row after the anchor.
    case rowID
    /// In change order: the same walk since schema 15.
    case sequence
}
