/// A value kept in one heap box that copies share, copied only when a copy that shares it is
/// changed: a struct holding one is a pointer wide, whatever the value's size.
///
/// Equality, hashing and coding are the value's (its coding is inline: no key of its own).
struct CopyOnWrite<Value: Hashable & Codable & Sendable>: Hashable, Codable, @unchecked Sendable {
    // Unchecked: the box is changed in place only while no other copy refers to it.
    private final class Box {
        var value: Value
        init(_ value: Value) { self.value = value }
    }

    private var box: Box

    init(_ value: Value) { box = Box(value) }

    /// The value, read through the shared box.
    var value: Value { box.value }

    /// Changes the value, in place when this copy alone holds the box.
    mutating func modify(_ body: (inout Value) -> Void) {
        if !isKnownUniquelyReferenced(&box) { box = Box(box.value) }
        body(&box.value)
    }

    static func == (lhs: Self, rhs: Self) -> Bool { lhs.box === rhs.box || lhs.box.value == rhs.box.value }

    func hash(into hasher: inout Hasher) { box.value.hash(into: &hasher) }

    init(from decoder: any Decoder) throws { box = Box(try Value(from: decoder)) }

    func encode(to encoder: any Encoder) throws { try box.value.encode(to: encoder) }
}
