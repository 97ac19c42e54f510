import Foundation

/// A figure measured several times: its median, and the lowest and highest trial beside it.
struct Spread {
    var median: Double
    var min: Double
    var max: Double

    init(_ values: [Double]) {
        let sorted = values.sorted()
        guard !sorted.isEmpty else {
            (median, min, max) = (.nan, .nan, .nan)
            return
        }
        let middle = sorted.count / 2
        median = sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
        min = sorted[0]
        max = sorted[sorted.count - 1]
    }

    /// "median (min–max)".
    func formatted(_ digits: Int = 1) -> String {
        "\(format(median, digits)) (\(format(min, digits))–\(format(max, digits)))"
    }
}

/// A Salus figure beside its baseline, each measured `trials` times, alternately (Salus, then
/// the baseline, then Salus again …) so that a noisy second weighs on both; the ratio is taken
/// trial by trial.
struct Comparison {
    var salus: Spread
    var baseline: Spread
    var ratio: Spread

    /// Trials already run, alternately: `salus[i]` beside `baseline[i]`.
    init(salus ours: [Double], baseline theirs: [Double]) {
        salus = Spread(ours)
        baseline = Spread(theirs)
        ratio = Spread(zip(ours, theirs).map { $0 / $1 })
    }

    /// Runs the pair `trials` times, alternating.
    static func interleaved(
        trials: Int, salus: () async throws -> Double, baseline: () async throws -> Double
    ) async throws -> Comparison {
        var ours: [Double] = []
        var theirs: [Double] = []
        for _ in 0..<trials {
            ours.append(try await salus())
            theirs.append(try await baseline())
        }
        return Comparison(salus: ours, baseline: theirs)
    }

    /// Writes `key` (the Salus median), `baselineKey` and `ratioKey` with its `_min` and `_max`.
    func record(into results: inout [String: Double], key: String, baselineKey: String, ratioKey: String) {
        results[key] = salus.median
        results[key + "_min"] = salus.min
        results[key + "_max"] = salus.max
        results[baselineKey] = baseline.median
        results[ratioKey] = ratio.median
        results[ratioKey + "_min"] = ratio.min
        results[ratioKey + "_max"] = ratio.max
    }
}
