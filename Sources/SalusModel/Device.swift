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
    struct Fields: Hashable, Codable, Sendable {
        var name: String?
        var manufacturer: String?
        var model: String?
        var hardwareVersion: String?
        var firmwareVersion: String?
        var softwareVersion: String?
        var localIdentifier: String?
        var udiDeviceIdentifier: String?
    }

    private var fields: CopyOnWrite<Fields>

    /// A name for people ("Apple Watch").
    public var name: String? {
        get { fields.value.name }
        set { fields.modify { $0.name = newValue } }
    }

    /// The maker ("Apple Inc.").
    public var manufacturer: String? {
        get { fields.value.manufacturer }
        set { fields.modify { $0.manufacturer = newValue } }
    }

    /// The model ("Watch").
    public var model: String? {
        get { fields.value.model }
        set { fields.modify { $0.model = newValue } }
    }

    /// The hardware revision ("Watch5,4").
    public var hardwareVersion: String? {
        get { fields.value.hardwareVersion }
        set { fields.modify { $0.hardwareVersion = newValue } }
    }

    /// The firmware revision.
    public var firmwareVersion: String? {
        get { fields.value.firmwareVersion }
        set { fields.modify { $0.firmwareVersion = newValue } }
    }

    /// The software revision ("7.6.2").
    public var softwareVersion: String? {
        get { fields.value.softwareVersion }
        set { fields.modify { $0.softwareVersion = newValue } }
    }

    /// An identifier local to the app or machine (a Bluetooth address, say).
    public var localIdentifier: String? {
        get { fields.value.localIdentifier }
        set { fields.modify { $0.localIdentifier = newValue } }
    }

    /// The FDA Unique Device Identifier's device identifier part.
    public var udiDeviceIdentifier: String? {
        get { fields.value.udiDeviceIdentifier }
        set { fields.modify { $0.udiDeviceIdentifier = newValue } }
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
        fields = CopyOnWrite(
            Fields(
                name: name, manufacturer: manufacturer, model: model, hardwareVersion: hardwareVersion,
                firmwareVersion: firmwareVersion, softwareVersion: softwareVersion, localIdentifier: localIdentifier,
                udiDeviceIdentifier: udiDeviceIdentifier))
    }

    /// The same keys as the fields' own (one per field).
    public init(from decoder: any Decoder) throws { fields = try CopyOnWrite(from: decoder) }

    public func encode(to encoder: any Encoder) throws { try fields.encode(to: encoder) }
}
