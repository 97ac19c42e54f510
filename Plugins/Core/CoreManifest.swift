import SalusPluginKit

/// Core: activity, heart, energy, running, body measurements, characteristics, workouts and the
/// general metadata keys. Identifiers, raw values, units and aggregation styles are HealthKit's.
enum CoreManifest {
    static let manifest = PluginManifest(
        id: "org.salus.core", name: "Salus Core", version: "1.0.0",
        types: quantityTypes + categoryTypes + [workout] + correlationTypes + correlationMemberTypes,
        workoutActivityTypes: workoutActivityTypes,
        characteristicTypes: characteristicTypes,
        metadataKeys: metadataKeys
    )

    // MARK: Quantity types

    static let quantityTypes: [TypeDefinition] = [
        .quantity("HKQuantityTypeIdentifierStepCount", displayName: "Steps", unit: "count",
                  aggregation: .cumulative, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierDistanceWalkingRunning", displayName: "Walking + running distance",
                  unit: "m", aggregation: .cumulative, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierDistanceCycling", displayName: "Cycling distance", unit: "m",
                  aggregation: .cumulative, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierDistanceSwimming", displayName: "Swimming distance", unit: "m",
                  aggregation: .cumulative, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierSwimmingStrokeCount", displayName: "Swimming strokes", unit: "count",
                  aggregation: .cumulative, bounds: .nonNegative),
        heartRate,
        .quantity("HKQuantityTypeIdentifierRestingHeartRate", displayName: "Resting heart rate", unit: "count/min",
                  aggregation: .discreteArithmetic, bounds: heartRateBounds),
        .quantity("HKQuantityTypeIdentifierWalkingHeartRateAverage", displayName: "Walking heart rate average",
                  unit: "count/min", aggregation: .discreteArithmetic, bounds: heartRateBounds),
        .quantity("HKQuantityTypeIdentifierHeartRateVariabilitySDNN", displayName: "Heart rate variability (SDNN)",
                  unit: "ms", aggregation: .discreteArithmetic, bounds: .nonNegative),
        heartRateRecovery,
        .quantity("HKQuantityTypeIdentifierActiveEnergyBurned", displayName: "Active energy", unit: "kcal",
                  aggregation: .cumulative, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierBasalEnergyBurned", displayName: "Resting energy", unit: "kcal",
                  aggregation: .cumulative, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierAppleExerciseTime", displayName: "Exercise minutes", unit: "min",
                  aggregation: .cumulative, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierAppleStandTime", displayName: "Stand minutes", unit: "min",
                  aggregation: .cumulative, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierFlightsClimbed", displayName: "Flights climbed", unit: "count",
                  aggregation: .cumulative, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierRunningStrideLength", displayName: "Running stride length", unit: "m",
                  aggregation: .discreteArithmetic, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierRunningPower", displayName: "Running power", unit: "W",
                  aggregation: .discreteArithmetic, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierRunningSpeed", displayName: "Running speed", unit: "m/s",
                  aggregation: .discreteArithmetic, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierRunningVerticalOscillation", displayName: "Vertical oscillation",
                  unit: "cm", aggregation: .discreteArithmetic, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierRunningGroundContactTime", displayName: "Ground contact time",
                  unit: "ms", aggregation: .discreteArithmetic, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierDietaryWater", displayName: "Water", unit: "mL",
                  aggregation: .cumulative, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierUVExposure", displayName: "UV index", unit: "count",
                  aggregation: .discreteArithmetic, bounds: .nonNegative),
        .quantity("HKQuantityTypeIdentifierBodyTemperature", displayName: "Body temperature", unit: "degC",
                  aggregation: .discreteArithmetic, bounds: bodyTemperatureBounds),
        // A living body weighs something and less than a tonne (the heaviest recorded: 635 kg).
        .quantity("HKQuantityTypeIdentifierBodyMass", displayName: "Weight", unit: "kg",
                  aggregation: .discreteArithmetic, bounds: ValueBounds(min: 0, minInclusive: false, max: 1000)),
        // Taller than 3 m has never been measured (the tallest: 2.72 m).
        .quantity("HKQuantityTypeIdentifierHeight", displayName: "Height", unit: "m",
                  aggregation: .discreteArithmetic, bounds: ValueBounds(min: 0, minInclusive: false, max: 3)),
    ]

    /// Beats per minute above zero and below 600 (no heart has been recorded above ~480).
    static let heartRateBounds = ValueBounds(min: 0, minInclusive: false, max: 600, maxInclusive: false)

