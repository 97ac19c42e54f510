/// The app, and its version, that saved a sample, as HealthKit's `HKSourceRevision`.
///
/// The daemon assigns it from the calling connection; a value a client sends is never trusted.
///
/// Its fields live in one shared box (copy on write), as ``Device``'s do: a sample holds one
/// pointer, and the samples of one page share their source.
public struct SourceRevision: Hashable, Sendable, Codable {
    /// The fields, stored once and shared by copies (copy on write).
    struct Fields: Hashable, Codable, Sendable {
        var appID: String
        var name: String
        var version: String?
        var productType: String?
        var osVersion: String?
    }

    private var fields: CopyOnWrite<Fields>

    /// The app id ("org.example.sleepdiary").
    public var appID: String {
        get { fields.value.appID }
        set { fields.modify { $0.appID = newValue } }
    }

    /// The app's name for people.
    public var name: String {
        get { fields.value.name }
        set { fields.modify { $0.name = newValue } }
    }

    /// The app's version, if known.
    public var version: String? {
        get { fields.value.version }
        set { fields.modify { $0.version = newValue } }
    }

    /// The kind of machine the app ran on, if known ("x86_64", "Watch5,4").
    public var productType: String? {
        get { fields.value.productType }
        set { fields.modify { $0.productType = newValue } }
    }

    /// The operating system version as "major.minor.patch", if known.
    public var osVersion: String? {
        get { fields.value.osVersion }
        set { fields.modify { $0.osVersion = newValue } }
    }

    /// Creates a source revision.
    public init(
        appID: String,
        name: String,
        version: String? = nil,
        productType: String? = nil,
        osVersion: String? = nil
    ) {
        fields = CopyOnWrite(Fields(appID: appID, name: name, version: version, productType: productType, osVersion: osVersion))
    }

    /// The same keys as the fields' own (one per field).
    public init(from decoder: any Decoder) throws { fields = try CopyOnWrite(from: decoder) }

    public func encode(to encoder: any Encoder) throws { try fields.encode(to: encoder) }
}
