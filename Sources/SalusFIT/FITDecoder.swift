/// Decodes FIT files, as the protocol describes them: a file header (12 or 14 bytes, ".FIT", an
/// optional header CRC), data records (definition and data messages, normal and
/// compressed-timestamp record headers, local message types 0–15, either endianness, developer
/// fields), the file's CRC, and further FIT files chained after it.
///
/// Nothing in the bytes can make it trap or allocate by a count the bytes state: a definition
/// holds at most 255 fields and 255 developer fields of at most 255 bytes each, and the messages
/// kept grow with the bytes read. A problem (``FITProblem``) names its byte offset and what was
/// expected; after a fatal one the messages before it are kept, the rest of that FIT file is
/// skipped, and decoding goes on with the next file of the chain when the header's data size
/// shows where it starts.
public struct FITDecoder: Sendable {
    /// Limits of a decoding.
    public struct Options: Sendable {
        /// How far a timestamp may be after its FIT file's time of creation (`file_id`'s
        /// `time_created`; in a file without one, after the file's first timestamp), in seconds:
        /// 31 days, as an activity or a day's monitoring is far shorter. A later one is refused as
        /// ``FITProblem/Kind/timestampOutOfRange``. Times before it are not checked: watches write
        /// the file at the end of an activity, and some carry older times in settings messages.
        public var maximumSpan: UInt32 = 31 * 86_400
        /// At most this many data messages are decoded; past it, ``FITProblem/Kind/tooManyMessages``.
        public var maximumMessages = 20_000_000

        /// The default limits.
        public init() {}
    }

    /// The limits this decoder keeps.
    public var options: Options

    /// A decoder keeping `options`.
    public init(options: Options = Options()) {
        self.options = options
    }

    /// Decodes `bytes`, keeping every message in ``FITDecoding/messages``.
    public func decode(_ bytes: [UInt8]) -> FITDecoding {
        var messages: [FITMessage] = []
        var decoding = bytes.withUnsafeBytes { raw in
            decode(raw) { messages.append($0) }
        }
        decoding.messages = messages
        return decoding
    }

    /// Decodes `bytes`, handing each data message to `visit` in file order instead of keeping it
    /// (``FITDecoding/messages`` stays empty): memory does not grow with the file.
    public func decode(_ bytes: UnsafeRawBufferPointer, visit: (FITMessage) -> Void) -> FITDecoding {
        var run = DecodingRun(bytes: bytes, options: options)
        run.decodeAll(visit)
        return run.result
    }
}

/// One field of a definition, with how to read it.
private struct FieldLayout {
    var number: UInt8
    var size: Int
    /// The base type, nil when the definition named none the protocol defines.
    var baseType: FITBaseType?
    /// Whether the values are read as bytes (no base type, or a size no multiple of its size).
    var asBytes: Bool
}

/// A developer field of a definition.
private struct DeveloperLayout {
    var number: UInt8
    var size: Int
    var developerDataIndex: UInt8
}

/// A definition message: the layout of the data messages of one local message type.
private struct Definition {
    var globalNumber: UInt16
    var bigEndian: Bool
    var fields: [FieldLayout]
    var developerFields: [DeveloperLayout]
    /// The size of a data message's content (after its record header).
    var contentSize: Int
}

private struct DecodingRun {
    let bytes: UnsafeRawBufferPointer
    let options: FITDecoder.Options
    var result = FITDecoding()

    // The state of the FIT file being decoded.
    var fileIndex = 0
    var definitions = [Definition?](repeating: nil, count: 16)
    var developerTypes: [UInt16: FITBaseType] = [:]
    var lastTimestamp: UInt32?
    /// What timestamps are checked against: `time_created`, else the first absolute timestamp.
    var anchorTimestamp: UInt32?
    var reportedMissingReference = false
    /// Set when the message limit is reached: nothing more is decoded.
    var stopped = false

    init(bytes: UnsafeRawBufferPointer, options: FITDecoder.Options) {
        self.bytes = bytes
        self.options = options
    }

    mutating func problem(_ kind: FITProblem.Kind, at offset: Int, _ message: String, fatal: Bool) {
        result.problems.append(FITProblem(kind, at: offset, message, fatal: fatal))
    }

    func byte(_ offset: Int) -> UInt8 { bytes[offset] }

    func uint16LE(_ offset: Int) -> UInt16 { UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8 }

    func uint32LE(_ offset: Int) -> UInt32 {
        UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
            | UInt32(bytes[offset + 3]) << 24
    }

