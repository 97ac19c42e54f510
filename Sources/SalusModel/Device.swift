/// The device that measured a sample, as HealthKit's `HKDevice`; every field is optional.
///
/// Device predicates match on these fields, and an absent field (nil) matches a nil predicate
/// value, so keep unknown fields nil rather than empty.
///
/// Its fields live in one shared box (copy on write): a sample holds one pointer, not eight
/// strings, so arrays of samples (a catch-up reads millions) are that much smaller to grow and
/// copy, and the samples of one device share it.
public struct Device: Hashable, Sendable, Codable {
    /// The fields, stored once and shared by copies (copy on write).
    struct Fields: Hashable, Codable {
        var name: String?
        var manufacturer: String?
        var model: String?
        var hardwareVersion: String?
        var firmwareVersion: String?
        var softwareVersion: String?
        var localIdentifier: String?
        var udiDeviceIdentifier: String?
    }

    /// Holds the fields; mutated in place only when no other copy refers to it.
    final class Box: @unchecked Sendable {
        var fields: Fields
        init(_ fields: Fields) { self.fields = fields }
    }

    private var box: Box

    private mutating func change(_ body: (inout Fields) -> Void) {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.fields) }
        body(&box.fields)
    }

    /// A name for people ("Apple Watch").
    public var name: String? {
        get { box.fields.name }
        set { change { $0.name = newValue } }
    }

    /// The maker ("Apple Inc.").
    public var manufacturer: String? {
        get { box.fields.manufacturer }
        set { change { $0.manufacturer = newValue } }
    }

    /// The model ("Watch").
    public var model: String? {
        get { box.fields.model }
        set { change { $0.model = newValue } }
    }

    /// The hardware revision ("Watch5,4").
    public var hardwareVersion: String? {
        get { box.fields.hardwareVersion }
        set { change { $0.hardwareVersion = newValue } }
    }

    /// The firmware revision.
    public var firmwareVersion: String? {
        get { box.fields.firmwareVersion }
        set { change { $0.firmwareVersion = newValue } }
    }

    /// The software revision ("7.6.2").
    public var softwareVersion: String? {
        get { box.fields.softwareVersion }
        set { change { $0.softwareVersion = newValue } }
    }

    /// An identifier local to the app or machine (a Bluetooth address, say).
    public var localIdentifier: String? {
        get { box.fields.localIdentifier }
        set { change { $0.localIdentifier = newValue } }
    }

    /// The FDA Unique Device Identifier's device identifier part.
    public var udiDeviceIdentifier: String? {
        get { box.fields.udiDeviceIdentifier }
        set { change { $0.udiDeviceIdentifier = newValue } }
    }

    /// Creates a device description; pass only what is known.
    public init(
        name: String? = nil,
        manufacturer: String? = nil,
        model: String? = nil,
        hardwareVersion: String? = nil,
        firmwareVersion: String? = nil,
        softwareVersion: String? = nil,
        localIdentifier: String? = nil,
        udiDeviceIdentifier: String? = nil
    ) {
        box = Box(Fields(name: name, manufacturer: manufacturer, model: model, hardwareVersion: hardwareVersion, firmwareVersion: firmwareVersion, softwareVersion: softwareVersion, localIdentifier: localIdentifier, udiDeviceIdentifier: udiDeviceIdentifier))
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    public func hash(into hasher: inout Hasher) { box.fields.hash(into: &hasher) }

    /// The same keys as the fields' own (one per field).
    public init(from decoder: any Decoder) throws { box = Box(try Fields(from: decoder)) }

    public func encode(to encoder: any Encoder) throws { try box.fields.encode(to: encoder) }
}
