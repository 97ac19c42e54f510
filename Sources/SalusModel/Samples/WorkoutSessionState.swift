/// `HKWorkoutSessionState`, with HealthKit's raw values, and the moves a session may make
/// between them (docs/workouts.md, "The session").
public enum WorkoutSessionState: Int, CaseIterable, Hashable, Sendable {
    /// Created, not yet prepared or started (1).
    case notStarted = 1
    /// Collecting (2).
    case running = 2
    /// Over; the session takes no more changes (3).
    case ended = 3
    /// Paused: a pause event is in its builder (4).
    case paused = 4
    /// Sensors warmed up, ready to start (5).
    case prepared = 5
    /// Stopped, waiting to be ended (6).
    case stopped = 6

    /// The states a session in this state may move to: notStarted → prepared or running;
    /// prepared → running; running ⇄ paused; running or paused → stopped; stopped → ended; a
    /// session never started (notStarted, prepared) may also end. Ended is final.
    public var next: [WorkoutSessionState] {
        switch self {
        case .notStarted: [.prepared, .running, .ended]
        case .prepared: [.running, .ended]
        case .running: [.paused, .stopped]
        case .paused: [.running, .stopped]
        case .stopped: [.ended]
        case .ended: []
        }
    }

    /// Whether a session in this state may move to `state`.
    public func canMove(to state: WorkoutSessionState) -> Bool { next.contains(state) }

    /// Whether the session has started and not ended: the one session the person may have.
    public var isActive: Bool { self == .running || self == .paused || self == .stopped }

    /// The name and raw value, for messages: "running (2)".
    public var label: String { "\(self) (\(rawValue))" }
}
