/// A heartbeat series' value, as HealthKit's `HKHeartbeatSeriesSample` with the beats its
/// `HKHeartbeatSeriesQuery` returns: the time of each beat since the sample's start.
///
/// Beats are in time order, strictly ascending, and lie inside the sample's interval.
public struct HeartbeatSeries: Hashable, Sendable {
    /// The beats, in time order.
    public var beats: [Heartbeat]

    /// Creates a series.
    public init(beats: [Heartbeat]) {
        self.beats = beats
    }

    /// How many beats the series holds (HealthKit's `count`).
    public var count: Int { beats.count }
}

/// One heartbeat of a series.
public struct Heartbeat: Hashable, Sendable {
    /// Seconds from the sample's start date to the beat.
    public var timeSinceSeriesStart: Double
    /// Whether a gap in the recording came before this beat, so the interval from the previous
    /// beat is not a beat-to-beat interval.
    public var precededByGap: Bool

    /// Creates a beat.
    public init(timeSinceSeriesStart: Double, precededByGap: Bool = false) {
        self.timeSinceSeriesStart = timeSinceSeriesStart
        self.precededByGap = precededByGap
    }
}