    func crc(_ range: Range<Int>) -> UInt16 {
        var crc = FITCRC()
        crc.update(UnsafeRawBufferPointer(rebasing: bytes[range]))
        return crc.value
    }

    /// Decodes every FIT file of the chain.
    mutating func decodeAll(_ visit: (FITMessage) -> Void) {
        guard !bytes.isEmpty else {
            problem(.notFIT, at: 0, "not a FIT file: no bytes, expected a header of 12 or more bytes", fatal: true)
            return
        }
        var start = 0
        while start < bytes.count, !stopped {
            guard let next = decodeFile(at: start, visit) else { return }
            start = next
            fileIndex += 1
        }
    }

    /// Decodes the FIT file starting at `start`; returns where the next one would start, or nil
    /// when nothing more can be read.
    mutating func decodeFile(at start: Int, _ visit: (FITMessage) -> Void) -> Int? {
        let remaining = bytes.count - start
        let isFirst = start == 0
        let headerSize = Int(byte(start))
        let hasSignature =
            remaining >= 12 && byte(start + 8) == 0x2E && byte(start + 9) == 0x46 && byte(start + 10) == 0x49
            && byte(start + 11) == 0x54
        guard headerSize >= 12, hasSignature else {
            if isFirst {
                problem(
                    .notFIT, at: start,
                    "not a FIT file: expected a header of 12 or more bytes with \".FIT\" at bytes 8–11", fatal: true)
            } else {
                problem(
                    .trailingBytes, at: start,
                    "\(remaining) bytes after the last FIT file are not another FIT file (no header with \".FIT\")",
                    fatal: false)
            }
            return nil
        }
        guard remaining >= headerSize else {
            problem(
                .truncated, at: start,
                "the file ends inside its \(headerSize)-byte header (\(remaining) bytes)", fatal: true)
            return nil
        }
        var header = FITFileHeader(
            offset: start, headerSize: headerSize, protocolVersion: byte(start + 1),
            profileVersion: uint16LE(start + 2), dataSize: uint32LE(start + 4), headerCRC: nil,
            headerCRCValid: nil, fileCRCValid: nil, bytesMissing: 0)
        if headerSize >= 14 {
            let stored = uint16LE(start + 12)
            header.headerCRC = stored
            if stored != 0 {
                let computed = crc(start..<(start + 12))
                header.headerCRCValid = computed == stored
                if computed != stored {
                    problem(
                        .headerCRC, at: start + 12,
                        "header CRC 0x\(hex(stored)) is not 0x\(hex(computed)), the CRC of the header's first 12 bytes",
                        fatal: false)
                }
            }
        }
        let dataStart = start + headerSize
        let declaredEnd = dataStart + Int(header.dataSize)
        let dataEnd = min(declaredEnd, bytes.count)
        header.bytesMissing = max(0, declaredEnd + 2 - bytes.count)
        let fileSlot = result.files.count
        result.files.append(header)

        // Each file has its own definitions, developer fields and times.
        definitions = [Definition?](repeating: nil, count: 16)
        developerTypes = [:]
        lastTimestamp = nil
        anchorTimestamp = nil
        reportedMissingReference = false

        decodeRecords(from: dataStart, to: dataEnd, visit)
        if header.bytesMissing > 0 {
            problem(
                .truncated, at: bytes.count,
                "the file ends \(header.bytesMissing) bytes early: its header announces \(header.dataSize) bytes of data and a 2-byte CRC after byte \(dataStart)",
                fatal: true)
        }
        if declaredEnd + 2 <= bytes.count {
            let stored = uint16LE(declaredEnd)
            let computed = crc(start..<declaredEnd)
            result.files[fileSlot].fileCRCValid = stored == computed
            if stored != computed {
                problem(
                    .fileCRC, at: declaredEnd,
                    "file CRC 0x\(hex(stored)) is not 0x\(hex(computed)), the CRC of the \(declaredEnd - start) bytes before it",
                    fatal: false)
            }
            return declaredEnd + 2
        }
        return nil
    }

