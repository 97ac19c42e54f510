import Foundation

extension WorkoutTest {
    /// What a compared workout or activity duration may be, for error messages.
    package static let durationExpectation =
        "a finite number of seconds within ±9223372036854 (about 292,000 years: what int64 microseconds hold)"

    /// A compared duration (a workout's or an activity's) in whole microseconds, as the store
    /// compares it; a validation error naming `field` (the `seconds` of the comparison) when it
    /// is not finite or past what int64 microseconds hold. The one check of a duration predicate,
    /// for the wire conversion and the store's compiler alike.
    package static func durationMicroseconds(_ seconds: Double, field: String) throws(ValidationError) -> Int64 {
        guard seconds.isFinite else {
            throw ValidationError(reason: .nonFiniteValue, field: field, value: "\(seconds)", expected: durationExpectation)
        }
        guard let microseconds = Int64(rounding: seconds * 1_000_000) else {
            throw ValidationError(reason: .valueOutOfRange, field: field, value: "\(seconds)", expected: durationExpectation)
        }
        return microseconds
    }
}
