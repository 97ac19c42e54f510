/// HealthKit's well-known metadata keys, as the raw strings that appear in stored data and in
/// Apple Health exports (`MetadataEntry key=`).
///
/// The constant names drop HealthKit's `HKMetadataKey` prefix; the values are the strings
/// themselves, which for historical reasons sometimes keep that prefix and sometimes do not
/// (`HKMetadataKeySyncIdentifier` but `HKTimeZone`). Keys beginning with `HK` are HealthKit's
/// namespace; apps may add their own keys.
public enum MetadataKey {
    // MARK: Sync and identity

    /// String: the client's identifier for a record; with `syncVersion`, a save with a greater
    /// version replaces the sample that has the same identifier (per source and type).
    public static let syncIdentifier = "HKMetadataKeySyncIdentifier"
    /// Number: the version that goes with `syncIdentifier`; each requires the other.
    public static let syncVersion = "HKMetadataKeySyncVersion"
    /// String: an identifier from another system; uniqueness is not enforced.
    public static let externalUUID = "HKExternalUUID"
    /// String: the IANA time zone the sample was recorded in ("America/Los_Angeles").
    public static let timeZone = "HKTimeZone"
    /// Bool: the person typed the value in rather than a device measuring it.
    public static let wasUserEntered = "HKWasUserEntered"
    /// String: a base64 CMS (RFC 5652) signature over the sample.
    public static let digitalSignature = "HKDigitalSignature"

    // MARK: Device (HealthKit prefers the sample's device over these)

    /// String: the device name.
    public static let deviceName = "HKDeviceName"
    /// String: the device maker.
    public static let deviceManufacturerName = "HKDeviceManufacturerName"
    /// String: the device serial number.
    public static let deviceSerialNumber = "HKDeviceSerialNumber"
    /// String: the UDI device identifier.
    public static let udiDeviceIdentifier = "HKUDIDeviceIdentifier"
    /// String: the UDI production identifier.
    public static let udiProductionIdentifier = "HKUDIProductionIdentifier"
    /// Bool, read-only for apps: the Apple device was calibrated when it measured.
    public static let appleDeviceCalibrated = "HKMetadataKeyAppleDeviceCalibrated"
    /// Number (left 1, right 2, central 3): where the device was worn.
    public static let devicePlacementSide = "HKMetadataKeyDevicePlacementSide"

    // MARK: Reproductive health

    /// Bool, required on menstrual flow samples: this sample starts a cycle.
    public static let menstrualCycleStart = "HKMenstrualCycleStart"
    /// Bool: protection was used during sexual activity.
    public static let sexualActivityProtectionUsed = "HKSexualActivityProtectionUsed"

    // MARK: Clinical

