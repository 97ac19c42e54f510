/// An SI prefix that HealthKit's unit grammar accepts on the units that take prefixes.
///
/// Both `µ` (U+00B5) and `μ` (U+03BC) parse as micro; micro always prints as `mc`, as HealthKit
/// prints it (`mcg`).
public enum MetricPrefix: Int, CaseIterable, Hashable, Sendable {
    /// No prefix (10⁰).
    case none = 0
    /// femto, `f` (10⁻¹⁵).
    case femto = -15
    /// pico, `p` (10⁻¹²).
    case pico = -12
    /// nano, `n` (10⁻⁹).
    case nano = -9
    /// micro, `mc` (10⁻⁶).
    case micro = -6
    /// milli, `m` (10⁻³).
    case milli = -3
    /// centi, `c` (10⁻²).
    case centi = -2
    /// deci, `d` (10⁻¹).
    case deci = -1
    /// deca, `da` (10¹).
    case deca = 1
    /// hecto, `h` (10²).
    case hecto = 2
    /// kilo, `k` (10³).
    case kilo = 3
    /// mega, `M` (10⁶).
    case mega = 6
    /// giga, `G` (10⁹).
    case giga = 9
    /// tera, `T` (10¹²).
    case tera = 12

    /// The power of ten this prefix multiplies by.
    public var powerOfTen: Int { rawValue }

    /// The canonical symbol ("" for none, "mc" for micro).
    public var symbol: String {
        switch self {
        case .none: ""
        case .femto: "f"
        case .pico: "p"
        case .nano: "n"
        case .micro: "mc"
        case .milli: "m"
        case .centi: "c"
        case .deci: "d"
        case .deca: "da"
        case .hecto: "h"
        case .kilo: "k"
        case .mega: "M"
        case .giga: "G"
        case .tera: "T"
        }
    }

    /// Every spelling the parser accepts, two-character spellings first so that they win.
    static let spellings: [(String, MetricPrefix)] = [
        ("da", .deca), ("mc", .micro),
        ("f", .femto), ("p", .pico), ("n", .nano), ("\u{00B5}", .micro), ("\u{03BC}", .micro),
        ("m", .milli), ("c", .centi), ("d", .deci), ("h", .hecto), ("k", .kilo),
        ("M", .mega), ("G", .giga), ("T", .tera),
    ]
}
