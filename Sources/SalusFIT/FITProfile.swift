/// The part of Garmin's FIT profile that Salus reads: the global numbers of the messages it uses,
/// their fields with scale, offset and units, and the names of the few enumerations it maps.
/// Everything else in a file is still decoded (by number, without scale) and can be skipped.
///
/// A field's value in its units is `raw / scale − offset` (``Field/apply(_:)``); times are
/// seconds since the FIT epoch, 1989-12-31 00:00:00 UTC (``epoch``); positions are semicircles
/// (``degrees(semicircles:)``).
public enum FITProfile {
    /// The FIT epoch, 1989-12-31 00:00:00 UTC, in seconds since 1970-01-01 00:00:00 UTC.
    public static let epoch: Int64 = 631_065_600

    /// Times below this are not UTC but seconds since the device powered on (the protocol's
    /// `date_time` minimum).
    public static let firstAbsoluteTime: UInt32 = 0x1000_0000

    /// Degrees from semicircles (2³¹ semicircles are 180°).
    public static func degrees(semicircles: Double) -> Double { semicircles * 180 / 2_147_483_648 }

    /// Global message numbers.
    public enum Message {
        public static let fileID: UInt16 = 0
        public static let session: UInt16 = 18
        public static let lap: UInt16 = 19
        public static let record: UInt16 = 20
        public static let event: UInt16 = 21
        public static let deviceInfo: UInt16 = 23
        public static let activity: UInt16 = 34
        public static let monitoring: UInt16 = 55
        public static let hrv: UInt16 = 78
        public static let length: UInt16 = 101
        public static let hr: UInt16 = 132
        public static let fieldDescription: UInt16 = 206
        public static let developerDataID: UInt16 = 207
        public static let sleepLevel: UInt16 = 275
    }

    /// A field of the profile: its message, number, name, scale, offset and units.
    public struct Field: Sendable, Hashable {
        /// The global number of the message holding the field.
        public let message: UInt16
        /// The field definition number.
        public let number: UInt8
        /// The profile's name of the field.
        public let name: String
        /// What the raw value is divided by.
        public let scale: Double
        /// What is subtracted after the division.
        public let offset: Double
        /// The units after scale and offset (`s`, `m`, `m/s`, `bpm`, `rpm`, `W`, `kcal`,
        /// `semicircles`, `s since FIT epoch`), nil for enumerations, counts and text.
        public let units: String?

        init(_ message: UInt16, _ number: UInt8, _ name: String, scale: Double = 1, offset: Double = 0, units: String? = nil) {
            self.message = message
            self.number = number
            self.name = name
            self.scale = scale
            self.offset = offset
            self.units = units
        }

        /// The raw value in the field's units: raw / scale − offset.
        public func apply(_ raw: Double) -> Double { raw / scale - offset }
    }

    /// The field every message may hold: its time (253, seconds since the FIT epoch).
    public static let timestampFieldNumber: UInt8 = 253

    /// `file_id` (0).
    public enum FileID {
        public static let type = Field(Message.fileID, 0, "type")
        public static let manufacturer = Field(Message.fileID, 1, "manufacturer")
        public static let product = Field(Message.fileID, 2, "product")
        public static let serialNumber = Field(Message.fileID, 3, "serial_number")
        public static let timeCreated = Field(Message.fileID, 4, "time_created", units: "s since FIT epoch")
        public static let productName = Field(Message.fileID, 8, "product_name")
        /// `type` of an activity file.
        public static let activityType: UInt64 = 4
    }

    /// `device_info` (23).
    public enum DeviceInfo {
        public static let deviceIndex = Field(Message.deviceInfo, 0, "device_index")
        public static let deviceType = Field(Message.deviceInfo, 1, "device_type")
        public static let manufacturer = Field(Message.deviceInfo, 2, "manufacturer")
        public static let serialNumber = Field(Message.deviceInfo, 3, "serial_number")
        public static let product = Field(Message.deviceInfo, 4, "product")
        public static let softwareVersion = Field(Message.deviceInfo, 5, "software_version", scale: 100)
        public static let hardwareVersion = Field(Message.deviceInfo, 6, "hardware_version")
        public static let productName = Field(Message.deviceInfo, 27, "product_name")
    }

