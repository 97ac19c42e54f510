import Foundation
import SalusModel
import Testing

@testable import SalusStore

/// The object-kind codes rows are stored with: every kind's code reads back as that kind, and
/// the codes of the kinds stored so far are those already in users' databases.
@Suite("Stored kind codes")
struct StoredCodesTests {
    /// Every code ever written, as the released schemas wrote it. Never edit a line of this
    /// table: a changed code makes every row stored with the old one read as another kind, or
    /// as a damaged database. A new kind adds its line.
    static let released: [ObjectKind: Int64] = [
        .quantity: 0, .category: 1, .workout: 2, .visionPrescription: 3, .document: 4, .characteristic: 5,
        .correlation: 7, .electrocardiogram: 8, .audiogram: 9, .heartbeatSeries: 10, .stateOfMind: 11,
        .medicationDoseEvent: 12, .scoredAssessment: 13, .activitySummary: 14, .clinicalRecord: 15,
        .workoutRoute: 16, .userAnnotatedMedication: 17,
    ]

    @Test("every kind's code reads back as that kind, and no two kinds share one")
    func roundTrip() {
        for kind in ObjectKind.allCases {
            #expect(StoredCodes.kind(code: StoredCodes.kind(kind)) == kind, "\(kind)")
        }
        let codes = ObjectKind.allCases.map(StoredCodes.kind)
        #expect(Set(codes).count == codes.count, "\(codes)")
    }

    @Test("the codes of the kinds stored so far are unchanged; a kind after them takes its wire number")
    func releasedCodesUnchanged() {
        for (kind, code) in Self.released {
            #expect(StoredCodes.kind(kind) == code, "\(kind)")
            #expect(StoredCodes.kind(code: code) == kind, "\(code)")
        }
        for kind in ObjectKind.allCases where Self.released[kind] == nil {
            #expect(StoredCodes.kind(kind) == Int64(kind.wireNumber), "\(kind): a kind newer than this table")
        }
    }

    @Test("a code no kind has (6, negative, past the last kind, huge) reads as none, for the reader to call the row damaged")
    func unknownCodes() {
        let last = ObjectKind.allCases.map { Int64($0.wireNumber) }.max()!
        for code: Int64 in [6, -1, last + 1, Int64(Int32.max), Int64(Int32.max) + 1, .max, .min] {
            #expect(StoredCodes.kind(code: code) == nil, "\(code)")
        }
    }
}
