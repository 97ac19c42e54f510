import SalusModel

/// The codes an Observation carries: LOINC for the common vital signs and body measurements,
/// UCUM for units, and Salus's own code system for everything else.
///
/// **Rules.**
/// - A type in `loinc` gets its LOINC code first, then its Salus code: a care-team server reads
///   the first, a Salus reader the second.
/// - Every other type gets only its Salus code: system `FHIRCodes.typeSystem`, code the type
///   identifier (`HKQuantityTypeIdentifierWalkingSpeed`). Nothing is mapped to a LOINC code that
///   is only near it (walking distance is not a step count).
/// - Category values are coded in a system per type, `FHIRCodes.valueSystem` followed by `/`
///   and the type identifier, code the case name (`asleepCore`).
/// - The LOINC codes were checked against LOINC's own pages and the FHIR R4 vital-signs profile;
///   `Tests/SalusServerTests/FHIRExportTests.swift` names them.
package enum FHIRCodes {
    /// The code system of Salus type identifiers.
    package static let typeSystem = "https://salus.invalid/fhir/type"
    /// The prefix of the code systems of category values (one per type).
    package static let valueSystem = "https://salus.invalid/fhir/value"
    /// LOINC.
    package static let loincSystem = "http://loinc.org"
    /// UCUM.
    package static let ucumSystem = "http://unitsofmeasure.org"
    /// Observation categories.
    package static let categorySystem = "http://terminology.hl7.org/CodeSystem/observation-category"

    /// A LOINC code with its display, its observation category and the unit values are written in.
    package struct Code: Sendable {
        /// "8867-4".
        package var code: String
        /// "Heart rate".
        package var display: String
        /// "vital-signs", "activity", "laboratory", "exam".
        package var category: String
        /// The unit the value is converted to, as Salus writes it ("count/min").
        package var unit: String
        /// That unit in UCUM ("/min").
        package var ucum: String
    }

    /// LOINC codes by HealthKit identifier.
    package static let loinc: [String: Code] = [
        "HKQuantityTypeIdentifierHeartRate": Code(code: "8867-4", display: "Heart rate", category: "vital-signs", unit: "count/min", ucum: "/min"),
        "HKQuantityTypeIdentifierRestingHeartRate": Code(code: "40443-4", display: "Heart rate --resting", category: "vital-signs", unit: "count/min", ucum: "/min"),
        "HKQuantityTypeIdentifierRespiratoryRate": Code(code: "9279-1", display: "Respiratory rate", category: "vital-signs", unit: "count/min", ucum: "/min"),
        "HKQuantityTypeIdentifierOxygenSaturation": Code(code: "2708-6", display: "Oxygen saturation in Arterial blood", category: "vital-signs", unit: "%", ucum: "%"),
        "HKQuantityTypeIdentifierBodyTemperature": Code(code: "8310-5", display: "Body temperature", category: "vital-signs", unit: "degC", ucum: "Cel"),
        "HKQuantityTypeIdentifierHeight": Code(code: "8302-2", display: "Body height", category: "vital-signs", unit: "cm", ucum: "cm"),
        "HKQuantityTypeIdentifierBodyMass": Code(code: "29463-7", display: "Body weight", category: "vital-signs", unit: "kg", ucum: "kg"),
        "HKQuantityTypeIdentifierBodyMassIndex": Code(code: "39156-5", display: "Body mass index (BMI) [Ratio]", category: "vital-signs", unit: "count", ucum: "kg/m2"),
        "HKQuantityTypeIdentifierBloodPressureSystolic": Code(code: "8480-6", display: "Systolic blood pressure", category: "vital-signs", unit: "mmHg", ucum: "mm[Hg]"),
        "HKQuantityTypeIdentifierBloodPressureDiastolic": Code(code: "8462-4", display: "Diastolic blood pressure", category: "vital-signs", unit: "mmHg", ucum: "mm[Hg]"),
        "HKCorrelationTypeIdentifierBloodPressure": Code(code: "85354-9", display: "Blood pressure panel with all children optional", category: "vital-signs", unit: "", ucum: ""),
        "HKQuantityTypeIdentifierHeartRateVariabilitySDNN": Code(code: "80404-7", display: "R-R interval.standard deviation (Heart rate variability)", category: "vital-signs", unit: "ms", ucum: "ms"),
        "HKQuantityTypeIdentifierStepCount": Code(code: "55423-8", display: "Number of steps in unspecified time Pedometer", category: "activity", unit: "count", ucum: "{steps}"),
        "HKQuantityTypeIdentifierBloodGlucose": Code(code: "2339-0", display: "Glucose [Mass/volume] in Blood", category: "laboratory", unit: "mg/dL", ucum: "mg/dL"),
        "HKQuantityTypeIdentifierBodyFatPercentage": Code(code: "41982-0", display: "Percentage of body fat Measured", category: "exam", unit: "%", ucum: "%"),
        "HKQuantityTypeIdentifierWaistCircumference": Code(code: "8280-0", display: "Waist Circumference at umbilicus by Tape measure", category: "exam", unit: "cm", ucum: "cm"),
    ]

    /// UCUM for the unit symbols Salus writes; a unit with a symbol not here is written as text
    /// only, without a UCUM code.
    static let ucumSymbols: [String: String] = [
        "count": "1", "%": "%", "IU": "[IU]", "J": "J", "cal": "cal", "kcal": "kcal", "Cal": "kcal", "W": "W",
        "m": "m", "in": "[in_i]", "ft": "[ft_i]", "yd": "[yd_i]", "mi": "[mi_i]", "L": "L",
        "fl_oz_us": "[foz_us]", "fl_oz_imp": "[foz_br]", "cup_us": "[cup_us]", "pt_us": "[pt_us]", "pt_imp": "[pt_br]",
        "Pa": "Pa", "mmHg": "mm[Hg]", "cmAq": "cm[H2O]", "atm": "atm", "inHg": "[in_i'Hg]", "K": "K", "degC": "Cel",
        "degF": "[degF]", "V": "V", "S": "S", "Hz": "Hz", "lx": "lx", "rad": "rad", "deg": "deg", "s": "s", "min": "min",
        "hr": "h", "d": "d", "g": "g", "oz": "[oz_av]", "lb": "[lb_av]", "st": "[stone_av]", "mol": "mol",
        "dBASPL": "dB", "dBHL": "dB",
    ]

    /// SI prefixes as Salus writes them, and in UCUM.
    static let prefixes: [(String, String)] = [
        ("mc", "u"), ("µ", "u"), ("da", "da"), ("p", "p"), ("n", "n"), ("m", "m"), ("c", "c"), ("d", "d"),
        ("k", "k"), ("M", "M"), ("G", "G"), ("T", "T"),
    ]

    /// `unit` in UCUM (`count/min` → `/min`, `mL/min·kg` → `mL/min/kg`, `degC` → `Cel`), or nil
    /// when a symbol has no UCUM form here.
    package static func ucum(_ unit: SalusUnit) -> String? {
        var text = unit.description
        if let open = text.firstIndex(of: "<"), let close = text.firstIndex(of: ">"), open < close {
            text.removeSubrange(open...close)  // mmol<180.15588>/L: the molar mass is not part of UCUM's mmol.
        }
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        guard let top = parts.first else { return nil }
        var numerator: [String] = []
        for factor in top.split(separator: "·") {
            guard let code = symbol(String(factor)) else { return nil }
            numerator.append(code)
        }
        var result = numerator == ["1"] && parts.count > 1 ? "" : numerator.joined(separator: ".")
        if parts.count > 1 {
            for factor in parts[1].split(separator: "·") {
                guard let code = symbol(String(factor)) else { return nil }
                result += "/" + code
            }
        }
        return result.isEmpty ? "1" : result
    }

    /// One factor (`kg`, `m^2`, `mL`) in UCUM.
    static func symbol(_ factor: String) -> String? {
        var base = factor
        var exponent = ""
        if let caret = factor.firstIndex(of: "^") {
            base = String(factor[..<caret])
            exponent = String(factor[factor.index(after: caret)...])
        }
        if let code = ucumSymbols[base] { return code + exponent }
        for (prefix, ucumPrefix) in prefixes where base.hasPrefix(prefix) {
            let rest = String(base.dropFirst(prefix.count))
            if let code = ucumSymbols[rest], !code.hasPrefix("["), code != "1", code != "%" { return ucumPrefix + code + exponent }
        }
        return nil
    }
}