    /// `session` (18): one per sport of an activity, several in a multisport one.
    public enum Session {
        public static let startTime = Field(Message.session, 2, "start_time", units: "s since FIT epoch")
        public static let startLatitude = Field(Message.session, 3, "start_position_lat", units: "semicircles")
        public static let startLongitude = Field(Message.session, 4, "start_position_long", units: "semicircles")
        public static let sport = Field(Message.session, 5, "sport")
        public static let subSport = Field(Message.session, 6, "sub_sport")
        public static let totalElapsedTime = Field(Message.session, 7, "total_elapsed_time", scale: 1000, units: "s")
        public static let totalTimerTime = Field(Message.session, 8, "total_timer_time", scale: 1000, units: "s")
        public static let totalDistance = Field(Message.session, 9, "total_distance", scale: 100, units: "m")
        public static let totalCalories = Field(Message.session, 11, "total_calories", units: "kcal")
        public static let avgSpeed = Field(Message.session, 14, "avg_speed", scale: 1000, units: "m/s")
        public static let maxSpeed = Field(Message.session, 15, "max_speed", scale: 1000, units: "m/s")
        public static let avgHeartRate = Field(Message.session, 16, "avg_heart_rate", units: "bpm")
        public static let maxHeartRate = Field(Message.session, 17, "max_heart_rate", units: "bpm")
        public static let avgCadence = Field(Message.session, 18, "avg_cadence", units: "rpm")
        public static let avgPower = Field(Message.session, 20, "avg_power", units: "W")
        public static let maxPower = Field(Message.session, 21, "max_power", units: "W")
        public static let totalAscent = Field(Message.session, 22, "total_ascent", units: "m")
        public static let totalDescent = Field(Message.session, 23, "total_descent", units: "m")
        public static let numLaps = Field(Message.session, 26, "num_laps")
        public static let poolLength = Field(Message.session, 44, "pool_length", scale: 100, units: "m")
        public static let poolLengthUnit = Field(Message.session, 46, "pool_length_unit")
        public static let numActiveLengths = Field(Message.session, 47, "num_active_lengths")
        public static let enhancedAvgSpeed = Field(Message.session, 124, "enhanced_avg_speed", scale: 1000, units: "m/s")
    }

    /// `lap` (19).
    public enum Lap {
        public static let startTime = Field(Message.lap, 2, "start_time", units: "s since FIT epoch")
        public static let totalElapsedTime = Field(Message.lap, 7, "total_elapsed_time", scale: 1000, units: "s")
        public static let totalTimerTime = Field(Message.lap, 8, "total_timer_time", scale: 1000, units: "s")
        public static let totalDistance = Field(Message.lap, 9, "total_distance", scale: 100, units: "m")
        public static let avgHeartRate = Field(Message.lap, 15, "avg_heart_rate", units: "bpm")
        public static let sport = Field(Message.lap, 25, "sport")
        public static let numLengths = Field(Message.lap, 32, "num_lengths")
        public static let swimStroke = Field(Message.lap, 38, "swim_stroke")
    }

    /// `length` (101): one pool length of a swim.
    public enum Length {
        public static let startTime = Field(Message.length, 2, "start_time", units: "s since FIT epoch")
        public static let totalElapsedTime = Field(Message.length, 3, "total_elapsed_time", scale: 1000, units: "s")
        public static let totalTimerTime = Field(Message.length, 4, "total_timer_time", scale: 1000, units: "s")
        public static let totalStrokes = Field(Message.length, 5, "total_strokes")
        public static let avgSpeed = Field(Message.length, 6, "avg_speed", scale: 1000, units: "m/s")
        public static let swimStroke = Field(Message.length, 7, "swim_stroke")
        public static let lengthType = Field(Message.length, 12, "length_type")
    }

    /// `record` (20): one sample of an activity's sensors.
    public enum Record {
        public static let latitude = Field(Message.record, 0, "position_lat", units: "semicircles")
        public static let longitude = Field(Message.record, 1, "position_long", units: "semicircles")
        public static let altitude = Field(Message.record, 2, "altitude", scale: 5, offset: 500, units: "m")
        public static let heartRate = Field(Message.record, 3, "heart_rate", units: "bpm")
        public static let cadence = Field(Message.record, 4, "cadence", units: "rpm")
        public static let distance = Field(Message.record, 5, "distance", scale: 100, units: "m")
        public static let speed = Field(Message.record, 6, "speed", scale: 1000, units: "m/s")
        public static let power = Field(Message.record, 7, "power", units: "W")
        public static let temperature = Field(Message.record, 13, "temperature", units: "°C")
        public static let enhancedSpeed = Field(Message.record, 73, "enhanced_speed", scale: 1000, units: "m/s")
        public static let enhancedAltitude = Field(Message.record, 78, "enhanced_altitude", scale: 5, offset: 500, units: "m")
    }

