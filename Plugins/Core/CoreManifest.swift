import SalusPluginKit

/// Core: activity, energy, running, cycling, snow and water sports, cardio fitness, heart rate
/// (with resting and walking averages, variability and recovery), body measurements and
/// temperature, workouts and their effort, daylight, UV, hygiene events, the characteristics and
/// the general metadata keys. Identifiers, raw values, units and aggregation styles are
/// HealthKit's; each type's area is the HealthKit catalogue's.
enum CoreManifest {
    static let manifest = PluginManifest(
        id: "org.salus.core", name: "Salus Core", version: "1.1.0",
        types: types.filter { $0.kind != .characteristic } + [activitySummary] + correlationTypes,
        workoutActivityTypes: workoutActivityTypes,
        characteristicTypes: types.filter { $0.kind == .characteristic },
        metadataKeys: metadataKeys,
        // `validate` has rules for these two only; steps, heart rate and the rest are not sent to it.
        validatedTypes: ["HKCategoryTypeIdentifierAppleStandHour", "HKQuantityTypeIdentifierHeartRateRecoveryOneMinute"]
    )

    // MARK: The types, one row each

    static let types: [TypeDefinition] = [
        // Activity.
        .quantity("HKQuantityTypeIdentifierStepCount", displayName: "Steps", unit: "count",
                  aggregation: .cumulative, bounds: .lifetimeTotal, area: "activity"),
        .quantity("HKQuantityTypeIdentifierDistanceWalkingRunning", displayName: "Walking + running distance",
                  unit: "m", aggregation: .cumulative, bounds: .lifetimeTotal, area: "activity"),
        .quantity("HKQuantityTypeIdentifierDistanceCycling", displayName: "Cycling distance", unit: "m",
                  aggregation: .cumulative, bounds: .lifetimeTotal, area: "activity"),
        .quantity("HKQuantityTypeIdentifierDistanceSwimming", displayName: "Swimming distance", unit: "m",
                  aggregation: .cumulative, bounds: .lifetimeTotal, area: "activity"),
        .quantity("HKQuantityTypeIdentifierDistanceDownhillSnowSports", displayName: "Downhill snow sports distance",
                  unit: "m", aggregation: .cumulative, bounds: .lifetimeTotal, area: "activity"),
        .quantity("HKQuantityTypeIdentifierDistanceCrossCountrySkiing", displayName: "Cross-country skiing distance",
                  unit: "m", aggregation: .cumulative, bounds: .lifetimeTotal, area: "activity"),
        .quantity("HKQuantityTypeIdentifierDistancePaddleSports", displayName: "Paddle sports distance", unit: "m",
                  aggregation: .cumulative, bounds: .lifetimeTotal, area: "activity"),
        .quantity("HKQuantityTypeIdentifierDistanceRowing", displayName: "Rowing distance", unit: "m",
                  aggregation: .cumulative, bounds: .lifetimeTotal, area: "activity"),
        .quantity("HKQuantityTypeIdentifierDistanceSkatingSports", displayName: "Skating sports distance", unit: "m",
                  aggregation: .cumulative, bounds: .lifetimeTotal, area: "activity"),
        .quantity("HKQuantityTypeIdentifierSwimmingStrokeCount", displayName: "Swimming strokes", unit: "count",
                  aggregation: .cumulative, bounds: .lifetimeTotal, area: "activity"),
        .quantity("HKQuantityTypeIdentifierActiveEnergyBurned", displayName: "Active energy", unit: "kcal",
                  aggregation: .cumulative, bounds: .lifetimeTotal, area: "activity"),
        .quantity("HKQuantityTypeIdentifierBasalEnergyBurned", displayName: "Resting energy", unit: "kcal",
                  aggregation: .cumulative, bounds: .lifetimeTotal, area: "activity"),
        .quantity("HKQuantityTypeIdentifierAppleExerciseTime", displayName: "Exercise minutes", unit: "min",
                  aggregation: .cumulative, bounds: .lifetimeMinutes, area: "activity"),
        .quantity("HKQuantityTypeIdentifierAppleStandTime", displayName: "Stand minutes", unit: "min",
                  aggregation: .cumulative, bounds: .lifetimeMinutes, area: "activity"),
        .quantity("HKQuantityTypeIdentifierFlightsClimbed", displayName: "Flights climbed", unit: "count",
                  aggregation: .cumulative, bounds: .lifetimeTotal, area: "activity"),
        .quantity("HKQuantityTypeIdentifierNikeFuel", displayName: "NikeFuel", unit: "count",
                  aggregation: .cumulative, bounds: .lifetimeTotal, area: "activity"),
        .quantity("HKQuantityTypeIdentifierRunningStrideLength", displayName: "Running stride length", unit: "m",
                  aggregation: .discreteArithmetic, bounds: .nonNegative, area: "activity"),
        .quantity("HKQuantityTypeIdentifierRunningPower", displayName: "Running power", unit: "W",
                  aggregation: .discreteArithmetic, bounds: .nonNegative, area: "activity"),
        .quantity("HKQuantityTypeIdentifierRunningSpeed", displayName: "Running speed", unit: "m/s",
                  aggregation: .discreteArithmetic, bounds: .nonNegative, area: "activity"),
        .quantity("HKQuantityTypeIdentifierRunningVerticalOscillation", displayName: "Vertical oscillation",
                  unit: "cm", aggregation: .discreteArithmetic, bounds: .nonNegative, area: "activity"),
        .quantity("HKQuantityTypeIdentifierRunningGroundContactTime", displayName: "Ground contact time",
                  unit: "ms", aggregation: .discreteArithmetic, bounds: .nonNegative, area: "activity"),
        .quantity("HKQuantityTypeIdentifierCyclingCadence", displayName: "Cycling cadence", unit: "count/min",
                  aggregation: .discreteTemporallyWeighted, bounds: .nonNegative, area: "activity"),
        .quantity("HKQuantityTypeIdentifierCyclingPower", displayName: "Cycling power", unit: "W",
                  aggregation: .discreteTemporallyWeighted, bounds: .nonNegative, area: "activity"),
        .quantity("HKQuantityTypeIdentifierCyclingSpeed", displayName: "Cycling speed", unit: "m/s",
                  aggregation: .discreteTemporallyWeighted, bounds: .nonNegative, area: "activity"),
        .quantity("HKQuantityTypeIdentifierCyclingFunctionalThresholdPower",
                  displayName: "Cycling functional threshold power", unit: "W",
                  aggregation: .discreteArithmetic, bounds: .nonNegative, area: "activity"),
        .quantity("HKQuantityTypeIdentifierCrossCountrySkiingSpeed", displayName: "Cross-country skiing speed",
                  unit: "m/s", aggregation: .discreteArithmetic, bounds: .nonNegative, area: "activity"),
        .quantity("HKQuantityTypeIdentifierPaddleSportsSpeed", displayName: "Paddle sports speed", unit: "m/s",
                  aggregation: .discreteArithmetic, bounds: .nonNegative, area: "activity"),
        .quantity("HKQuantityTypeIdentifierRowingSpeed", displayName: "Rowing speed", unit: "m/s",
                  aggregation: .discreteArithmetic, bounds: .nonNegative, area: "activity"),
        // METs: energy per body mass and time.
        .quantity("HKQuantityTypeIdentifierPhysicalEffort", displayName: "Physical effort", unit: "kcal/(kg*hr)",
                  aggregation: .discreteArithmetic, bounds: .nonNegative, area: "activity")
            .documenting(MetadataKeyUse("HKPhysicalEffortEstimationType", .number)),
        // HealthKit spells this unit with a lower-case "ml"; the listing shows it as declared.
        .quantity("HKQuantityTypeIdentifierVO2Max", displayName: "Cardio fitness (VO2 max)", unit: "ml/(kg*min)",
                  aggregation: .discreteArithmetic, bounds: .positive, area: "activity")
            .documenting(MetadataKeyUse("HKVO2MaxTestType", .number)),
        .category("HKCategoryTypeIdentifierAppleStandHour", displayName: "Stand hours",
                  cases: [EnumerationCase("stood", 0), EnumerationCase("idle", 1)], area: "activity"),
        .characteristic("HKCharacteristicTypeIdentifierActivityMoveMode", displayName: "Move mode", cases: [
            EnumerationCase("activeEnergy", 1), EnumerationCase("appleMoveTime", 2),
        ], area: "activity"),

        // Heart and temperature (the catalogue's vitals; the rest of that area is Salus Vitals').
        // Canonical count/s, as HealthKit's; 600 beats per minute is 10 per second.
        .quantity("HKQuantityTypeIdentifierHeartRate", displayName: "Heart rate", unit: "count/s",
                  aggregation: .discreteTemporallyWeighted,
                  bounds: ValueBounds(min: 0, minInclusive: false, max: 10, maxInclusive: false), area: "vitals")
            .documenting(MetadataKeyUse("HKMetadataKeyHeartRateMotionContext", .number),
                         MetadataKeyUse("HKHeartRateSensorLocation", .number)),
        .quantity("HKQuantityTypeIdentifierRestingHeartRate", displayName: "Resting heart rate", unit: "count/min",
                  aggregation: .discreteTemporallyWeighted, bounds: heartRateBounds, area: "vitals"),
        .quantity("HKQuantityTypeIdentifierWalkingHeartRateAverage", displayName: "Walking heart rate average",
                  unit: "count/min", aggregation: .discreteTemporallyWeighted, bounds: heartRateBounds, area: "vitals"),
        .quantity("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", displayName: "Heart rate variability (SDNN)",
                  unit: "ms", aggregation: .discreteArithmetic, bounds: .nonNegative, area: "vitals"),
        // HealthKit: "always positive".
        .quantity("HKQuantityTypeIdentifierHeartRateRecoveryOneMinute", displayName: "Cardio recovery",
                  unit: "count/min", aggregation: .discreteArithmetic, bounds: heartRateBounds, area: "vitals")
            .documenting(MetadataKeyUse("HKMetadataKeyHeartRateRecoveryTestType", .number),
                         MetadataKeyUse("HKMetadataKeyHeartRateRecoveryActivityType", .number),
                         MetadataKeyUse("HKMetadataKeyHeartRateRecoveryActivityDuration", .quantity),
                         MetadataKeyUse("HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate", .quantity)),
        .quantity("HKQuantityTypeIdentifierBodyTemperature", displayName: "Body temperature", unit: "degC",
                  aggregation: .discreteArithmetic, bounds: bodyTemperatureBounds, area: "vitals")
            .documenting(MetadataKeyUse("HKBodyTemperatureSensorLocation", .number)),

        // Body measurements and characteristics.
        // A living body weighs something and less than a tonne (the heaviest recorded: 635 kg).
        .quantity("HKQuantityTypeIdentifierBodyMass", displayName: "Weight", unit: "kg",
                  aggregation: .discreteArithmetic, bounds: bodyMassBounds, area: "body"),
        .quantity("HKQuantityTypeIdentifierLeanBodyMass", displayName: "Lean body mass", unit: "kg",
                  aggregation: .discreteArithmetic, bounds: bodyMassBounds, area: "body"),
        // "%" is a hundredth of a count in SalusModel: 25 % is stored as 25.
        .quantity("HKQuantityTypeIdentifierBodyFatPercentage", displayName: "Body fat percentage", unit: "%",
                  aggregation: .discreteArithmetic, bounds: ValueBounds(min: 0, max: 100), area: "body"),
        .quantity("HKQuantityTypeIdentifierBodyMassIndex", displayName: "Body mass index", unit: "count",
                  aggregation: .discreteArithmetic, bounds: .positive, area: "body"),
        // Taller than 3 m has never been measured (the tallest: 2.72 m).
        .quantity("HKQuantityTypeIdentifierHeight", displayName: "Height", unit: "m",
                  aggregation: .discreteArithmetic, bounds: ValueBounds(min: 0, minInclusive: false, max: 3),
                  area: "body"),
        .quantity("HKQuantityTypeIdentifierWaistCircumference", displayName: "Waist circumference", unit: "m",
                  aggregation: .discreteArithmetic, bounds: .positive, area: "body"),
        .characteristic("HKCharacteristicTypeIdentifierBiologicalSex", displayName: "Sex", cases: [
            EnumerationCase("notSet", 0), EnumerationCase("female", 1), EnumerationCase("male", 2),
            EnumerationCase("other", 3),
        ], area: "body"),
        .characteristic("HKCharacteristicTypeIdentifierBloodType", displayName: "Blood type", cases: [
            EnumerationCase("notSet", 0), EnumerationCase("aPositive", 1), EnumerationCase("aNegative", 2),
            EnumerationCase("bPositive", 3), EnumerationCase("bNegative", 4), EnumerationCase("abPositive", 5),
            EnumerationCase("abNegative", 6), EnumerationCase("oPositive", 7), EnumerationCase("oNegative", 8),
        ], area: "body"),
        .dateCharacteristic("HKCharacteristicTypeIdentifierDateOfBirth", displayName: "Date of birth", area: "body"),
        .characteristic("HKCharacteristicTypeIdentifierFitzpatrickSkinType", displayName: "Skin type", cases: [
            EnumerationCase("notSet", 0), EnumerationCase("I", 1), EnumerationCase("II", 2),
            EnumerationCase("III", 3), EnumerationCase("IV", 4), EnumerationCase("V", 5), EnumerationCase("VI", 6),
        ], area: "body"),
        // HKReferenceSex (iOS 27.3 beta): the integers follow HKBiologicalSex's.
        .characteristic("HKCharacteristicTypeIdentifierReferenceSex", displayName: "Reference sex", cases: [
            EnumerationCase("notSet", 0), EnumerationCase("female", 1), EnumerationCase("male", 2),
        ], area: "body"),

        // Workouts and what is measured during them.
        TypeDefinition(identifier: "HKWorkoutTypeIdentifier", kind: .workout, displayName: "Workouts")
            .inArea("workouts")
            .documenting(
                MetadataKeyUse("HKIndoorWorkout", .bool), MetadataKeyUse("HKLapLength", .quantity),
                MetadataKeyUse("HKSwimmingLocationType", .number), MetadataKeyUse("HKSWOLFScore", .number),
                MetadataKeyUse("HKWeatherTemperature", .quantity), MetadataKeyUse("HKWeatherHumidity", .quantity),
                MetadataKeyUse("HKWeatherCondition", .number), MetadataKeyUse("HKElevationAscended", .quantity),
                MetadataKeyUse("HKElevationDescended", .quantity), MetadataKeyUse("HKAverageMETs", .quantity)),
        // The same workout from another source, kept beside the workout that stays
        // (docs/import.md, "The same workout from several sources"): made by imports only.
        TypeDefinition(identifier: "org.salus.core.workoutAlternate", kind: .workout, displayName: "Workout alternates")
            .inArea("workouts")
            .readOnly()
            .requiring(MetadataKeyUse("org.salus.core.alternateOf", .string)),
        // HKWorkoutRoute: locations attached to one workout (docs/workouts.md, "Routes").
        TypeDefinition(identifier: "HKWorkoutRouteTypeIdentifier", kind: .workoutRoute, displayName: "Workout routes")
            .inArea("workouts"),
        .quantity("HKQuantityTypeIdentifierWorkoutEffortScore", displayName: "Workout effort",
                  unit: "appleEffortScore", aggregation: .discreteArithmetic, bounds: .nonNegative, area: "workouts"),
        .quantity("HKQuantityTypeIdentifierEstimatedWorkoutEffortScore", displayName: "Estimated workout effort",
                  unit: "appleEffortScore", aggregation: .discreteArithmetic, bounds: .nonNegative, area: "workouts"),
        .quantity("HKQuantityTypeIdentifierUnderwaterDepth", displayName: "Underwater depth", unit: "m",
                  aggregation: .discreteArithmetic, bounds: .nonNegative, area: "workouts"),
        .quantity("HKQuantityTypeIdentifierWaterTemperature", displayName: "Water temperature", unit: "degC",
                  aggregation: .discreteArithmetic, area: "workouts"),

        // Water intake (the other nutrients are Salus Nutrition's).
        .quantity("HKQuantityTypeIdentifierDietaryWater", displayName: "Water", unit: "mL",
                  aggregation: .cumulative, bounds: .lifetimeTotal, area: "nutrition"),

        // The catalogue's "other": daylight, UV, hygiene.
        .quantity("HKQuantityTypeIdentifierTimeInDaylight", displayName: "Time in daylight", unit: "min",
                  aggregation: .cumulative, bounds: .lifetimeMinutes, area: "other"),
        .quantity("HKQuantityTypeIdentifierUVExposure", displayName: "UV index", unit: "count",
                  aggregation: .discreteArithmetic, bounds: .nonNegative, area: "other"),
        .category("HKCategoryTypeIdentifierHandwashingEvent", displayName: "Handwashing",
                  cases: [.notApplicable], area: "other"),
        .category("HKCategoryTypeIdentifierToothbrushingEvent", displayName: "Toothbrushing",
                  cases: [.notApplicable], area: "other"),
    ]

