/// The app, and its version, that saved a sample, as HealthKit's `HKSourceRevision`.
///
/// The daemon assigns it from the calling connection; a value a client sends is never trusted.
public struct SourceRevision: Hashable, Sendable, Codable {
    /// The app id ("org.example.sleepdiary").
    public var appID: String
    /// The app's name for people.
    public var name: String
    /// The app's version, if known.
    public var version: String?
    /// The kind of machine the app ran on, if known ("x86_64", "Watch5,4").
    public var productType: String?
    /// The operating system version as "major.minor.patch", if known.
    public var osVersion: String?

    /// Creates a source revision.
    public init(
        appID: String,
        name: String,
        version: String? = nil,
        productType: String? = nil,
        osVersion: String? = nil
    ) {
        self.appID = appID
        self.name = name
        self.version = version
        self.productType = productType
        self.osVersion = osVersion
    }
}
