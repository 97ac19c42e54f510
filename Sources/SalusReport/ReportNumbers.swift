import Foundation
import SalusModel

/// Figures as the report writes them, whatever the store holds. A value saved before its type
/// had an upper bound, or by a plugin that declares none, may be as large as a `Double` goes, and
/// a sum of two such values is infinite: none of them may stop the report (`Int(1e300)` traps).
package enum ReportNumbers {
    /// `value` rounded to a whole number ("8123"); past what an int64 holds, as Swift prints the
    /// double ("1e+300", "inf", "nan").
    package static func whole(_ value: Double) -> String {
        Int64(rounding: value).map(String.init) ?? String(value)
    }

    /// `value` without a needless fraction, at most three decimals ("5", "5.125").
    package static func decimal(_ value: Double) -> String {
        let rounded = (value * 1000).rounded() / 1000
        return Int64(exactly: rounded).map(String.init) ?? String(rounded)
    }

    /// `value` for the charts' JSON: the number, or null when it is not finite (JSON has no
    /// infinity, and one such value would leave every chart without data).
    static func json(_ value: Double) -> Any {
        value.isFinite ? value : NSNull()
    }
}
