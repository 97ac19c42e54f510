import Foundation
import SalusFIT
import Testing

/// `shared/data/fit/oracle.json`: what Garmin's FIT SDK (garmin-fit-sdk 21.218.0, `Decoder.read()`
/// with its defaults) decoded from each file of `shared/data/fit` (see that folder's README.md).
/// The files are read where the workplace keeps them, beside the project (`../shared/data/fit`,
/// or `SALUS_SHARED_DATA`/fit): their README allows committing them only there.
struct Oracle: Decodable {
    var files: [OracleFile]

    /// The folder holding the FIT files and oracle.json.
    static let folder: URL = {
        if let shared = ProcessInfo.processInfo.environment["SALUS_SHARED_DATA"] {
            return URL(fileURLWithPath: shared).appendingPathComponent("fit")
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("../shared/data/fit").standardizedFileURL
    }()

    /// The oracle's files; empty when oracle.json cannot be read (``OracleTests/everyFile`` fails then).
    static let files: [OracleFile] = {
        guard let data = try? Data(contentsOf: folder.appendingPathComponent("oracle.json")) else { return [] }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return (try? decoder.decode(Oracle.self, from: data).files) ?? []
    }()
}

/// A string or an integer (the SDK names the products it knows and numbers the others).
enum NameOrNumber: Decodable, Equatable, Sendable {
    case name(String)
    case number(Int)

    init(from decoder: Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int.self) {
            self = .number(number)
        } else {
            self = .name(try container.decode(String.self))
        }
    }
}

struct OracleFile: Decodable, Sendable, CustomTestStringConvertible {
    struct Container: Decodable, Sendable {
        var offset: Int
        var headerSize: Int
        var dataSize: Int
        var headerCrcOk: Bool?
        var fileCrcOk: Bool?
        var bytesMissing: Int
    }
    struct FileID: Decodable, Sendable {
        var type: String?
        var manufacturer: String?
        var product: NameOrNumber?
        var productName: String?
        var timeCreated: String?
    }
    struct Session: Decodable, Sendable {
        var sport: String?
        var subSport: String?
        var startTime: String?
        var timestamp: String?
        var totalElapsedTime: Double?
        var totalTimerTime: Double?
        var totalDistance: Double?
        var avgHeartRate: Double?
        var maxHeartRate: Double?
        var numLaps: Double?
        var totalCalories: Double?
        var avgPower: Double?
        var maxPower: Double?
        var totalAscent: Double?
        var poolLength: Double?
        var numActiveLengths: Double?
        var avgCadence: Double?
        var avgSpeed: Double?
    }
    struct Point: Decodable, Sendable {
        var timestamp: String?
        var lat: Double?
        var lon: Double?
        var heartRate: Double?
        var distance: Double?
        var power: Double?
    }
    struct Records: Decodable, Sendable {
        var count: Int
        var withTimestamp: Int
        var withPosition: Int
        var withHeartRate: Int
        var withPower: Int
        var withDeveloperFields: Int
        var heartRateMin: Double?
        var heartRateMax: Double?
        var heartRateMean: Double?
        var first: Point?
        var last: Point?
        var withHeartRateWithoutHrMerge: Int?
    }
    struct Lengths: Decodable, Sendable {
        var count: Int
        var byType: [String: Int]
        var strokes: [String: Int]
    }
    struct DeveloperField: Decodable, Sendable, Hashable {
        var developerDataIndex: Int
        var fieldDefinitionNumber: Int
        var fieldName: String?
        var units: String?
        var nativeMesgNum: Int?
        var nativeFieldNum: Int?
    }

    var file: String
    var bytes: Int
    var fitFilesInContainer: [Container]
    var sdkErrors: [String]
    var messageCounts: [String: Int]
    var fileId: FileID
    var sessions: [Session]?
    var records: Records
    var lengths: Lengths?
    var other: [String: Int]?
    var developerFields: [DeveloperField]?

    var testDescription: String { file }

    /// The file's bytes.
    func contents() throws -> [UInt8] {
        [UInt8](try Data(contentsOf: Oracle.folder.appendingPathComponent(file)))
    }
}

/// Global message numbers of the SDK's message names in oracle.json (Garmin's FIT profile,
/// `mesg_num`); `unknown_N` is N.
let messageNumbers: [String: UInt16] = [
    "file_id": 0, "device_settings": 2, "user_profile": 3, "zones_target": 7, "hr_zone": 8, "power_zone": 9,
    "sport": 12, "training_settings": 13, "session": 18, "lap": 19, "record": 20, "event": 21, "device_info": 23,
    "workout": 26, "workout_step": 27, "activity": 34, "file_creator": 49, "training_file": 72, "hrv": 78,
    "length": 101, "battery": 104, "hr": 132, "gps_metadata": 160, "field_description": 206,
    "developer_data_id": 207, "time_in_zone": 216, "split": 312, "split_summary": 313,
]

/// Manufacturer numbers of the names in oracle.json (Garmin's FIT profile, `manufacturer`).
let manufacturerNumbers: [String: UInt64] = [
    "garmin": 1, "wahoo_fitness": 32, "sigmasport": 70, "stryd": 95, "zwift": 260, "strava": 265, "coros": 294,
]

/// Seconds since the FIT epoch of an oracle time ("2017-05-18T16:37:30Z").
func fitTime(_ text: String) -> UInt32? {
    let formatter = ISO8601DateFormatter()
    guard let date = formatter.date(from: text) else { return nil }
    return UInt32(exactly: Int64(date.timeIntervalSince1970) - FITProfile.epoch)
}
