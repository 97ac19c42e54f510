import Foundation
import SalusModel

/// Predicate trees built from fuzzer bytes read as choices, whose numbers come from a table of
/// edge values: ±1e300, the largest finite double, ±infinity, NaN, subnormals, the int64 edges
/// as doubles, dates past what the store's int64 microseconds hold — or, when a byte asks,
/// any 8 bytes as a double. A byte-level mutation of a wire predicate rarely lands on such a
/// double; this reaches them in a few choices (`workout.duration > 1e300 s` is five bytes).
struct ExtremePredicates {
    /// Doubles at the edges of a `Double`, of int64 microseconds and of the store's dates.
    static let numbers: [Double] = [
        0, -0.0, 1, -1, 0.5, 1800, 60, 150, 1e300, -1e300, .greatestFiniteMagnitude, -.greatestFiniteMagnitude,
        .infinity, -.infinity, .nan, -.nan, .leastNonzeroMagnitude, -.leastNonzeroMagnitude, .leastNormalMagnitude,
        Double(Int64.max), Double(Int64.min), Double(Int64.max) / 1e6, Double(Int64.min) / 1e6, 9.2e12, -9.2e12,
        9.3e12, -9.3e12, 1e10, 1e15, 9_007_199_254_740_993, Double(Int32.max), Double(UInt64.max),
    ]

    /// Integers at the edges of `Int`, `Int32` and `UInt32`, and a few ordinary ones.
    static let integers: [Int] = [0, 1, -1, 2, 3, 37, 82, Int.max, Int.min, Int(Int32.max), Int(Int32.min), Int(UInt32.max), 255]

    static let units: [SalusUnit] = ["count", "count/min", "kcal", "km", "m", "degC", "mL", "s", "%", "mmol<180.15588>/L"].map {
        try! SalusUnit(parsing: $0)
    }

    static let quantityTypes: [TypeIdentifier] = [
        "HKQuantityTypeIdentifierActiveEnergyBurned", "HKQuantityTypeIdentifierHeartRate",
        "HKQuantityTypeIdentifierDistanceWalkingRunning", "HKQuantityTypeIdentifierStepCount", "org.example.unknown",
    ]

    static let metadataKeys = ["HKWasUserEntered", "org.example.note", "HKMetadataKeySyncVersion", "HKMetadataKeySyncIdentifier", "HKTimeZone"]

    private var bytes: [UInt8]
    private var position = 0

    init(_ bytes: some Sequence<UInt8>) {
        self.bytes = Array(bytes)
    }

    var isExhausted: Bool { position >= bytes.count }

    /// The next byte; zero once the input is used up, so every input builds a finite tree.
    mutating func byte() -> UInt8 {
        defer { position += 1 }
        return position < bytes.count ? bytes[position] : 0
    }

    mutating func pick<T>(_ choices: [T]) -> T {
        choices[Int(byte()) % choices.count]
    }

    mutating func flag() -> Bool { byte() & 1 == 1 }

    /// A number from the table, or (byte 255) the next 8 bytes as a double.
    mutating func number() -> Double {
        let choice = byte()
        guard choice == 255 else { return Self.numbers[Int(choice) % Self.numbers.count] }
        var bits: UInt64 = 0
        for _ in 0..<8 { bits = bits << 8 | UInt64(byte()) }
        return Double(bitPattern: bits)
    }

    mutating func date() -> Date {
        switch byte() % 4 {
        case 0: Date(timeIntervalSince1970: 1_700_000_000 + number())
        case 1: .distantPast
        case 2: .distantFuture
        default: Date(timeIntervalSince1970: number())
        }
    }

    mutating func optionalDate() -> Date? { flag() ? date() : nil }

    /// A UUID from the next 16 bytes (the same input, the same UUID).
    mutating func uuid() -> UUID {
        var raw: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &raw) { buffer in
            for index in buffer.indices { buffer[index] = byte() }
        }
        return UUID(uuid: raw)
    }

    mutating func comparison() -> ComparisonOperator { pick(ComparisonOperator.allCases) }

    mutating func quantity() -> Quantity { Quantity(value: number(), unit: pick(Self.units)) }

    mutating func metadataValue() -> MetadataValue {
        switch byte() % 5 {
        case 0: .number(number())
        case 1: .date(date())
        case 2: .quantity(quantity())
        case 3: .bool(flag())
        default: .string(pick(["walk", "", "Europe/Paris", "1e300"]))
        }
    }

    mutating func statistic() -> WorkoutStatisticTest {
        WorkoutStatisticTest(pick(Self.quantityTypes), pick(WorkoutStatistic.allCases), comparison(), quantity())
    }

    /// A predicate node; and/or/not nest at most `depth` more levels.
    mutating func predicate(depth: Int = 4) -> SamplePredicate {
        let kinds = depth > 0 ? 16 : 13
        switch Int(byte()) % kinds {
        case 0:
            return .dateWindow(DateWindow(start: optionalDate(), end: optionalDate(), strictStartDate: flag(), strictEndDate: flag()))
        case 1:
            return .quantity(comparison(), quantity())
        case 2:
            return .categoryValues(Set((0..<Int(byte() % 4)).map { _ in pick(Self.integers) }), valueGroups: flag() ? ["allAsleep"] : [])
        case 3:
            return .workout(.duration(comparison(), seconds: number()))
        case 4:
            return .workout(.activityType(UInt(truncatingIfNeeded: pick(Self.integers))))
        case 5:
            let test = statistic()
            return .workout(.statistic(quantityType: test.quantityType, test.statistic, test.comparison, test.quantity))
        case 6:
            return .workout(.activity(WorkoutActivityTest(
                activityType: flag() ? UInt(truncatingIfNeeded: pick(Self.integers)) : nil,
                duration: flag() ? (comparison(), number()) : nil,
                statistic: flag() ? statistic() : nil)))
        case 7:
            let key = pick(Self.metadataKeys)
            if flag() { return .metadata(key: key, test: .comparison(comparison(), metadataValue())) }
            return .metadata(key: key, test: .allowedValues((0..<Int(byte() % 3)).map { _ in metadataValue() }))
        case 8:
            return .metadata(key: pick(Self.metadataKeys), test: flag() ? .exists : .absent)
        case 9:
            switch byte() % 4 {
            case 0: return .prescription(.dateIssued(start: optionalDate(), end: optionalDate()))
            case 1: return .prescription(.expirationDate(start: optionalDate(), end: optionalDate()))
            case 2: return .prescription(.validAt(date()))
            default: return .prescription(.prescriptionType(flag() ? .glasses : .contacts))
            }
        case 10:
            return .sources(flag() ? ["org.example.fuzz"] : ["org.example.other", ""])
        case 11:
            return .uuids(Set((0..<Int(byte() % 3)).map { _ in uuid() }))
        case 12:
            return .deviceProperty(pick(DeviceProperty.allCases), allowedValues: flag() ? ["Watch"] : [])
        case 13:
            return .not(predicate(depth: depth - 1))
        case 14:
            return .and((0..<Int(byte() % 4)).map { _ in predicate(depth: depth - 1) })
        default:
            return .or((0..<Int(byte() % 4)).map { _ in predicate(depth: depth - 1) })
        }
    }
}
