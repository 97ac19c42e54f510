/// One heart rate of an `hr` message (132): what a chest strap that stores its data (HRM-Swim,
/// HRM-Tri) measured while the watch could not receive it, written after the activity, often as
/// FIT files chained after it.
public struct FITHeartRateEvent: Sendable, Equatable {
    /// When the beat was measured, in seconds since the FIT epoch (with the fraction of a second).
    public var time: Double
    /// The filtered heart rate, in beats per minute.
    public var bpm: UInt8

    /// A heart rate of `bpm` at `time` (seconds since the FIT epoch).
    public init(time: Double, bpm: UInt8) {
        self.time = time
        self.bpm = bpm
    }
}

/// The heart rates of `hr` messages, and their merge into `record` messages: a separate step
/// after decoding (``FITDecoder`` gives each message as the file holds it).
///
/// The protocol's `hr` message: an anchor message holds a `timestamp` (253) with its
/// `fractional_timestamp` (0, 1/32768 s; or `time256`, 1, 1/256 s) and the strap's own clock at
/// that instant, `event_timestamp` (9, uint32 in 1/1024 s); each following message holds up to 8
/// `filtered_bpm` (6) and as many `event_timestamp_12` (10): the low 12 bits of the strap's clock
/// at each beat, packed two in three bytes, little-endian, each accumulated on the one before
/// (it rolls over every 4 s). A beat's time is the anchor's time plus the strap-clock time since
/// the anchor's `event_timestamp`. An `event_timestamp` array without a timestamp gives full
/// strap-clock values against the last anchor. Beats before any anchor have no time and are left out.
public enum FITHeartRates {
    /// The `hr` messages' heart rates, in time order; invalid `filtered_bpm` values (0xFF) are left out.
    public static func events(_ messages: [FITMessage]) -> [FITHeartRateEvent] {
        var events: [FITHeartRateEvent] = []
        var anchor: (time: Double, event: Int64)?
        var lastEvent: Int64?
        for message in messages where message.globalNumber == FITProfile.Message.hr {
            let bpms = message.field(FITProfile.HR.filteredBPM.number).map(unsignedValues) ?? []
            var clock: [Int64?] = []
            if let full = message.field(FITProfile.HR.eventTimestamp.number) {
                clock = unsignedValues(full).map { $0.map { Int64($0) } }
                if let timestamp = message.timestamp, let first = clock.first ?? nil {
                    var time = Double(timestamp)
                    if let fraction = message.value(FITProfile.HR.fractionalTimestamp) {
                        time += fraction
                    } else if let fraction = message.value(FITProfile.HR.time256) {
                        time += fraction
                    }
                    anchor = (time, first)
                }
                if let last = clock.last(where: { $0 != nil }) { lastEvent = last }
            } else if case .bytes(let packed)? = message.field(FITProfile.HR.eventTimestamp12.number) {
                for index in 0..<(packed.count * 8 / 12) {
                    let bit = index * 12
                    let low = Int(packed[bit / 8]), high = Int(packed[bit / 8 + 1])
                    let value = Int64(bit % 8 == 0 ? low | (high & 0x0F) << 8 : low >> 4 | high << 4)
                    guard let last = lastEvent else {
                        clock.append(nil)
                        continue
                    }
                    let next = last + ((value - last) & 0xFFF)
                    clock.append(next)
                    lastEvent = next
                }
            }
            guard let anchor else { continue }
            for (event, bpm) in zip(clock, bpms) {
                guard let event, let bpm, bpm <= UInt64(UInt8.max) else { continue }
                events.append(FITHeartRateEvent(time: anchor.time + Double(event - anchor.event) / 1024, bpm: UInt8(bpm)))
            }
        }
        return events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
    }

    /// The messages with the heart rates of their `hr` messages merged into the records that have
    /// none of their own: a record's heart rate is the mean of the beats from the record before it
    /// (or 1.5 s before it, whichever is earlier: beats come about every 0.4 to 0.7 s, so a span of
    /// a second can miss them) up to its own time, rounded half up; a record within the beats'
    /// time whose span holds none takes the heart rate of the record before it; other records stay
    /// without. Records' own heart rates are kept; nothing else changes. These spans give, on the
    /// two chained files of shared/data, the record heart rates Garmin's FIT SDK gives.
    public static func merged(_ messages: [FITMessage]) -> [FITMessage] {
        let events = events(messages)
        guard !events.isEmpty else { return messages }
        var merged = messages
        var previous: UInt32?
        var previousRate: UInt64?
        for index in merged.indices where merged[index].globalNumber == FITProfile.Message.record {
            guard let time = merged[index].timestamp else { continue }
            defer { previous = time }
            if let own = merged[index].field(FITProfile.Record.heartRate.number) {
                previousRate = own.unsigned
                continue
            }
            let end = Double(time)
            let start = min(previous.map { Double($0) } ?? end, end - 1.5)
            let low = firstIndex(in: events, notBefore: start), high = firstIndex(in: events, after: end)
            var rate: UInt64?
            if high > low {
                let sum = events[low..<high].reduce(0) { $0 + Int($1.bpm) }
                rate = UInt64((Double(sum) / Double(high - low) + 0.5).rounded(.down))
            } else if let first = events.first, let last = events.last, first.time <= end, end <= last.time {
                rate = previousRate
            }
            previousRate = rate
            guard let rate else { continue }
            merged[index].fields.append(FITField(number: FITProfile.Record.heartRate.number, baseType: .uint8, value: .unsigned(rate)))
        }
        return merged
    }

    /// The index of the first event not earlier than `time` (events in time order).
    private static func firstIndex(in events: [FITHeartRateEvent], notBefore time: Double) -> Int {
        var low = 0, high = events.count
        while low < high {
            let middle = (low + high) / 2
            if events[middle].time < time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The index of the first event later than `time` (events in time order).
    private static func firstIndex(in events: [FITHeartRateEvent], after time: Double) -> Int {
        var low = 0, high = events.count
        while low < high {
            let middle = (low + high) / 2
            if events[middle].time <= time { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The unsigned values of a field: one, or an array's elements (nil where invalid).
    private static func unsignedValues(_ value: FITValue) -> [UInt64?] {
        if case .array(let values) = value { return values.map { $0?.unsigned } }
        return [value.unsigned]
    }
}
