import Foundation
import SalusFIT
import Testing

/// Every FIT file of `shared/data/fit` decoded by ``FITDecoder`` and compared, figure by figure,
/// with what Garmin's FIT SDK decoded from it (oracle.json): the FIT files of each chain with their
/// header and file CRCs, message counts per global number, the file's creator, each session's
/// sport, times, distance and totals, the records' counts, heart-rate range, first and last
/// record, pool lengths by type and stroke, `hrv` counts, developer field descriptions.
///
/// Each file lists the differences it gives, each with its reason; the test fails on any other
/// and on one that no longer appears.
@Suite("FIT files against Garmin's FIT SDK")
struct OracleTests {
    /// Differences from the SDK, by file: the compared figure and why it differs.
    static let knownDifferences: [String: [String: String]] = [
        // The last record's timestamp is 2085-12-21, 64 years after the file's first: refused,
        // with a problem at its offset (FITBrokenFileTests), its field 253 kept as the file has it.
        "dtcooper-python-fitparse/strava-android-app-201.10-b1218918.fit": [
            "records.with_timestamp": "the 2085 timestamp is refused",
            "records.last.timestamp": "the 2085 timestamp is refused",
        ],
    ]

    @Test("oracle.json lists the 18 FIT files, and each is there")
    func everyFile() throws {
        #expect(Oracle.files.count == 18, "oracle.json not found or changed under \(Oracle.folder.path)")
        for file in Oracle.files {
            #expect(try file.contents().count == file.bytes, "\(file.file)")
        }
    }

    @Test("each file's figures equal the SDK's", arguments: Oracle.files)
    func figures(_ file: OracleFile) throws {
        var decoding = FITDecoder().decode(try file.contents())
        // The decoder gives records as the file holds them; the heart rates of `hr` messages are
        // merged after, as the SDK does (`merge_heart_rates=True`) and the importer does.
        let records = decoding.messages(FITProfile.Message.record)
        #expect(records.count { $0.value(FITProfile.Record.heartRate) != nil } == file.records.withHeartRateWithoutHrMerge ?? file.records.withHeartRate)
        decoding.messages = FITHeartRates.merged(decoding.messages)
        let differences = Comparison.differences(file, decoding)
        let known = Self.knownDifferences[file.file] ?? [:]
        for (figure, difference) in differences.sorted(by: { $0.key < $1.key }) where known[figure] == nil {
            Issue.record("\(file.file): \(figure): \(difference)")
        }
        for figure in known.keys.sorted() where differences[figure] == nil {
            Issue.record("\(file.file): \(figure) no longer differs from the SDK")
        }
    }
}

