/// The device that measured a sample, as HealthKit's `HKDevice`; every field is optional.
///
/// Device predicates match on these fields, and an absent field (nil) matches a nil predicate
/// value, so keep unknown fields nil rather than empty.
public struct Device: Hashable, Sendable, Codable {
    /// A name for people ("Apple Watch").
    public var name: String?
    /// The maker ("Apple Inc.").
    public var manufacturer: String?
    /// The model ("Watch").
    public var model: String?
    /// The hardware revision ("Watch5,4").
    public var hardwareVersion: String?
    /// The firmware revision.
    public var firmwareVersion: String?
    /// The software revision ("7.6.2").
    public var softwareVersion: String?
    /// An identifier local to the app or machine (a Bluetooth address, say).
    public var localIdentifier: String?
    /// The FDA Unique Device Identifier's device identifier part.
    public var udiDeviceIdentifier: String?

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
        self.name = name
        self.manufacturer = manufacturer
        self.model = model
        self.hardwareVersion = hardwareVersion
        self.firmwareVersion = firmwareVersion
        self.softwareVersion = softwareVersion
        self.localIdentifier = localIdentifier
        self.udiDeviceIdentifier = udiDeviceIdentifier
    }
}
