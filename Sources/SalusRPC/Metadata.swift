import SalusProto

/// Call metadata: ordered string pairs, at most 8 KiB of keys and values together.
package struct Metadata: Hashable, Sendable, Sequence {
    package private(set) var pairs: [(key: String, value: String)]

    package init(_ pairs: [(String, String)] = []) {
        self.pairs = pairs.map { (key: $0.0, value: $0.1) }
    }

    init(_ keyValues: [Salus_V1_KeyValue]) {
        self.pairs = keyValues.map { (key: $0.key, value: $0.value) }
    }

    /// The first value for `key`.
    package subscript(key: String) -> String? {
        pairs.first(where: { $0.key == key })?.value
    }

    package mutating func append(_ key: String, _ value: String) {
        pairs.append((key, value))
    }

    /// Bytes of keys and values together, as the 8 KiB limit counts them.
    package var size: Int { pairs.reduce(0) { $0 + $1.key.utf8.count + $1.value.utf8.count } }

    var keyValues: [Salus_V1_KeyValue] {
        pairs.map { pair in
            var keyValue = Salus_V1_KeyValue()
            keyValue.key = pair.key
            keyValue.value = pair.value
            return keyValue
        }
    }

    package func makeIterator() -> IndexingIterator<[(key: String, value: String)]> {
        pairs.makeIterator()
    }

    package static func == (lhs: Metadata, rhs: Metadata) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs, by: { $0 == $1 })
    }

    package func hash(into hasher: inout Hasher) {
        for pair in pairs {
            hasher.combine(pair.key)
            hasher.combine(pair.value)
        }
    }
}
