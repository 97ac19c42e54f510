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
        // The batch check (`TypeCatalog.prepareForSaving(_:at:allowReadOnly:rejected:)`) prepares
        // only these two kinds: a kind added here must be added there.
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
        // Only workouts and routes change (`Sample.preparedForSaving`): the batch is not copied
        // for the others, which most batches hold alone.
        var prepared = samples
        for index in prepared.indices {
            switch prepared[index].value {
            case .workout, .workoutRoute: prepared[index] = prepared[index].preparedForSaving()
            default: break
            }
        }
        try check(prepared, at: path, allowReadOnly: allowReadOnly)
        return prepared
    }

    /// The save pipeline's first step for a batch of which each sample that breaks a rule is left
    /// out rather than refusing the batch (an import, which reports it and goes on): the samples
    /// prepared, those that pass the check, in their order; `rejected` is called with the index
    /// and first error of each other one (its path `path`). The same samples and errors as
    /// ``prepareForSaving(_:at:allowReadOnly:)-(Sample,_,_)`` one sample at a time; the batch is
    /// not copied when every sample passes and none needs preparing (most imports' batches).
    package func prepareForSaving(
        _ samples: [Sample], at path: @autoclosure () -> String, allowReadOnly: Bool = false,
        rejected: (Int, ValidationError) -> Void
    ) -> [Sample] {
        var prepared = samples
        var rejectedIndices: [Int] = []
        for index in prepared.indices {
            switch prepared[index].value {
            case .workout, .workoutRoute: prepared[index] = prepared[index].preparedForSaving()
            default: break
            }
            if let error = validationErrors(of: prepared[index], at: path(), allowReadOnly: allowReadOnly).first {
                rejected(index, error)
                rejectedIndices.append(index)
            }
        }
        guard !rejectedIndices.isEmpty else { return prepared }
        var kept: [Sample] = []
        kept.reserveCapacity(prepared.count - rejectedIndices.count)
        var next = 0
        for index in prepared.indices {
            if next < rejectedIndices.count, rejectedIndices[next] == index {
                next += 1
            } else {
                kept.append(prepared[index])
            }
        }
        return kept
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
