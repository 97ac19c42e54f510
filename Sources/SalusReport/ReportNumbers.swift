import Foundation
import SalusModel

/// Figures as the report writes them, whatever the store holds. A value saved before its type
/// had an upper bound, or by a plugin that declares none, may be as large as a `Double` goes, and
/// a sum of two such values is infinite: none of them may stop the report (`Int(1e300)` traps).
public enum ReportNumbers {
    /// `value` rounded to a whole number ("8123"); past what an int64 holds, as Swift prints the
    /// double ("1e+300", "inf", "nan").
    public static func whole(_ value: Double) -> String {
        Int64(rounding: value).map(String.init) ?? String(value)
    }

    /// `value` for the charts' JSON: the number, or null when it is not finite (JSON has no
    /// infinity, and one such value would leave every chart without data).
    static func json(_ value: Double) -> Any {
        value.isFinite ? value : NSNull()
    }
}
