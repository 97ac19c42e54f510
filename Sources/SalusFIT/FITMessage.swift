/// One value of a field as the file holds it, before any scale or offset: invalid values (the
/// base type's "no value") are absent, never returned.
public enum FITValue: Sendable, Equatable {
    /// A signed integer (`sint8` … `sint64`).
    case signed(Int64)
    /// An unsigned integer or an enumeration (`enum`, `uint8` … `uint64z`).
    case unsigned(UInt64)
    /// A `float32` or `float64`.
    case float(Double)
    /// A `string`: the UTF-8 bytes up to the first NUL, or all of them when the field has none.
    case string(String)
    /// The bytes of a `byte` field, or of a field whose size is no multiple of its base type's
    /// (then the values cannot be read and the decoding reports the definition).
    case bytes([UInt8])
    /// Several values of one base type (a field whose size is a multiple of the type's size):
    /// nil where a value is invalid; at least one is valid.
    case array([FITValue?])

    /// The value as a number, when it is one number.
    public var number: Double? {
        switch self {
        case .signed(let value): Double(value)
        case .unsigned(let value): Double(value)
        case .float(let value): value
        case .string, .bytes, .array: nil
        }
    }

    /// The value as an unsigned integer, when it is one integer that is not negative.
    public var unsigned: UInt64? {
        switch self {
        case .unsigned(let value): value
        case .signed(let value): value >= 0 ? UInt64(value) : nil
        default: nil
        }
    }

    /// The values as numbers: one for a single number, each element of an array (nil where
    /// invalid), none for a string or bytes.
    public var numbers: [Double?] {
        switch self {
        case .array(let values): values.map { $0?.number }
        case .string, .bytes: []
        default: [number]
        }
    }
}

/// A field of a data message, by its number in the message's definition.
public struct FITField: Sendable, Equatable {
    /// The field definition number.
    public var number: UInt8
    /// The base type the definition gave.
    public var baseType: FITBaseType?
    /// The value (never invalid).
    public var value: FITValue
}

/// A developer field of a data message: its value read with the base type its
/// `field_description` gave, or as bytes when no description came before it.
public struct FITDeveloperField: Sendable, Equatable {
    /// The `developer_data_index` the field's definition named.
    public var developerDataIndex: UInt8
    /// The field's number within that developer's fields (`field_definition_number`).
    public var number: UInt8
    /// The value (never invalid).
    public var value: FITValue
}

/// One data message of a FIT file.
public struct FITMessage: Sendable, Equatable {
    /// The global message number (`record` is 20, `session` 18: ``FITProfile/Message``).
    public var globalNumber: UInt16
    /// The byte offset of the message's record header in the bytes decoded.
    public var offset: Int
    /// Which FIT file of a chain (0 for the first) the message is in.
    public var fileIndex: Int
    /// The message's time, in seconds since the FIT epoch (1989-12-31 00:00:00 UTC): its
    /// `timestamp` field (253), or the time of a compressed-timestamp header, or a `timestamp_16`
    /// rolled against the last full timestamp before it; nil when it has none or the decoding
    /// refused it (a ``FITProblem/Kind/timestampOutOfRange`` at this message's offset).
    public var timestamp: UInt32?
    /// The valid fields, in the definition's order.
    public var fields: [FITField]
    /// The valid developer fields, in the definition's order.
    public var developerFields: [FITDeveloperField]

    /// The field numbered `number`, if the message holds a valid one.
    public func field(_ number: UInt8) -> FITValue? {
        for field in fields where field.number == number { return field.value }
        return nil
    }

    /// The profile field's value with its scale and offset applied (value / scale − offset), in
    /// the field's units; nil when the message is of another number, lacks the field, or holds an
    /// array, a string or bytes there.
    public func value(_ key: FITProfile.Field) -> Double? {
        guard key.message == globalNumber, let raw = field(key.number)?.number else { return nil }
        return key.apply(raw)
    }

    /// The profile field's values with scale and offset applied (an array field's elements, nil
    /// where invalid); empty when the message lacks the field.
    public func values(_ key: FITProfile.Field) -> [Double?] {
        guard key.message == globalNumber, let value = field(key.number) else { return [] }
        return value.numbers.map { $0.map(key.apply) }
    }

    /// The profile field's value as an integer, without scale (enumerations, counts, indexes).
    public func integer(_ key: FITProfile.Field) -> UInt64? {
        guard key.message == globalNumber else { return nil }
        return field(key.number)?.unsigned
    }

    /// The profile field's string value.
    public func string(_ key: FITProfile.Field) -> String? {
        guard key.message == globalNumber, case .string(let text) = field(key.number) else { return nil }
        return text
    }
}
