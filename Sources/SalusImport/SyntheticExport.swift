import Foundation

/// Writes a synthetic Apple Health export.xml with a realistic mix, for benchmarks and for tests
/// that need a large file: per minute of a person's days, steps and heart rate from a watch and a
/// phone (overlapping, as real exports are), heart-rate variability with its beat list, sleep
/// stages at night, active energy, an evening run a day with its route, and now and then a blood
/// pressure correlation whose members also appear at top level. Deterministic: the same count gives the same file.
package enum SyntheticExport {
    /// Writes a document with about `records` top-level records to `write`, in pieces.
    package static func write(records: Int, start: Date = Date(timeIntervalSince1970: 1_700_000_000), to write: (String) throws -> Void) rethrows {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Europe/Paris")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss Z"
        try write("""
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE HealthData [
            <!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary)*)
            ]>
            <HealthData locale="en_GB">
             <ExportDate value="\(formatter.string(from: start))"/>
             <Me HKCharacteristicTypeIdentifierDateOfBirth="1984-02-29" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale" HKCharacteristicTypeIdentifierBloodType="HKBloodTypeONegative" HKCharacteristicTypeIdentifierFitzpatrickSkinType="HKFitzpatrickSkinTypeIII"/>

            """)
        let watch = "sourceName=\"Anna’s Apple\u{00A0}Watch\" sourceVersion=\"10.2\" device=\"&lt;&lt;HKDevice: 0x3012772a0&gt;, name:Apple Watch, manufacturer:Apple Inc., model:Watch, hardware:Watch6,7, software:10.2&gt;\""
        let phone = "sourceName=\"Anna’s iPhone\" sourceVersion=\"17.1\""
        var written = 0
        var minute = 0
        var piece = ""
        piece.reserveCapacity(1 << 16)
        while written < records {
            let at = start.addingTimeInterval(Double(minute) * 60)
            let end = at.addingTimeInterval(60)
            let from = formatter.string(from: at), to = formatter.string(from: end)
            let hour = Calendar.current.component(.hour, from: at)
            let steps = (minute * 7919) % 120
            piece += " <Record type=\"HKQuantityTypeIdentifierStepCount\" \(watch) unit=\"count\" creationDate=\"\(to)\" startDate=\"\(from)\" endDate=\"\(to)\" value=\"\(steps)\"/>\n"
            piece += " <Record type=\"HKQuantityTypeIdentifierStepCount\" \(phone) unit=\"count\" creationDate=\"\(to)\" startDate=\"\(from)\" endDate=\"\(to)\" value=\"\(steps + 3)\"/>\n"
            piece += " <Record type=\"HKQuantityTypeIdentifierHeartRate\" \(watch) unit=\"count/min\" creationDate=\"\(to)\" startDate=\"\(from)\" endDate=\"\(from)\" value=\"\(55 + (minute * 31) % 60)\">\n  <MetadataEntry key=\"HKMetadataKeyHeartRateMotionContext\" value=\"\(minute % 3)\"/>\n </Record>\n"
            piece += " <Record type=\"HKQuantityTypeIdentifierActiveEnergyBurned\" \(watch) unit=\"Cal\" creationDate=\"\(to)\" startDate=\"\(from)\" endDate=\"\(to)\" value=\"\(Double(steps) / 20)\"/>\n"
            written += 4
            if minute % 60 == 0 {
                piece += " <Record type=\"HKQuantityTypeIdentifierHeartRateVariabilitySDNN\" \(watch) unit=\"ms\" creationDate=\"\(to)\" startDate=\"\(from)\" endDate=\"\(to)\" value=\"\(30 + minute % 40)\">\n  <HeartRateVariabilityMetadataList>\n"
                for beat in 0..<5 {
                    piece += "   <InstantaneousBeatsPerMinute bpm=\"\(60 + beat)\" time=\"\(beat % 2 == 0 ? "7:47:41.86 PM" : "00:20:37,80")\"/>\n"
                }
                piece += "  </HeartRateVariabilityMetadataList>\n </Record>\n"
                written += 1
            }
            if hour < 6, minute % 30 == 0 {
                let stage = ["HKCategoryValueSleepAnalysisAsleepCore", "HKCategoryValueSleepAnalysisAsleepDeep", "HKCategoryValueSleepAnalysisAsleepREM"][minute / 30 % 3]
                piece += " <Record type=\"HKCategoryTypeIdentifierSleepAnalysis\" \(watch) creationDate=\"\(to)\" startDate=\"\(from)\" endDate=\"\(formatter.string(from: at.addingTimeInterval(1800)))\" value=\"\(stage)\">\n  <MetadataEntry key=\"HKTimeZone\" value=\"Europe/Paris\"/>\n </Record>\n"
                written += 1
            }
            if minute % 1440 == 480 {
                let systolic = " <Record type=\"HKQuantityTypeIdentifierBloodPressureSystolic\" \(phone) unit=\"mmHg\" startDate=\"\(from)\" endDate=\"\(from)\" value=\"\(115 + minute % 10)\"/>\n"
                let diastolic = " <Record type=\"HKQuantityTypeIdentifierBloodPressureDiastolic\" \(phone) unit=\"mmHg\" startDate=\"\(from)\" endDate=\"\(from)\" value=\"\(75 + minute % 7)\"/>\n"
                piece += systolic + diastolic
                piece += " <Correlation type=\"HKCorrelationTypeIdentifierBloodPressure\" \(phone) startDate=\"\(from)\" endDate=\"\(from)\">\n" + systolic + diastolic + " </Correlation>\n"
                written += 3
            }
            if minute % 1440 == 1080 {
                // An evening run: 30 minutes with a pause, its totals only in WorkoutStatistics
                // (as since iOS 16), and its route inline, one location a minute.
                let runEnd = formatter.string(from: at.addingTimeInterval(1800))
                piece += " <Workout workoutActivityType=\"HKWorkoutActivityTypeRunning\" duration=\"30\" durationUnit=\"min\" \(watch) creationDate=\"\(runEnd)\" startDate=\"\(from)\" endDate=\"\(runEnd)\">\n"
                piece += "  <MetadataEntry key=\"HKIndoorWorkout\" value=\"0\"/>\n"
                piece += "  <WorkoutEvent type=\"HKWorkoutEventTypePause\" date=\"\(formatter.string(from: at.addingTimeInterval(900)))\"/>\n"
                piece += "  <WorkoutEvent type=\"HKWorkoutEventTypeResume\" date=\"\(formatter.string(from: at.addingTimeInterval(960)))\"/>\n"
                piece += "  <WorkoutStatistics type=\"HKQuantityTypeIdentifierDistanceWalkingRunning\" startDate=\"\(from)\" endDate=\"\(runEnd)\" sum=\"5.1\" unit=\"km\"/>\n"
                piece += "  <WorkoutStatistics type=\"HKQuantityTypeIdentifierActiveEnergyBurned\" startDate=\"\(from)\" endDate=\"\(runEnd)\" sum=\"310\" unit=\"Cal\"/>\n"
                piece += "  <WorkoutRoute \(watch) startDate=\"\(from)\" endDate=\"\(runEnd)\">\n"
                for point in 0..<30 {
                    let when = formatter.string(from: at.addingTimeInterval(Double(point) * 60))
                    piece += "   <Location date=\"\(when)\" latitude=\"\(48.85 + Double(point) * 0.0015)\" longitude=\"2.35\" altitude=\"35\" horizontalAccuracy=\"3\" verticalAccuracy=\"2\" course=\"0\" speed=\"2.8\"/>\n"
                }
                piece += "  </WorkoutRoute>\n </Workout>\n"
                written += 1
            }
            minute += 1
            if piece.utf8.count > 60_000 {
                try write(piece)
                piece = ""
            }
        }
        try write(piece + "</HealthData>\n")
    }
}
