import Foundation

extension Sample {
    /// The form in which a save stores this sample: the save pipeline's one normalisation step,
    /// which every path that saves applies before the check (an app's save, a route streamed in
    /// parts, a workout builder's finish, a replica from the person's other store, an import):
    /// - a workout with no activity gets one spanning it, of its own activity type (every saved
    ///   workout has at least one, as HealthKit's do since iOS 16);
    /// - a route's interval is its locations', from the first to the last, whatever was sent.
    ///
    /// Applying it twice changes nothing; other samples are returned as they are.
    package func preparedForSaving() -> Sample {
        switch value {
        case .workout(let workout):
            var sample = self
            sample.value = .workout(workout.withDefaultActivity(start: startDate, end: endDate))
            return sample
        case .workoutRoute:
            return withRouteInterval()
        default:
            return self
        }
    }
}

extension TypeCatalog {
    /// The save pipeline's first step for a batch: each sample prepared
    /// (``Sample/preparedForSaving()``) and then checked (``check(_:at:allowReadOnly:)``).
    /// Returns the samples to save; throws the first error, named under `path[index]`.
    package func prepareForSaving(
        _ samples: [Sample], at path: String = "samples", allowReadOnly: Bool = false
    ) throws(ValidationError) -> [Sample] {
        let prepared = samples.map { $0.preparedForSaving() }
        try check(prepared, at: path, allowReadOnly: allowReadOnly)
        return prepared
    }

    /// The save pipeline's first step for one sample: the sample prepared, with every rule it
    /// breaks (empty when it may be saved), for a path that reports or repairs errors itself.
    package func prepareForSaving(
        _ sample: Sample, at path: @autoclosure () -> String = "sample", allowReadOnly: Bool = false
    ) -> (sample: Sample, errors: [ValidationError]) {
        let prepared = sample.preparedForSaving()
        return (prepared, validationErrors(of: prepared, at: path(), allowReadOnly: allowReadOnly))
    }
}