    /// `event` (21).
    public enum Event {
        public static let event = Field(Message.event, 0, "event")
        public static let eventType = Field(Message.event, 1, "event_type")
        public static let data = Field(Message.event, 3, "data")
    }

    /// `hrv` (78): R-R intervals.
    public enum HRV {
        /// The intervals between beats (an array; 0xFFFF where none).
        public static let time = Field(Message.hrv, 0, "time", scale: 1000, units: "s")
    }

    /// `hr` (132): heart rates a strap stored and sent after the activity (``FITHeartRates``).
    public enum HR {
        public static let fractionalTimestamp = Field(Message.hr, 0, "fractional_timestamp", scale: 32768, units: "s")
        public static let time256 = Field(Message.hr, 1, "time256", scale: 256, units: "s")
        /// An array of heart rates.
        public static let filteredBPM = Field(Message.hr, 6, "filtered_bpm", units: "bpm")
        /// An array of the strap's clock, in 1/1024 s.
        public static let eventTimestamp = Field(Message.hr, 9, "event_timestamp", scale: 1024, units: "s")
        /// The low 12 bits of the strap's clock, packed two in three bytes.
        public static let eventTimestamp12 = Field(Message.hr, 10, "event_timestamp_12")
    }

    /// `monitoring` (55): a watch's all-day activity, mostly with only a `timestamp_16`.
    public enum Monitoring {
        public static let calories = Field(Message.monitoring, 1, "calories", units: "kcal")
        public static let distance = Field(Message.monitoring, 2, "distance", scale: 100, units: "m")
        /// Cycles (steps ÷ 2 when walking or running, whose `steps` sub-field is the raw value).
        public static let cycles = Field(Message.monitoring, 3, "cycles", scale: 2, units: "cycles")
        public static let activeTime = Field(Message.monitoring, 4, "active_time", scale: 1000, units: "s")
        public static let activityType = Field(Message.monitoring, 5, "activity_type")
        public static let intensity = Field(Message.monitoring, 28, "intensity", scale: 10)
        public static let timestamp16 = Field(Message.monitoring, 26, "timestamp_16", units: "s")
        public static let heartRate = Field(Message.monitoring, 27, "heart_rate", units: "bpm")
        public static let moderateActivityMinutes = Field(Message.monitoring, 33, "moderate_activity_minutes", units: "min")
        public static let vigorousActivityMinutes = Field(Message.monitoring, 34, "vigorous_activity_minutes", units: "min")
    }

    /// `sleep_level` (275).
    public enum SleepLevel {
        public static let level = Field(Message.sleepLevel, 0, "sleep_level")
        /// The levels by value: 0 unmeasurable, 1 awake, 2 light, 3 deep, 4 rem.
        public static let names = ["unmeasurable", "awake", "light", "deep", "rem"]
    }

    /// `field_description` (206): describes one developer field.
    public enum FieldDescription {
        public static let developerDataIndex = Field(Message.fieldDescription, 0, "developer_data_index")
        public static let fieldDefinitionNumber = Field(Message.fieldDescription, 1, "field_definition_number")
        public static let baseTypeID = Field(Message.fieldDescription, 2, "fit_base_type_id")
        public static let fieldName = Field(Message.fieldDescription, 3, "field_name")
        public static let units = Field(Message.fieldDescription, 8, "units")
        public static let nativeMessageNumber = Field(Message.fieldDescription, 14, "native_mesg_num")
        public static let nativeFieldNumber = Field(Message.fieldDescription, 15, "native_field_num")
    }

    /// `sport` names by value (the values Salus maps to activity types).
    public static let sports: [UInt64: String] = [
        0: "generic", 1: "running", 2: "cycling", 3: "transition", 4: "fitness_equipment", 5: "swimming",
        10: "training", 11: "walking", 12: "cross_country_skiing", 13: "alpine_skiing", 15: "rowing",
        17: "hiking", 18: "multisport", 19: "paddling",
    ]

    /// `sub_sport` names by value (those Salus reads: indoor, pool and open water, virtual).
    public static let subSports: [UInt64: String] = [
        0: "generic", 1: "treadmill", 6: "indoor_cycling", 14: "indoor_rowing", 17: "lap_swimming",
        18: "open_water", 58: "virtual_activity",
    ]

    /// `swim_stroke` names by value.
    public static let swimStrokes: [UInt64: String] = [
        0: "freestyle", 1: "backstroke", 2: "breaststroke", 3: "butterfly", 4: "drill", 5: "mixed", 6: "im",
    ]

    /// `length_type` names by value.
    public static let lengthTypes: [UInt64: String] = [0: "idle", 1: "active"]
}