    /// Decodes the records in `start..<end`; returns the offset of a fatal problem, or nil when
    /// the records were read to `end`.
    @discardableResult
    mutating func decodeRecords(from start: Int, to end: Int, _ visit: (FITMessage) -> Void) -> Int? {
        var position = start
        while position < end {
            let recordHeader = byte(position)
            if recordHeader & 0x80 == 0, recordHeader & 0x40 != 0 {
                guard let next = readDefinition(at: position, end: end) else { return position }
                position = next
                continue
            }
            let local: Int
            var compressedOffset: UInt32?
            if recordHeader & 0x80 != 0 {
                local = Int((recordHeader >> 5) & 0x03)
                compressedOffset = UInt32(recordHeader & 0x1F)
            } else {
                local = Int(recordHeader & 0x0F)
            }
            guard let definition = definitions[local] else {
                problem(
                    .undefinedLocalMessage, at: position,
                    "record header 0x\(hex(recordHeader)) is a data message of local message type \(local), which no definition before it in this file defined",
                    fatal: true)
                return position
            }
            guard position + 1 + definition.contentSize <= end else {
                problem(
                    .truncated, at: position,
                    "message \(definition.globalNumber) (local message type \(local)) needs \(definition.contentSize) bytes after its header; \(end - position - 1) remain before byte \(end)",
                    fatal: true)
                return position
            }
            guard result.messageCount < options.maximumMessages else {
                stopped = true
                problem(
                    .tooManyMessages, at: position,
                    "more than \(options.maximumMessages) data messages", fatal: true)
                return position
            }
            let message = readData(definition, at: position, compressedOffset: compressedOffset)
            result.messageCount += 1
            visit(message)
            position += 1 + definition.contentSize
        }
        return nil
    }

    /// Reads the definition message at `position`; returns the offset after it, or nil after
    /// reporting a fatal problem.
    mutating func readDefinition(at position: Int, end: Int) -> Int? {
        let recordHeader = byte(position)
        let local = Int(recordHeader & 0x0F)
        let hasDeveloperFields = recordHeader & 0x20 != 0
        func truncated(_ what: String) {
            problem(
                .truncated, at: position,
                "definition of local message type \(local) is cut off: \(what) past byte \(end)", fatal: true)
        }
        guard position + 6 <= end else {
            truncated("its 5 fixed bytes run")
            return nil
        }
        let architecture = byte(position + 2)
        guard architecture <= 1 else {
            problem(
                .architecture, at: position + 2,
                "definition of local message type \(local): architecture \(architecture), expected 0 (little-endian) or 1 (big-endian)",
                fatal: true)
            return nil
        }
        let bigEndian = architecture == 1
        let low = UInt16(byte(position + 3))
        let high = UInt16(byte(position + 4))
        let globalNumber = bigEndian ? low << 8 | high : high << 8 | low
        let fieldCount = Int(byte(position + 5))
        var cursor = position + 6
        guard cursor + 3 * fieldCount <= end else {
            truncated("its \(fieldCount) field definitions run")
            return nil
        }
        var fields: [FieldLayout] = []
        fields.reserveCapacity(fieldCount)
        var contentSize = 0
        for _ in 0..<fieldCount {
            let number = byte(cursor)
            let size = Int(byte(cursor + 1))
            let typeByte = byte(cursor + 2)
            let baseType = FITBaseType(definitionByte: typeByte)
            var asBytes = false
            if let baseType {
                if size == 0 || size % baseType.size != 0 {
                    asBytes = true
                    problem(
                        .fieldSize, at: cursor,
                        "message \(globalNumber), field \(number): size \(size) is not a multiple of \(baseType.name)'s \(baseType.size) bytes; its values are read as bytes",
                        fatal: false)
                }
            } else {
                asBytes = true
                problem(
                    .fieldSize, at: cursor + 2,
                    "message \(globalNumber), field \(number): base type 0x\(hex(typeByte)) is none the protocol defines; its \(size) bytes are read as bytes",
                    fatal: false)
            }
            fields.append(FieldLayout(number: number, size: size, baseType: baseType, asBytes: asBytes))
            contentSize += size
            cursor += 3
        }
        var developerFields: [DeveloperLayout] = []
        if hasDeveloperFields {
            guard cursor + 1 <= end else {
                truncated("its developer field count runs")
                return nil
            }
            let developerCount = Int(byte(cursor))
            cursor += 1
            guard cursor + 3 * developerCount <= end else {
                truncated("its \(developerCount) developer field definitions run")
                return nil
            }
            developerFields.reserveCapacity(developerCount)
            for _ in 0..<developerCount {
                let size = Int(byte(cursor + 1))
                developerFields.append(
                    DeveloperLayout(number: byte(cursor), size: size, developerDataIndex: byte(cursor + 2)))
                contentSize += size
                cursor += 3
            }
        }
        definitions[local] = Definition(
            globalNumber: globalNumber, bigEndian: bigEndian, fields: fields, developerFields: developerFields,
            contentSize: contentSize)
        return cursor
    }