    /// Number (basal 1, bolus 2), required on insulin delivery samples.
    public static let insulinDeliveryReason = "HKInsulinDeliveryReason"
    /// Number (preprandial 1, postprandial 2).
    public static let bloodGlucoseMealTime = "HKBloodGlucoseMealTime"
    /// Number: where a body temperature was taken (armpit 1 … forehead 11).
    public static let bodyTemperatureSensorLocation = "HKBodyTemperatureSensorLocation"
    /// Number: where a heart rate was taken (chest 1 … foot 6).
    public static let heartRateSensorLocation = "HKHeartRateSensorLocation"
    /// Number (notSet 0, sedentary 1, active 2).
    public static let heartRateMotionContext = "HKMetadataKeyHeartRateMotionContext"
    /// Number (notSet 0, stationary 1, active 2).
    public static let userMotionContext = "HKMetadataKeyUserMotionContext"
    /// Quantity: the per-session estimate before smoothing.
    public static let sessionEstimate = "HKMetadataKeySessionEstimate"
    /// Quantity (count/min): the threshold that raised a heart-rate event.
    public static let heartRateEventThreshold = "HKHeartRateEventThreshold"
    /// Number (HKHeartRateRecoveryTestType).
    public static let heartRateRecoveryTestType = "HKMetadataKeyHeartRateRecoveryTestType"
    /// Number (HKWorkoutActivityType): the activity before a heart-rate recovery.
    public static let heartRateRecoveryActivityType = "HKMetadataKeyHeartRateRecoveryActivityType"
    /// Quantity (time): how long the activity before a heart-rate recovery lasted.
    public static let heartRateRecoveryActivityDuration = "HKMetadataKeyHeartRateRecoveryActivityDuration"
    /// Quantity (count/min): the highest heart rate seen before recovery.
    public static let heartRateRecoveryMaxObservedRecoveryHeartRate =
        "HKMetadataKeyHeartRateRecoveryMaxObservedRecoveryHeartRate"
    /// Number (HKVO2MaxTestType).
    public static let vo2MaxTestType = "HKVO2MaxTestType"
    /// Quantity: a VO2 max value.
    public static let vo2MaxValue = "HKVO2MaxValue"
    /// Number: the version of the algorithm that produced the value.
    public static let algorithmVersion = "HKAlgorithmVersion"
    /// Number (version1 1, version2 2): the ECG algorithm version.
    public static let appleECGAlgorithmVersion = "HKMetadataKeyAppleECGAlgorithmVersion"
    /// Date: the earliest data an estimate used.
    public static let dateOfEarliestDataUsedForEstimate = "HKDateOfEarliestDataUsedForEstimate"
    /// String: what the glasses are for ("reading", "distance").
    public static let glassesPrescriptionDescription = "HKMetadataKeyGlassesPrescriptionDescription"

    // MARK: Workouts

    /// Bool: the workout took place indoors.
    public static let indoorWorkout = "HKIndoorWorkout"
    /// Bool: a group fitness class.
    public static let groupFitness = "HKGroupFitness"
    /// Bool: a coached workout.
    public static let coachedWorkout = "HKCoachedWorkout"
    /// String: the brand of the workout (a class or programme name).
    public static let workoutBrandName = "HKWorkoutBrandName"
    /// Quantity (length): the pool length, on a swimming workout.
    public static let lapLength = "HKLapLength"
    /// Number (unknown 0, pool 1, openWater 2), on a swimming workout.
    public static let swimmingLocationType = "HKSwimmingLocationType"
    /// Number (HKSwimmingStrokeStyle), on a lap event.
    public static let swimmingStrokeStyle = "HKSwimmingStrokeStyle"
    /// Number: strokes plus seconds per length, per lap or segment, or for the whole workout.
    public static let swolfScore = "HKSWOLFScore"
    /// Quantity (kcal/(kg*hr)): average metabolic equivalents.
    public static let averageMETs = "HKAverageMETs"
    /// Quantity (temperature).
    public static let weatherTemperature = "HKWeatherTemperature"
    /// Quantity (%).
    public static let weatherHumidity = "HKWeatherHumidity"
    /// Number (HKWeatherCondition, none 0 … tornado 27).
    public static let weatherCondition = "HKWeatherCondition"
    /// Quantity (length).
    public static let elevationAscended = "HKElevationAscended"
    /// Quantity (length).
    public static let elevationDescended = "HKElevationDescended"
    /// Quantity (length/time).
    public static let averageSpeed = "HKAverageSpeed"
    /// Quantity (length/time).
    public static let maximumSpeed = "HKMaximumSpeed"
    /// Quantity (%): 100 % is a 45° slope.
    public static let alpineSlopeGrade = "HKAlpineSlopeGrade"
    /// Number (freshWater 1, saltWater 2).
    public static let waterSalinity = "HKMetadataKeyWaterSalinity"
    /// Number (HKWorkoutActivityType).
    public static let activityType = "HKActivityType"
    /// Number (activityLookup 1, deviceSensed 2).
    public static let physicalEffortEstimationType = "HKPhysicalEffortEstimationType"

    /// The keys a deleted object keeps: `syncIdentifier` and `syncVersion`.
    public static let keptOnDeletion: Set<String> = [syncIdentifier, syncVersion]
}
