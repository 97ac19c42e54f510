import SalusPluginKit

/// Nutrition: every dietary nutrient HealthKit records (energy, macronutrients, vitamins,
/// minerals, caffeine) and the number of alcoholic beverages. Each one adds up over a day and is
/// never negative. Water predates this plugin and stays in Salus Core.
enum NutritionManifest {
    static let manifest = PluginManifest(
        id: "org.salus.nutrition", name: "Salus Nutrition", version: "1.0.0",
        types: table.map { identifier, displayName, unit in
            TypeDefinition.quantity(identifier, displayName: displayName, unit: unit, aggregation: .cumulative,
                      bounds: .lifetimeTotal, area: "nutrition")
        }
    )

    /// (identifier, display name, canonical unit), one row per type.
    static let table: [(String, String, String)] = [
        ("HKQuantityTypeIdentifierDietaryEnergyConsumed", "Dietary energy", "kcal"),
        ("HKQuantityTypeIdentifierDietaryCarbohydrates", "Carbohydrates", "g"),
        ("HKQuantityTypeIdentifierDietaryFiber", "Fiber", "g"),
        ("HKQuantityTypeIdentifierDietarySugar", "Sugar", "g"),
        ("HKQuantityTypeIdentifierDietaryFatTotal", "Total fat", "g"),
        ("HKQuantityTypeIdentifierDietaryFatMonounsaturated", "Monounsaturated fat", "g"),
        ("HKQuantityTypeIdentifierDietaryFatPolyunsaturated", "Polyunsaturated fat", "g"),
        ("HKQuantityTypeIdentifierDietaryFatSaturated", "Saturated fat", "g"),
        ("HKQuantityTypeIdentifierDietaryCholesterol", "Cholesterol", "g"),
        ("HKQuantityTypeIdentifierDietaryProtein", "Protein", "g"),
        ("HKQuantityTypeIdentifierDietaryVitaminA", "Vitamin A", "g"),
        ("HKQuantityTypeIdentifierDietaryThiamin", "Thiamin", "g"),
        ("HKQuantityTypeIdentifierDietaryRiboflavin", "Riboflavin", "g"),
        ("HKQuantityTypeIdentifierDietaryNiacin", "Niacin", "g"),
        ("HKQuantityTypeIdentifierDietaryPantothenicAcid", "Pantothenic acid", "g"),
        ("HKQuantityTypeIdentifierDietaryVitaminB6", "Vitamin B6", "g"),
        ("HKQuantityTypeIdentifierDietaryBiotin", "Biotin", "g"),
        ("HKQuantityTypeIdentifierDietaryVitaminB12", "Vitamin B12", "g"),
        ("HKQuantityTypeIdentifierDietaryVitaminC", "Vitamin C", "g"),
        ("HKQuantityTypeIdentifierDietaryVitaminD", "Vitamin D", "g"),
        ("HKQuantityTypeIdentifierDietaryVitaminE", "Vitamin E", "g"),
        ("HKQuantityTypeIdentifierDietaryVitaminK", "Vitamin K", "g"),
        ("HKQuantityTypeIdentifierDietaryFolate", "Folate", "g"),
        ("HKQuantityTypeIdentifierDietaryCalcium", "Calcium", "g"),
        ("HKQuantityTypeIdentifierDietaryChloride", "Chloride", "g"),
        ("HKQuantityTypeIdentifierDietaryIron", "Iron", "g"),
        ("HKQuantityTypeIdentifierDietaryMagnesium", "Magnesium", "g"),
        ("HKQuantityTypeIdentifierDietaryPhosphorus", "Phosphorus", "g"),
        ("HKQuantityTypeIdentifierDietaryPotassium", "Potassium", "g"),
        ("HKQuantityTypeIdentifierDietarySodium", "Sodium", "g"),
        ("HKQuantityTypeIdentifierDietaryZinc", "Zinc", "g"),
        ("HKQuantityTypeIdentifierDietaryChromium", "Chromium", "g"),
        ("HKQuantityTypeIdentifierDietaryCopper", "Copper", "g"),
        ("HKQuantityTypeIdentifierDietaryIodine", "Iodine", "g"),
        ("HKQuantityTypeIdentifierDietaryManganese", "Manganese", "g"),
        ("HKQuantityTypeIdentifierDietaryMolybdenum", "Molybdenum", "g"),
        ("HKQuantityTypeIdentifierDietarySelenium", "Selenium", "g"),
        ("HKQuantityTypeIdentifierDietaryCaffeine", "Caffeine", "g"),
        ("HKQuantityTypeIdentifierNumberOfAlcoholicBeverages", "Alcoholic beverages", "count"),
    ]
}