    /// Reads the data message at `position` (its whole content is inside the bytes).
    mutating func readData(_ definition: Definition, at position: Int, compressedOffset: UInt32?) -> FITMessage {
        var cursor = position + 1
        var fields: [FITField] = []
        fields.reserveCapacity(definition.fields.count)
        var fullTimestamp: UInt32?
        var timestamp16: UInt16?
        for layout in definition.fields {
            defer { cursor += layout.size }
            let value: FITValue?
            if layout.asBytes {
                value = readBytes(at: cursor, size: layout.size)
            } else if let baseType = layout.baseType {
                value = readValue(baseType, at: cursor, size: layout.size, bigEndian: definition.bigEndian)
            } else {
                value = nil
            }
            guard let value else { continue }
            fields.append(FITField(number: layout.number, baseType: layout.baseType, value: value))
            if layout.number == FITProfile.timestampFieldNumber, let seconds = value.unsigned, seconds <= UInt32.max {
                fullTimestamp = UInt32(seconds)
            } else if definition.globalNumber == FITProfile.Message.monitoring,
                layout.number == FITProfile.Monitoring.timestamp16.number, let seconds = value.unsigned,
                seconds <= UInt16.max
            {
                timestamp16 = UInt16(seconds)
            }
        }
        var developerFields: [FITDeveloperField] = []
        if !definition.developerFields.isEmpty {
            developerFields.reserveCapacity(definition.developerFields.count)
            for layout in definition.developerFields {
                defer { cursor += layout.size }
                let key = UInt16(layout.developerDataIndex) << 8 | UInt16(layout.number)
                let value: FITValue?
                if let baseType = developerTypes[key], layout.size > 0, layout.size % baseType.size == 0 {
                    value = readValue(baseType, at: cursor, size: layout.size, bigEndian: definition.bigEndian)
                } else {
                    value = readBytes(at: cursor, size: layout.size)
                }
                if let value {
                    developerFields.append(
                        FITDeveloperField(developerDataIndex: layout.developerDataIndex, number: layout.number, value: value))
                }
            }
        }

        var message = FITMessage(
            globalNumber: definition.globalNumber, offset: position, fileIndex: fileIndex, timestamp: nil,
            fields: fields, developerFields: developerFields)
        message.timestamp = resolveTimestamp(
            at: position, full: fullTimestamp, compressedOffset: compressedOffset, timestamp16: timestamp16)
        if definition.globalNumber == FITProfile.Message.fieldDescription {
            describeDeveloperField(message)
        } else if definition.globalNumber == FITProfile.Message.fileID,
            let created = message.integer(FITProfile.FileID.timeCreated),
            created >= FITProfile.firstAbsoluteTime, created <= UInt32.max
        {
            anchorTimestamp = UInt32(created)
        }
        return message
    }

    /// The message's time from its timestamp field, its compressed-timestamp header or its
    /// `timestamp_16`, with the reference for the next ones kept; nil when it has none or the
    /// time is refused.
    mutating func resolveTimestamp(at position: Int, full: UInt32?, compressedOffset: UInt32?, timestamp16: UInt16?) -> UInt32? {
        var time: UInt32?
        var isReference = false
        if let full {
            time = full
            isReference = true
        } else if let compressedOffset {
            if let last = lastTimestamp {
                var rolled = (last & ~0x1F) | compressedOffset
                if compressedOffset < last & 0x1F { rolled &+= 0x20 }
                time = rolled
                isReference = true
            } else if !reportedMissingReference {
                reportedMissingReference = true
                problem(
                    .timestampWithoutReference, at: position,
                    "compressed-timestamp header with no full timestamp before it in this file; its time is unknown",
                    fatal: false)
            }
        } else if let timestamp16, let last = lastTimestamp {
            time = last &+ UInt32(timestamp16 &- UInt16(truncatingIfNeeded: last))
        }
        guard let resolved = time else { return nil }
        if resolved >= FITProfile.firstAbsoluteTime {
            if let anchor = anchorTimestamp {
                if resolved > anchor, resolved - anchor > options.maximumSpan {
                    problem(
                        .timestampOutOfRange, at: position,
                        "timestamp \(resolved) (\(Self.describe(resolved))) is \(Self.days(resolved - anchor)) days after the file's time of creation \(anchor) (\(Self.describe(anchor))); at most \(Self.days(options.maximumSpan)) days expected",
                        fatal: false)
                    return nil
                }
            } else {
                anchorTimestamp = resolved
            }
        }
        if isReference { lastTimestamp = resolved }
        return resolved
    }

