/// A correlation's value: the quantity and category samples it groups into one entry, as
/// HealthKit's `HKCorrelation.objects` (a blood pressure reading, a food).
///
/// Every member is an ordinary sample of its own type with its own UUID: it appears in queries
/// of its type and counts in its statistics. A correlation and its members are saved in one
/// transaction, queried together and deleted together.
///
/// The rules (`TypeCatalog.check`, as HealthKit documents them):
/// - at least one member, each a quantity or category sample, each checked as any sample of its
///   type (its errors are named under `correlation.objects[i]`);
/// - what the correlation type may hold (`Correlation.composition(of:)`): blood pressure exactly
///   one `HKQuantityTypeIdentifierBloodPressureSystolic` and one
///   `HKQuantityTypeIdentifierBloodPressureDiastolic` sample; food dietary quantity samples
///   (`HKQuantityTypeIdentifierDietary…`) only; a third-party correlation type any quantity or
///   category samples.
///
/// Dates: HealthKit requires each sample's start at or before its end and documents no rule
/// between the members' dates and the correlation's (a food logged at noon may hold nutrients
/// with the meal's own times). Salus checks the same and no more, so correlations from Apple
/// Health exports import unchanged.
public struct Correlation: Hashable, Sendable {
    /// The members, in the order they were given (the store returns them in the order they were
    /// saved).
    public var objects: [Sample]

    /// A correlation of `objects`.
    public init(objects: [Sample]) {
        self.objects = objects
    }

    /// The members of one type, as HealthKit's `objects(for:)`.
    public func objects(of type: TypeIdentifier) -> [Sample] {
        objects.filter { $0.type == type }
    }
}

extension Correlation {
    /// What a correlation type may hold.
    package enum Composition: Hashable, Sendable {
        /// Exactly one sample of each of these types, and nothing else.
        case exactlyOneOfEach([TypeIdentifier])
        /// Quantity samples of the types whose identifier starts with this prefix, any number.
        case quantityTypes(prefix: String)
        /// Any quantity or category samples.
        case anyQuantityOrCategory
    }

    /// HealthKit's blood pressure correlation type.
    package static let bloodPressure: TypeIdentifier = "HKCorrelationTypeIdentifierBloodPressure"
    /// HealthKit's food correlation type.
    package static let food: TypeIdentifier = "HKCorrelationTypeIdentifierFood"
    /// The systolic member of a blood pressure correlation.
    package static let bloodPressureSystolic: TypeIdentifier = "HKQuantityTypeIdentifierBloodPressureSystolic"
    /// The diastolic member of a blood pressure correlation.
    package static let bloodPressureDiastolic: TypeIdentifier = "HKQuantityTypeIdentifierBloodPressureDiastolic"
    /// The prefix of HealthKit's nutrition types, which a food correlation holds.
    package static let dietaryPrefix = "HKQuantityTypeIdentifierDietary"

    /// What samples of the correlation type `type` may hold: the one table of these rules.
    package static func composition(of type: TypeIdentifier) -> Composition {
        switch type {
        case bloodPressure: .exactlyOneOfEach([bloodPressureSystolic, bloodPressureDiastolic])
        case food: .quantityTypes(prefix: dietaryPrefix)
        default: .anyQuantityOrCategory
        }
    }
}
