/// A sample kind's own rules, declared with its value type: `Sample.validationErrors(at:)` and
/// `TypeCatalog.check` ask every kind's value through this protocol (`SampleValue.kindRules`), so
/// a new kind puts its rules in its own file (`Samples/UserAnnotatedMedication.swift` is one)
/// and neither check needs an edit. Quantities and categories are the exceptions: their rules
/// are their types' (unit, bounds, enumeration), checked by `TypeCatalog`.
package protocol SampleKindRules {
    /// Every rule the value breaks, in field order, its fields named under `path` (the value's
    /// own field, "samples[0].audiogram"). `sample` holds the value, its dates already checked:
    /// `datesValid` is false when they are not a valid range, and rules measured against the
    /// sample's interval are then skipped.
    func validationErrors(in sample: Sample, datesValid: Bool, at path: String) -> [ValidationError]

    /// What the value breaks of its type's declared `rules`, under `path`; none unless the kind
    /// has rules a type declares.
    func declaredErrors(rules: TypeRules, at path: String) -> [ValidationError]
}

extension SampleKindRules {
    package func declaredErrors(rules: TypeRules, at path: String) -> [ValidationError] { [] }
}