    /// Registers the base type of the developer field a `field_description` message describes.
    mutating func describeDeveloperField(_ message: FITMessage) {
        typealias Description = FITProfile.FieldDescription
        guard let index = message.integer(Description.developerDataIndex), index <= UInt8.max,
            let number = message.integer(Description.fieldDefinitionNumber), number <= UInt8.max,
            let typeID = message.integer(Description.baseTypeID), typeID <= UInt8.max
        else { return }
        let baseType = FITBaseType(definitionByte: UInt8(typeID))
        let key = UInt16(index) << 8 | UInt16(number)
        developerTypes[key] = baseType
        let nativeMessage = message.integer(Description.nativeMessageNumber).flatMap { $0 <= UInt16.max ? UInt16($0) : nil }
        let nativeField = message.integer(Description.nativeFieldNumber).flatMap { $0 <= UInt8.max ? UInt8($0) : nil }
        result.developerFields.append(
            FITDeveloperFieldDescription(
                fileIndex: fileIndex, developerDataIndex: UInt8(index), number: UInt8(number), baseType: baseType,
                name: message.string(Description.fieldName), units: message.string(Description.units),
                nativeMessageNumber: nativeMessage, nativeFieldNumber: nativeField))
    }

    /// The bytes of a field read as bytes; nil when every byte is 0xFF (the `byte` type's invalid value).
    func readBytes(at offset: Int, size: Int) -> FITValue? {
        guard size > 0 else { return nil }
        let slice = bytes[offset..<(offset + size)]
        if slice.allSatisfy({ $0 == 0xFF }) { return nil }
        return .bytes(Array(slice))
    }

    /// The value or values of a field of `baseType` (its size a multiple of the type's); nil
    /// when every value is invalid.
    func readValue(_ baseType: FITBaseType, at offset: Int, size: Int, bigEndian: Bool) -> FITValue? {
        switch baseType {
        case .string:
            var length = 0
            while length < size, bytes[offset + length] != 0 { length += 1 }
            guard length > 0 else { return nil }
            return .string(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + length)]), as: UTF8.self))
        case .byte:
            return readBytes(at: offset, size: size)
        default:
            let width = baseType.size
            let count = size / width
            if count == 1 { return scalar(baseType, at: offset, bigEndian: bigEndian) }
            var values: [FITValue?] = []
            values.reserveCapacity(count)
            var anyValid = false
            for index in 0..<count {
                let value = scalar(baseType, at: offset + index * width, bigEndian: bigEndian)
                if value != nil { anyValid = true }
                values.append(value)
            }
            return anyValid ? .array(values) : nil
        }
    }

    /// One value of a numeric base type; nil when it is the type's invalid value (or any NaN).
    func scalar(_ baseType: FITBaseType, at offset: Int, bigEndian: Bool) -> FITValue? {
        let width = baseType.size
        var bits: UInt64 = 0
        if bigEndian {
            for index in 0..<width { bits = bits << 8 | UInt64(bytes[offset + index]) }
        } else {
            for index in stride(from: width - 1, through: 0, by: -1) { bits = bits << 8 | UInt64(bytes[offset + index]) }
        }
        guard bits != baseType.invalidBits else { return nil }
        switch baseType {
        case .sint8: return .signed(Int64(Int8(truncatingIfNeeded: bits)))
        case .sint16: return .signed(Int64(Int16(truncatingIfNeeded: bits)))
        case .sint32: return .signed(Int64(Int32(truncatingIfNeeded: bits)))
        case .sint64: return .signed(Int64(bitPattern: bits))
        // Any NaN is absent, not only the invalid pattern (all ones): it holds no number, and a
        // NaN would make two decodings of the same bytes compare unequal.
        case .float32:
            let value = Float(bitPattern: UInt32(truncatingIfNeeded: bits))
            return value.isNaN ? nil : .float(Double(value))
        case .float64:
            let value = Double(bitPattern: bits)
            return value.isNaN ? nil : .float(value)
        default: return .unsigned(bits)
        }
    }

    static func days(_ seconds: UInt32) -> UInt32 { seconds / 86_400 }

    /// A FIT time as a UTC date and time, for problem messages.
    static func describe(_ fitTime: UInt32) -> String {
        let unix = Int64(fitTime) + FITProfile.epoch
        var days = unix / 86_400
        let secondsOfDay = unix % 86_400
        // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
        days += 719_468
        let era = days / 146_097
        let dayOfEra = days - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day))T\(two(secondsOfDay / 3600)):\(two(secondsOfDay / 60 % 60)):\(two(secondsOfDay % 60))Z"
    }
}

/// Hexadecimal digits of a value, upper case, without prefix.
private func hex(_ value: some BinaryInteger) -> String {
    String(value, radix: 16, uppercase: true)
}
