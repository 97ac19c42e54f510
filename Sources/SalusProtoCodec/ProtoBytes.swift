/// Protocol Buffers' binary format, written into one growing buffer. Each write checks the room
/// once and then writes through a pointer (``ProtoWriter``), with none of an array's uniqueness
/// checks per byte.
///
/// A message field is opened with ``begin(_:)`` and closed with ``end(_:)``, which writes its
/// length before its content: the content is written once, in place, and moved only when its
/// length takes more than one byte.
///
/// Not copyable: the buffer has one owner, and `removeAll()` keeps its memory for the next use.
public struct ProtoBytes: ~Copyable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    /// How many bytes are written.
    @usableFromInline var written = 0

    /// An empty buffer with room for `capacity` bytes.
    @inlinable public init(capacity: Int = 1024) {
        self.capacity = Swift.max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit { base.deallocate() }

    /// How many bytes are written.
    @inlinable public var count: Int { written }

    /// Forgets the bytes and keeps the memory.
    @inlinable public mutating func removeAll() { written = 0 }

    /// The bytes written, as `body` sees them.
    @inlinable public func withBytes<T, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> T) throws(E) -> T {
        try body(UnsafeRawBufferPointer(start: base, count: written))
    }

    /// The bytes written, copied into an array.
    public var array: [UInt8] {
        Array(UnsafeBufferPointer(start: base, count: written))
    }

    /// Makes room for `extra` more bytes.
    @inlinable @inline(__always) public mutating func reserve(_ extra: Int) {
        if capacity - written < extra { grow(extra) }
    }

    @usableFromInline @inline(never) mutating func grow(_ extra: Int) {
        let size = Swift.max(capacity * 2, written + extra)
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: size)
        grown.initialize(from: base, count: written)
        base.deallocate()
        base = grown
        capacity = size
    }

    /// Runs `body` on a writer at the end, with room for `extra` bytes; `body` writes at most that.
    @inlinable @inline(__always) public mutating func write(_ extra: Int, _ body: (inout ProtoWriter) -> Void) {
        reserve(extra)
        var writer = ProtoWriter(cursor: base + written)
        body(&writer)
        written = writer.cursor - base
    }

    /// A varint with no tag (an element of a packed field).
    @inlinable @inline(__always) public mutating func varint(_ value: UInt64) {
        write(ProtoWriter.maxVarint) { $0.varint(value) }
    }

    /// An int64 (or int32, or an enum) field.
    @inlinable @inline(__always) public mutating func int64(_ field: UInt64, _ value: Int64, always: Bool = false) {
        guard always || value != 0 else { return }
        write(2 * ProtoWriter.maxVarint) { $0.int64(field, value, always: true) }
    }

    /// A uint64 (or uint32) field.
    @inlinable @inline(__always) public mutating func uint64(_ field: UInt64, _ value: UInt64, always: Bool = false) {
        guard always || value != 0 else { return }
        write(2 * ProtoWriter.maxVarint) { $0.uint64(field, value, always: true) }
    }

    /// A bool field.
    @inlinable @inline(__always) public mutating func bool(_ field: UInt64, _ value: Bool, always: Bool = false) {
        uint64(field, value ? 1 : 0, always: always)
    }

    /// A double field.
    @inlinable @inline(__always) public mutating func double(_ field: UInt64, _ value: Double, always: Bool = false) {
        guard always || value.bitPattern != 0 else { return }
        write(ProtoWriter.maxVarint + 8) { $0.double(field, value, always: true) }
    }

    /// A string or bytes field from raw bytes.
    @inlinable @inline(__always) public mutating func bytes(_ field: UInt64, _ raw: UnsafeRawBufferPointer, always: Bool = false) {
        guard always || !raw.isEmpty else { return }
        write(2 * ProtoWriter.maxVarint + raw.count) {
            $0.tag(field, .lengthDelimited)
            $0.varint(UInt64(raw.count))
            $0.copy(raw)
        }
    }

    /// A string field from a Swift string.
    @inlinable public mutating func string(_ field: UInt64, _ text: String, always: Bool = false) {
        var text = text
        text.withUTF8 { self.bytes(field, UnsafeRawBufferPointer($0), always: always) }
    }

    /// Bytes that are already encoded fields.
    @inlinable public mutating func append(contentsOf raw: [UInt8]) {
        raw.withUnsafeBytes { raw in write(raw.count) { $0.copy(raw) } }
    }

    /// Appends `range` of `other`.
    @inlinable @inline(__always) public mutating func append(_ other: borrowing ProtoBytes, _ range: Range<Int>) {
        guard !range.isEmpty else { return }
        let source = UnsafeRawBufferPointer(start: other.base + range.lowerBound, count: range.count)
        write(range.count) { $0.copy(source) }
    }

    /// Opens a message field (or a packed repeated field); returns where its content starts,
    /// for ``end(_:)``.
    @inlinable @inline(__always) public mutating func begin(_ field: UInt64) -> Int {
        write(ProtoWriter.maxVarint + 1) {
            $0.tag(field, .lengthDelimited)
            $0.cursor.pointee = 0
            $0.cursor += 1
        }
        return written
    }

    /// A message field written by `body`, always (an empty message still marks presence).
    @inlinable public mutating func message<E: Error>(_ field: UInt64, _ body: (inout ProtoBytes) throws(E) -> Void) throws(E) {
        let start = begin(field)
        try body(&self)
        end(start)
    }

    /// A packed repeated int64 (or int32, or enum) field; nothing when `values` is empty.
    @inlinable public mutating func packedInt64(_ field: UInt64, _ values: [Int64]) {
        guard !values.isEmpty else { return }
        let start = begin(field)
        for value in values { varint(UInt64(bitPattern: value)) }
        end(start)
    }

    /// Closes the field whose content starts at `start`: writes its length, moving the content
    /// when the length takes more than the one byte `begin` kept.
    @inlinable @inline(__always) public mutating func end(_ start: Int) {
        let length = written - start
        if length < 0x80 {
            base[start - 1] = UInt8(length)
            return
        }
        let size = ProtoWriter.varintSize(UInt64(length))
        reserve(size - 1)
        UnsafeMutableRawPointer(base + start + size - 1).copyMemory(from: base + start, byteCount: length)
        var writer = ProtoWriter(cursor: base + start - 1)
        writer.varint(UInt64(length))
        written += size - 1
    }
}
