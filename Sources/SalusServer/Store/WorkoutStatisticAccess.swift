import SalusModel

extension SamplePredicate {
    /// This predicate with every test on a workout statistic (the workout's or an activity's)
    /// limited to what the reader may read of the statistic's type, as `access` says: all apps'
    /// samples — unchanged; only one app's own — only that app's workouts can match (their
    /// statistics come from that app's samples); nothing — the test is false, as if the workout
    /// had no such statistic. A reader thus learns nothing about a type it may not read by
    /// filtering workouts on it (docs/workouts.md, "Who sees what").
    func limitingWorkoutStatistics(_ access: (TypeIdentifier) -> ReadAccess) -> SamplePredicate {
        switch self {
        case .and(let list):
            return .and(list.map { $0.limitingWorkoutStatistics(access) })
        case .or(let list):
            return .or(list.map { $0.limitingWorkoutStatistics(access) })
        case .not(let child):
            return .not(child.limitingWorkoutStatistics(access))
        case .workout(let test):
            let type: TypeIdentifier? =
                switch test {
                case .statistic(let quantityType, _, _, _): quantityType
                case .activity(let activity): activity.statistic?.quantityType
                case .activityType, .duration: nil
                }
            guard let type else { return self }
            switch access(type) {
            case .all: return self
            case .own(let appID, _): return .and([.sources([appID]), self])
            case .nothing: return .or([])
            }
        default:
            return self
        }
    }
}
