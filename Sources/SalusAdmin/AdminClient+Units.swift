import SalusKit
import SalusProto
import SalusRPC

/// The unit a quantity type is shown in.
public struct PreferredUnit: Sendable, Hashable {
    /// The quantity type identifier.
    public var type: String
    /// A unit of the type's dimension (km, kcal, degF).
    public var unit: String
    /// The owner chose it; false: the type's canonical unit, the default.
    public var isOwnerSet: Bool

    public init(type: String, unit: String, isOwnerSet: Bool) {
        self.type = type
        self.unit = unit
        self.isOwnerSet = isOwnerSet
    }
}

/// The owner's preferred units, which statistics use when a request names no unit and apps read
/// to show values (salus.v1.Statistics).
extension AdminClient {
    /// The unit of each quantity type (identifiers) in the order asked; with none, every type the
    /// owner chose a unit for, sorted by type. Throws ``SalusError`` for an unknown type or one
    /// that is not a quantity type.
    public func preferredUnits(of types: [String] = []) async throws -> [PreferredUnit] {
        var request = Salus_V1_PreferredUnitsRequest()
        request.types = types
        return try await call(SalusMethods.Statistics.getPreferredUnits, request).units.map(PreferredUnit.init)
    }

    /// Sets the unit `type` is shown in; nil goes back to its canonical unit. Returns the
    /// type's unit after the change (the canonical one, not owner-set, after nil). Throws ``SalusError``
    /// (``SalusError/Code/invalidArgument``) for an unknown type or a unit of another dimension.
    @discardableResult
    public func setPreferredUnit(_ unit: String?, of type: String) async throws -> [PreferredUnit] {
        var request = Salus_V1_PreferredUnit()
        request.type = type
        request.unit = unit ?? ""
        return try await call(SalusMethods.Statistics.setPreferredUnit, request).units.map(PreferredUnit.init)
    }
}

extension PreferredUnit {
    init(_ unit: Salus_V1_PreferredUnit) {
        self.init(type: unit.type, unit: unit.unit, isOwnerSet: unit.ownerSet)
    }
}

/// The daemon's unit table (salus.v1.Catalogue/Get): every unit it knows by name, the table
/// clients convert with.
public struct UnitCatalogue: Sendable, Hashable {
    /// Every unit, canonical units of the quantity types included, in the daemon's order.
    public var units: [UnitConversion]
    /// The daemon's whole response (symbols, prefixes, types), for the JSON.
    let proto: Salus_V1_CatalogueResponse
}

/// One unit and what 1 and 37.5 of it are in the reference unit of its dimension.
public struct UnitConversion: Sendable, Hashable {
    /// The unit as it is written (`mi`, `kcal`, `mg/dL`).
    public var unit: String
    /// Its canonical spelling (`mL` for `ml`).
    public var canonical: String
    /// Its dimension (`length`, `energy`).
    public var dimension: String
    /// The reference unit of the dimension, which `one` and `thirtySevenAndAHalf` are in.
    public var referenceUnit: String
    /// 1 of the unit in the reference unit.
    public var one: Double
    /// 37.5 of the unit in the reference unit (an offset unit, degF, is not a factor).
    public var thirtySevenAndAHalf: Double
}

extension AdminClient {
    /// The daemon's unit table: what `salusctl units list` prints.
    public func unitCatalogue() async throws -> UnitCatalogue {
        let response = try await call(SalusMethods.Catalogue.get, Salus_V1_CatalogueRequest())
        return UnitCatalogue(
            units: response.units.map {
                UnitConversion(
                    unit: $0.unit, canonical: $0.canonical, dimension: $0.dimension, referenceUnit: $0.referenceUnit,
                    one: $0.one, thirtySevenAndAHalf: $0.thirtySevenAndAHalf)
            },
            proto: response)
    }
}