    /// Degrees Celsius above freezing and at most 50 (the highest survived: 46.5 °C).
    static let bodyTemperatureBounds = ValueBounds(min: 0, minInclusive: false, max: 50)

    static let heartRate: TypeDefinition = {
        // Canonical count/s, as HealthKit's; 600 beats per minute is 10 per second.
        var type = TypeDefinition.quantity(
            "HKQuantityTypeIdentifierHeartRate", displayName: "Heart rate", unit: "count/s",
            aggregation: .discreteTemporallyWeighted,
            bounds: ValueBounds(min: 0, minInclusive: false, max: 10, maxInclusive: false))
        type.optionalMetadataKeys = [MetadataKeyUse("HKMetadataKeyHeartRateMotionContext", .number)]
        return type
    }()

    static let heartRateRecovery: TypeDefinition = {
        // HealthKit: "always positive".
        var type = TypeDefinition.quantity(
            "HKQuantityTypeIdentifierHeartRateRecoveryOneMinute", displayName: "Cardio recovery",
            unit: "count/min", aggregation: .discreteArithmetic,
            bounds: ValueBounds(min: 0, minInclusive: false, max: 600, maxInclusive: false))
        type.optionalMetadataKeys = [
            MetadataKeyUse("HKMetadataKeyHeartRateRecoveryTestType", .number),
            MetadataKeyUse("HKMetadataKeyHeartRateRecoveryActivityType", .number),
            MetadataKeyUse("HKMetadataKeyHeartRateRecoveryActivityDuration", .quantity),
            MetadataKeyUse("HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate", .quantity),
        ]
        return type
    }()

    // MARK: Category, workout, characteristic types

    static let categoryTypes: [TypeDefinition] = [
        .category("HKCategoryTypeIdentifierAppleStandHour", displayName: "Stand hours",
                  cases: [EnumerationCase("stood", 0), EnumerationCase("idle", 1)]),
    ]

    static let workout: TypeDefinition = {
        var type = TypeDefinition(identifier: "HKWorkoutTypeIdentifier", kind: .workout, displayName: "Workouts")
        type.optionalMetadataKeys = [
            MetadataKeyUse("HKIndoorWorkout", .bool),
            MetadataKeyUse("HKLapLength", .quantity),
            MetadataKeyUse("HKSwimmingLocationType", .number),
            MetadataKeyUse("HKSWOLFScore", .number),
            MetadataKeyUse("HKWeatherTemperature", .quantity),
            MetadataKeyUse("HKWeatherHumidity", .quantity),
            MetadataKeyUse("HKWeatherCondition", .number),
            MetadataKeyUse("HKElevationAscended", .quantity),
            MetadataKeyUse("HKElevationDescended", .quantity),
            MetadataKeyUse("HKAverageMETs", .quantity),
        ]
        return type
    }()

    static let characteristicTypes: [TypeDefinition] = [
        .characteristic("HKCharacteristicTypeIdentifierBiologicalSex", displayName: "Sex", cases: [
            EnumerationCase("notSet", 0), EnumerationCase("female", 1), EnumerationCase("male", 2),
            EnumerationCase("other", 3),
        ]),
        .characteristic("HKCharacteristicTypeIdentifierBloodType", displayName: "Blood type", cases: [
            EnumerationCase("notSet", 0), EnumerationCase("aPositive", 1), EnumerationCase("aNegative", 2),
            EnumerationCase("bPositive", 3), EnumerationCase("bNegative", 4), EnumerationCase("abPositive", 5),
            EnumerationCase("abNegative", 6), EnumerationCase("oPositive", 7), EnumerationCase("oNegative", 8),
        ]),
        .dateCharacteristic("HKCharacteristicTypeIdentifierDateOfBirth", displayName: "Date of birth"),
        .characteristic("HKCharacteristicTypeIdentifierFitzpatrickSkinType", displayName: "Skin type", cases: [
            EnumerationCase("notSet", 0), EnumerationCase("I", 1), EnumerationCase("II", 2),
            EnumerationCase("III", 3), EnumerationCase("IV", 4), EnumerationCase("V", 5), EnumerationCase("VI", 6),
        ]),
        .characteristic("HKCharacteristicTypeIdentifierActivityMoveMode", displayName: "Move mode", cases: [
            EnumerationCase("activeEnergy", 1), EnumerationCase("appleMoveTime", 2),
        ]),
    ]

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
