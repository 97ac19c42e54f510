/// The extensions a client turns on by listing them in Hello (docs/protocol.md, section 6).
struct HelloFeatures: OptionSet, Sendable {
    let rawValue: UInt8

    /// The server honours Cancel frames.
    static let cancel = HelloFeatures(rawValue: 1 << 0)
    /// Calls have windows both ways and the server sends WindowUpdate frames.
    static let windowUpdate = HelloFeatures(rawValue: 1 << 1)
    /// The server sends GoAway on shutdown.
    static let goAway = HelloFeatures(rawValue: 1 << 2)

    /// Every feature the server offers, by its name in Hello, in the order Hello lists them.
    static let offered: [(name: String, feature: HelloFeatures)] = [
        ("cancel", .cancel), ("window_update", .windowUpdate), ("go_away", .goAway),
    ]

    init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// The offered features among `names`; names the server does not know are left out.
    init(names: [String]) {
        self = Self.offered.reduce(into: []) { features, offer in
            if names.contains(offer.name) { features.insert(offer.feature) }
        }
    }

    /// The names of these features, in the order Hello lists them.
    var names: [String] { Self.offered.filter { contains($0.feature) }.map(\.name) }
}
