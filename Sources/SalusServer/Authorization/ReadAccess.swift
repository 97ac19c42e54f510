import Foundation
import SalusModel
import SalusStore

/// What a caller may read of one type, decided at the moment of the call (or of each live
/// delivery).
package enum ReadAccess: Sendable, Hashable {
    /// Every sample (read granted, or the owner).
    case all
    /// The samples this app saved, plus these objects of a per-object type.
    case own(appID: String, objects: Set<UUID>)
    /// Nothing, not even the app's own samples.
    case nothing

    /// The predicate to AND with the caller's own; nil when everything is visible.
    var predicate: SamplePredicate? {
        switch self {
        case .all:
            return nil
        case .own(let appID, let objects):
            return objects.isEmpty ? .sources([appID]) : .or([.sources([appID]), .uuids(objects)])
        case .nothing:
            return SamplePredicate.none
        }
    }

    /// `predicate` AND-ed with the caller's predicate.
    func restrict(_ predicate: SamplePredicate?) -> SamplePredicate? {
        guard let restriction = self.predicate else { return predicate }
        guard let predicate else { return restriction }
        return .and([predicate, restriction])
    }

    /// Whether a sample may be delivered.
    func admits(_ sample: Sample) -> Bool {
        switch self {
        case .all: return true
        case .own(let appID, let objects): return sample.sourceRevision.appID == appID || objects.contains(sample.uuid)
        case .nothing: return false
        }
    }

    /// Whether a source may be listed.
    func admits(source appID: String) -> Bool {
        switch self {
        case .all: return true
        case .own(let own, _): return own == appID
        case .nothing: return false
        }
    }

    /// Whether deletions of the type may be delivered at all.
    var seesAnything: Bool { self != .nothing }
}
