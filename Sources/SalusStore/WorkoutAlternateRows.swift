import Foundation
import SalusModel

extension StoreWriter {
    /// The row ids of the alternates of the workout of row `id` (samples of `WorkoutAlternate.type`
    /// whose `WorkoutAlternate.alternateOf` names its UUID), oldest first; none when the row is
    /// gone or the type was never saved.
    ///
    /// An alternate shares time with its workout (at least 80% of the shorter one's, by the
    /// import's rule), so only alternates whose interval meets the workout's are read, through
    /// the (type, start) index; their metadata is decoded on those rows alone.
    func alternateRows(_ database: Database, ofWorkout id: Int64) throws -> [Int64] {
        guard
            let typeID = try database.scalarInt("SELECT id FROM types WHERE identifier = ?", [.text(WorkoutAlternate.type.rawValue)])
        else { return [] }
        let workout = try database.prepare("SELECT uuid, start_us, end_us FROM samples WHERE id = ?")
        try workout.bind([.integer(id)])
        let found = try workout.step() ? (workout.uuid(0), workout.int64(1), workout.int64(2)) : nil
        workout.reset()
        guard let (uuid, start, end) = found, let uuid else { return [] }
        let alternates = try database.prepare(
            "SELECT id FROM samples WHERE type_id = ? AND start_us <= ? AND end_us >= ? "
                + "AND salus_metadata_value(metadata, ?) = ? ORDER BY id")
        try alternates.bind([.integer(typeID), .integer(end), .integer(start), .text(WorkoutAlternate.alternateOf), .text(uuid.uuidString)])
        var rows: [Int64] = []
        while try alternates.step() { rows.append(alternates.int64(0)) }
        alternates.reset()
        return rows
    }
}