/// The comparison of one decoding with the oracle: each figure that differs, by name, with the
/// SDK's value and the decoder's.
enum Comparison {
    static func differences(_ file: OracleFile, _ decoding: FITDecoding) -> [String: String] {
        var differences: [String: String] = [:]
        func check<T: Equatable>(_ figure: String, _ expected: T?, _ got: T?) {
            if expected != got { differences[figure] = "SDK \(String(describing: expected)), decoder \(String(describing: got))" }
        }
        func near(_ figure: String, _ expected: Double?, _ got: Double?, within tolerance: Double = 0.000_001) {
            switch (expected, got) {
            case (nil, nil): return
            case (let expected?, let got?) where abs(expected - got) <= tolerance: return
            default: differences[figure] = "SDK \(String(describing: expected)), decoder \(String(describing: got))"
            }
        }

        // The FIT files of the chain.
        check("files.count", file.fitFilesInContainer.count, decoding.files.count)
        for (index, (expected, got)) in zip(file.fitFilesInContainer, decoding.files).enumerated() {
            check("files[\(index)].offset", expected.offset, got.offset)
            check("files[\(index)].header_size", expected.headerSize, got.headerSize)
            check("files[\(index)].data_size", expected.dataSize, Int(got.dataSize))
            check("files[\(index)].header_crc_ok", expected.headerCrcOk, got.headerCRCValid)
            check("files[\(index)].file_crc_ok", expected.fileCrcOk, got.fileCRCValid ?? false)
            check("files[\(index)].bytes_missing", expected.bytesMissing, got.bytesMissing)
        }

        // Message counts by global number (a count of 0: a definition without data).
        var counts: [UInt16: Int] = [:]
        for message in decoding.messages { counts[message.globalNumber, default: 0] += 1 }
        var expectedCounts: [UInt16: Int] = [:]
        for (name, count) in file.messageCounts where count > 0 {
            let number = name.hasPrefix("unknown_") ? UInt16(name.dropFirst(8)) : messageNumbers[name]
            guard let number else {
                differences["message_counts.\(name)"] = "no number for the SDK's name"
                continue
            }
            expectedCounts[number] = count
        }
        for number in Set(counts.keys).union(expectedCounts.keys) {
            check("message_counts.\(number)", expectedCounts[number], counts[number])
        }

        // The file's creator.
        let fileID = decoding.messages(FITProfile.Message.fileID).first
        check("file_id.type", file.fileId.type == "activity" ? FITProfile.FileID.activityType : nil, fileID?.integer(FITProfile.FileID.type))
        check("file_id.manufacturer", file.fileId.manufacturer.flatMap { manufacturerNumbers[$0] }, fileID?.integer(FITProfile.FileID.manufacturer))
        if case .number(let product) = file.fileId.product {
            check("file_id.product", UInt64(product), fileID?.integer(FITProfile.FileID.product))
        }
        check("file_id.product_name", file.fileId.productName, fileID?.string(FITProfile.FileID.productName))
        check("file_id.time_created", file.fileId.timeCreated.flatMap(fitTime), fileID?.integer(FITProfile.FileID.timeCreated).map { UInt32($0) })

        // Sessions, in file order.
        let sessions = decoding.messages(FITProfile.Message.session)
        check("sessions.count", file.sessions?.count ?? 0, sessions.count)
        typealias S = FITProfile.Session
        for (index, (expected, got)) in zip(file.sessions ?? [], sessions).enumerated() {
            let name = "sessions[\(index)]"
            check("\(name).sport", expected.sport, got.integer(S.sport).flatMap { FITProfile.sports[$0] })
            check("\(name).sub_sport", expected.subSport, got.integer(S.subSport).flatMap { FITProfile.subSports[$0] })
            check("\(name).start_time", expected.startTime.flatMap(fitTime), got.integer(S.startTime).map { UInt32($0) })
            check("\(name).timestamp", expected.timestamp.flatMap(fitTime), got.timestamp)
            near("\(name).total_elapsed_time", expected.totalElapsedTime, got.value(S.totalElapsedTime))
            near("\(name).total_timer_time", expected.totalTimerTime, got.value(S.totalTimerTime))
            near("\(name).total_distance", expected.totalDistance, got.value(S.totalDistance))
            near("\(name).avg_heart_rate", expected.avgHeartRate, got.value(S.avgHeartRate))
            near("\(name).max_heart_rate", expected.maxHeartRate, got.value(S.maxHeartRate))
            near("\(name).num_laps", expected.numLaps, got.value(S.numLaps))
            near("\(name).total_calories", expected.totalCalories, got.value(S.totalCalories))
            near("\(name).avg_power", expected.avgPower, got.value(S.avgPower))
            near("\(name).max_power", expected.maxPower, got.value(S.maxPower))
            near("\(name).total_ascent", expected.totalAscent, got.value(S.totalAscent))
            near("\(name).pool_length", expected.poolLength, got.value(S.poolLength))
            near("\(name).num_active_lengths", expected.numActiveLengths, got.value(S.numActiveLengths))
            near("\(name).avg_cadence", expected.avgCadence, got.value(S.avgCadence))
            near("\(name).avg_speed", expected.avgSpeed, got.value(S.avgSpeed))
        }

        // Records.
        typealias R = FITProfile.Record
        let records = decoding.messages(FITProfile.Message.record)
        let heartRates = records.compactMap { $0.value(R.heartRate) }
        check("records.count", file.records.count, records.count)
        check("records.with_timestamp", file.records.withTimestamp, records.count { $0.timestamp != nil })
        check("records.with_position", file.records.withPosition, records.count { $0.value(R.latitude) != nil && $0.value(R.longitude) != nil })
        check("records.with_heart_rate", file.records.withHeartRate, heartRates.count)
        check("records.with_power", file.records.withPower, records.count { $0.value(R.power) != nil })
        check("records.with_developer_fields", file.records.withDeveloperFields, records.count { !$0.developerFields.isEmpty })
        let mean = heartRates.isEmpty ? nil : (heartRates.reduce(0, +) / Double(heartRates.count) * 100).rounded() / 100
        if file.records.heartRateMin != heartRates.min() || file.records.heartRateMax != heartRates.max() || file.records.heartRateMean != mean {
            differences["records.heart_rate_range"] =
                "SDK \(String(describing: file.records.heartRateMin))…\(String(describing: file.records.heartRateMax)) mean \(String(describing: file.records.heartRateMean)), decoder \(String(describing: heartRates.min()))…\(String(describing: heartRates.max())) mean \(String(describing: mean))"
        }
        for (name, expected, got) in [("first", file.records.first, records.first), ("last", file.records.last, records.last)] {
            guard let expected else { continue }
            let figure = "records.\(name)"
            check("\(figure).timestamp", expected.timestamp.flatMap(fitTime), got?.timestamp)
            near("\(figure).lat", expected.lat, got?.value(R.latitude).map { (FITProfile.degrees(semicircles: $0) * 10_000_000).rounded() / 10_000_000 })
            near("\(figure).lon", expected.lon, got?.value(R.longitude).map { (FITProfile.degrees(semicircles: $0) * 10_000_000).rounded() / 10_000_000 })
            near("\(figure).heart_rate", expected.heartRate, got?.value(R.heartRate))
            near("\(figure).distance", expected.distance, got?.value(R.distance))
            near("\(figure).power", expected.power, got?.value(R.power))
        }

        // Pool lengths by type and stroke.
        let lengths = decoding.messages(FITProfile.Message.length)
        if let expected = file.lengths {
            check("lengths.count", expected.count, lengths.count)
            var byType: [String: Int] = [:]
            var strokes: [String: Int] = [:]
            for length in lengths {
                if let type = length.integer(FITProfile.Length.lengthType) { byType[FITProfile.lengthTypes[type] ?? "\(type)", default: 0] += 1 }
                if let stroke = length.integer(FITProfile.Length.swimStroke) { strokes[FITProfile.swimStrokes[stroke] ?? "\(stroke)", default: 0] += 1 }
            }
            check("lengths.by_type", expected.byType, byType)
            check("lengths.strokes", expected.strokes, strokes)
        }
        if let hrv = file.other?["hrv"] {
            check("other.hrv", hrv, decoding.messages(FITProfile.Message.hrv).count)
        }

        // Developer fields as their descriptions give them.
        let expectedFields = Set((file.developerFields ?? []).map {
            OracleFile.DeveloperField(
                developerDataIndex: $0.developerDataIndex, fieldDefinitionNumber: $0.fieldDefinitionNumber,
                fieldName: $0.fieldName, units: $0.units, nativeMesgNum: $0.nativeMesgNum, nativeFieldNum: $0.nativeFieldNum)
        })
        let gotFields = Set(decoding.developerFields.map {
            OracleFile.DeveloperField(
                developerDataIndex: Int($0.developerDataIndex), fieldDefinitionNumber: Int($0.number), fieldName: $0.name,
                units: $0.units, nativeMesgNum: $0.nativeMessageNumber.map(Int.init), nativeFieldNum: $0.nativeFieldNumber.map(Int.init))
        })
        if expectedFields != gotFields {
            differences["developer_fields"] =
                "SDK only: \(expectedFields.subtracting(gotFields)); decoder only: \(gotFields.subtracting(expectedFields))"
        }
        return differences
    }
}