    /// Beats per minute above zero and below 600 (no heart has been recorded above ~480).
    static let heartRateBounds = ValueBounds(min: 0, minInclusive: false, max: 600, maxInclusive: false)

    /// Degrees Celsius above freezing and at most 50 (the highest survived: 46.5 °C).
    static let bodyTemperatureBounds = ValueBounds(min: 0, minInclusive: false, max: 50)

    /// Kilograms above zero and at most a tonne.
    static let bodyMassBounds = ValueBounds(min: 0, minInclusive: false, max: 1000)

    // MARK: Workout activity types (HKWorkoutActivityType; 70 and 71 are Wheelchair's)

    static let workoutActivityTypes: [WorkoutActivityTypeDefinition] = [
        ("americanFootball", 1), ("archery", 2), ("australianFootball", 3), ("badminton", 4),
        ("baseball", 5), ("basketball", 6), ("bowling", 7), ("boxing", 8), ("climbing", 9),
        ("cricket", 10), ("crossTraining", 11), ("curling", 12), ("cycling", 13), ("dance", 14),
        ("danceInspiredTraining", 15), ("elliptical", 16), ("equestrianSports", 17), ("fencing", 18),
        ("fishing", 19), ("functionalStrengthTraining", 20), ("golf", 21), ("gymnastics", 22),
        ("handball", 23), ("hiking", 24), ("hockey", 25), ("hunting", 26), ("lacrosse", 27),
        ("martialArts", 28), ("mindAndBody", 29), ("mixedMetabolicCardioTraining", 30),
        ("paddleSports", 31), ("play", 32), ("preparationAndRecovery", 33), ("racquetball", 34),
        ("rowing", 35), ("rugby", 36), ("running", 37), ("sailing", 38), ("skatingSports", 39),
        ("snowSports", 40), ("soccer", 41), ("softball", 42), ("squash", 43), ("stairClimbing", 44),
        ("surfingSports", 45), ("swimming", 46), ("tableTennis", 47), ("tennis", 48),
        ("trackAndField", 49), ("traditionalStrengthTraining", 50), ("volleyball", 51),
        ("walking", 52), ("waterFitness", 53), ("waterPolo", 54), ("waterSports", 55),
        ("wrestling", 56), ("yoga", 57), ("barre", 58), ("coreTraining", 59),
        ("crossCountrySkiing", 60), ("downhillSkiing", 61), ("flexibility", 62),
        ("highIntensityIntervalTraining", 63), ("jumpRope", 64), ("kickboxing", 65), ("pilates", 66),
        ("snowboarding", 67), ("stairs", 68), ("stepTraining", 69), ("taiChi", 72),
        ("mixedCardio", 73), ("handCycling", 74), ("discSports", 75), ("fitnessGaming", 76),
        ("cardioDance", 77), ("socialDance", 78), ("pickleball", 79), ("cooldown", 80),
        ("swimBikeRun", 82), ("transition", 83), ("underwaterDiving", 84), ("rest", 2998),
        ("group", 2999), ("other", 3000),
    ].map { WorkoutActivityTypeDefinition($0.0, $0.1) }

