import SalusModel
import SalusStore

extension StatisticsOptions {
    /// Checks the options against a type's aggregation style; throws `invalidArgument` naming
    /// `field` ("options"), the offending option and what was expected.
    package func validate(for type: TypeIdentifier, style: AggregationStyle, field: String = "options") throws(StoreError) {
        let statistics = subtracting(.separateBySource)
        guard !statistics.isEmpty else {
            throw StoreError(
                code: .invalidArgument, field: field, value: description,
                expected: "at least one of cumulativeSum, discreteAverage, discreteMin, discreteMax, mostRecent, duration")
        }
        if contains(.cumulativeSum), !intersection(Self.discreteOptions).isEmpty {
            throw StoreError(
                code: .invalidArgument, field: field, value: description,
                expected: "cumulativeSum alone, or discrete options alone: cumulativeSum cannot be combined with "
                    + intersection(Self.discreteOptions).description)
        }
        if contains(.cumulativeSum), !style.isCumulative {
            throw StoreError(
                code: .invalidArgument, field: field, value: "cumulativeSum",
                expected: "discrete options for \(type), whose aggregation style is \(style.name)")
        }
        if style.isCumulative {
            let refused = intersection(Self.discreteOptions)
            if !refused.isEmpty {
                throw StoreError(
                    code: .invalidArgument, field: field, value: refused.description,
                    expected: "cumulativeSum or duration for \(type), whose aggregation style is cumulative")
            }
        }
    }
}
