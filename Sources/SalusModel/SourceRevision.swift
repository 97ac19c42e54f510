/// The app, and its version, that saved a sample, as HealthKit's `HKSourceRevision`.
///
/// The daemon assigns it from the calling connection; a value a client sends is never trusted.
///
/// Its fields live in one shared box (copy on write), as ``Device``'s do: a sample holds one
/// pointer, and the samples of one page share their source.
public struct SourceRevision: Hashable, Sendable, Codable {
    /// The fields, stored once and shared by copies (copy on write).
    struct Fields: Hashable, Codable {
        var appID: String
        var name: String
        var version: String?
        var productType: String?
        var osVersion: String?
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

    /// The app id ("org.example.sleepdiary").
    public var appID: String {
        get { box.fields.appID }
        set { change { $0.appID = newValue } }
    }

    /// The app's name for people.
    public var name: String {
        get { box.fields.name }
        set { change { $0.name = newValue } }
    }

    /// The app's version, if known.
    public var version: String? {
        get { box.fields.version }
        set { change { $0.version = newValue } }
    }

    /// The kind of machine the app ran on, if known ("x86_64", "Watch5,4").
    public var productType: String? {
        get { box.fields.productType }
        set { change { $0.productType = newValue } }
    }

    /// The operating system version as "major.minor.patch", if known.
    public var osVersion: String? {
        get { box.fields.osVersion }
        set { change { $0.osVersion = newValue } }
    }

    /// Creates a source revision.
    public init(
        appID: String,
        name: String,
        version: String? = nil,
        productType: String? = nil,
        osVersion: String? = nil
    ) {
        box = Box(Fields(appID: appID, name: name, version: version, productType: productType, osVersion: osVersion))
    }

    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.box === rhs.box || lhs.box.fields == rhs.box.fields
    }

    public func hash(into hasher: inout Hasher) { box.fields.hash(into: &hasher) }

    /// The same keys as the fields' own (one per field).
    public init(from decoder: any Decoder) throws { box = Box(try Fields(from: decoder)) }

    public func encode(to encoder: any Encoder) throws { try box.fields.encode(to: encoder) }
}