    // MARK: Metadata keys (raw key strings, as in HealthKit and export.xml)

    static let metadataKeys: [MetadataKeyDefinition] = [
        MetadataKeyDefinition("HKMetadataKeySyncIdentifier", .string, displayName: "Sync identifier"),
        MetadataKeyDefinition("HKMetadataKeySyncVersion", .number, displayName: "Sync version"),
        MetadataKeyDefinition("HKTimeZone", .string, displayName: "Time zone"),
        MetadataKeyDefinition("HKWasUserEntered", .bool, displayName: "Entered by the user"),
        MetadataKeyDefinition("HKExternalUUID", .string, displayName: "External UUID"),
        MetadataKeyDefinition("HKDeviceName", .string, displayName: "Device name"),
        MetadataKeyDefinition("HKDeviceManufacturerName", .string, displayName: "Device manufacturer"),
        MetadataKeyDefinition("HKDeviceSerialNumber", .string, displayName: "Device serial number"),
        MetadataKeyDefinition("HKUDIDeviceIdentifier", .string, displayName: "UDI device identifier"),
        MetadataKeyDefinition("HKUDIProductionIdentifier", .string, displayName: "UDI production identifier"),
        MetadataKeyDefinition("HKDigitalSignature", .string, displayName: "Digital signature"),
        MetadataKeyDefinition("HKIndoorWorkout", .bool, displayName: "Indoor workout"),
        MetadataKeyDefinition("HKLapLength", .quantity, displayName: "Lap length", unit: "m"),
        MetadataKeyDefinition("HKSwimmingLocationType", .number, displayName: "Swimming location",
                              allowedValues: [EnumerationCase("unknown", 0), EnumerationCase("pool", 1),
                                              EnumerationCase("openWater", 2)]),
        MetadataKeyDefinition("HKSwimmingStrokeStyle", .number, displayName: "Swimming stroke style",
                              allowedValues: [EnumerationCase("unknown", 0), EnumerationCase("mixed", 1),
                                              EnumerationCase("freestyle", 2), EnumerationCase("backstroke", 3),
                                              EnumerationCase("breaststroke", 4), EnumerationCase("butterfly", 5),
                                              EnumerationCase("kickboard", 6)]),
        MetadataKeyDefinition("HKSWOLFScore", .number, displayName: "SWOLF score"),
        MetadataKeyDefinition("HKWeatherTemperature", .quantity, displayName: "Weather temperature", unit: "degC"),
        MetadataKeyDefinition("HKWeatherHumidity", .quantity, displayName: "Weather humidity", unit: "%"),
        MetadataKeyDefinition("HKWeatherCondition", .number, displayName: "Weather condition",
                              allowedValues: weatherConditions),
        MetadataKeyDefinition("HKElevationAscended", .quantity, displayName: "Elevation ascended", unit: "m"),
        MetadataKeyDefinition("HKElevationDescended", .quantity, displayName: "Elevation descended", unit: "m"),
        MetadataKeyDefinition("HKAverageMETs", .quantity, displayName: "Average METs", unit: "kcal/(kg*hr)"),
        MetadataKeyDefinition("HKMetadataKeyHeartRateMotionContext", .number, displayName: "Heart rate context",
                              allowedValues: [EnumerationCase("notSet", 0), EnumerationCase("sedentary", 1),
                                              EnumerationCase("active", 2)]),
        MetadataKeyDefinition("HKMetadataKeyHeartRateRecoveryTestType", .number,
                              displayName: "Cardio recovery test type",
                              allowedValues: [EnumerationCase("maxExercise", 1),
                                              EnumerationCase("predictionSubMaxExercise", 2),
                                              EnumerationCase("predictionNonExercise", 3)]),
        MetadataKeyDefinition("HKMetadataKeyHeartRateRecoveryActivityType", .number,
                              displayName: "Cardio recovery activity type"),
        MetadataKeyDefinition("HKMetadataKeyHeartRateRecoveryActivityDuration", .quantity,
                              displayName: "Cardio recovery activity duration", unit: "s"),
        MetadataKeyDefinition("HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate", .quantity,
                              displayName: "Cardio recovery maximum heart rate", unit: "count/min"),
        MetadataKeyDefinition("HKHeartRateSensorLocation", .number, displayName: "Heart rate sensor location",
                              allowedValues: [EnumerationCase("other", 0), EnumerationCase("chest", 1),
                                              EnumerationCase("wrist", 2), EnumerationCase("finger", 3),
                                              EnumerationCase("hand", 4), EnumerationCase("earLobe", 5),
                                              EnumerationCase("foot", 6)]),
        MetadataKeyDefinition("HKBodyTemperatureSensorLocation", .number,
                              displayName: "Body temperature sensor location",
                              allowedValues: [EnumerationCase("other", 0), EnumerationCase("armpit", 1),
                                              EnumerationCase("body", 2), EnumerationCase("ear", 3),
                                              EnumerationCase("finger", 4), EnumerationCase("gastroIntestinal", 5),
                                              EnumerationCase("mouth", 6), EnumerationCase("rectum", 7),
                                              EnumerationCase("toe", 8), EnumerationCase("earDrum", 9),
                                              EnumerationCase("temporalArtery", 10), EnumerationCase("forehead", 11)]),
        MetadataKeyDefinition("HKVO2MaxTestType", .number, displayName: "VO2 max test type",
                              allowedValues: [EnumerationCase("maxExercise", 1),
                                              EnumerationCase("predictionSubMaxExercise", 2),
                                              EnumerationCase("predictionNonExercise", 3),
                                              EnumerationCase("predictionStepTest", 4)]),
        MetadataKeyDefinition("HKPhysicalEffortEstimationType", .number, displayName: "Physical effort estimation",
                              allowedValues: [EnumerationCase("activityLookup", 1), EnumerationCase("deviceSensed", 2)]),
    ]

    static let weatherConditions: [EnumerationCase] = [
        "none", "clear", "fair", "partlyCloudy", "mostlyCloudy", "cloudy", "foggy", "haze", "windy",
        "blustery", "smoky", "dust", "snow", "hail", "sleet", "freezingDrizzle", "freezingRain",
        "mixedRainAndHail", "mixedRainAndSnow", "mixedRainAndSleet", "mixedSnowAndSleet", "drizzle",
        "scatteredShowers", "showers", "thunderstorms", "tropicalStorm", "hurricane", "tornado",
    ].enumerated().map { EnumerationCase($0.element, Int64($0.offset)) }

    // MARK: Validator

    /// Rules beyond the manifest: a stand-hour sample covers at most one hour.
    @Sendable static func validate(_ sample: SampleView) -> SampleRefusal? {
        switch sample.type {
        case "HKCategoryTypeIdentifierAppleStandHour" where sample.durationSeconds > 3600:
            return SampleRefusal(
                field: "endDate", value: "a sample lasting \(sample.durationSeconds) s",
                expected: "at most 3600 s (one hour) for a stand-hour sample")
        case "HKQuantityTypeIdentifierHeartRateRecoveryOneMinute":
            if case .number(let raw)? = sample.metadata["HKMetadataKeyHeartRateRecoveryActivityType"],
                raw < 1 || raw != raw.rounded() {
                return SampleRefusal(
                    field: "metadata.HKMetadataKeyHeartRateRecoveryActivityType", value: "\(raw)",
                    expected: "a workout activity type raw value: a positive integer such as 37 (running)")
            }
            return nil
        default:
            return nil
        }
    }
}
