/// A scored questionnaire's value, as HealthKit's `HKGAD7Assessment` and `HKPHQ9Assessment`
/// (subclasses of `HKScoredAssessment`): one answer per question, with the total score and the
/// risk band derived from them, never stored or taken from a client.
///
/// GAD-7 has 7 questions and PHQ-9 has 9, each answered 0 (not at all) to 3 (nearly every day);
/// PHQ-9's ninth question alone may be answered "prefer not to answer" (4), which scores 0.
public struct ScoredAssessment: Hashable, Sendable {
    /// Which questionnaire; it decides the question count, the risk bands and the type
    /// identifier.
    public enum Instrument: String, CaseIterable, Hashable, Sendable {
        /// The Generalized Anxiety Disorder 7-item scale.
        case gad7
        /// The Patient Health Questionnaire, 9 items.
        case phq9

        /// How many answers an assessment holds.
        public var questionCount: Int { self == .gad7 ? 7 : 9 }

        /// HealthKit's type identifier of the instrument's assessments.
        public var typeIdentifier: TypeIdentifier {
            self == .gad7 ? "HKScoredAssessmentTypeIdentifierGAD7" : "HKScoredAssessmentTypeIdentifierPHQ9"
        }

        /// The instrument whose assessments `type` names, if it is one of HealthKit's two.
        public init?(typeIdentifier type: TypeIdentifier) {
            guard let instrument = Self.allCases.first(where: { $0.typeIdentifier == type }) else { return nil }
            self = instrument
        }
    }

    /// An answer; raw values are HealthKit's `HKGAD7AssessmentAnswer` and
    /// `HKPHQ9AssessmentAnswer`, which agree.
    public enum Answer: Int, CaseIterable, Hashable, Sendable {
        /// Not at all (0).
        case notAtAll = 0
        /// Several days (1).
        case severalDays = 1
        /// More than half the days (2).
        case moreThanHalfTheDays = 2
        /// Nearly every day (3).
        case nearlyEveryDay = 3
        /// PHQ-9's ninth question unanswered (4); it scores 0. UNCONFIRMED: that HealthKit scores
        /// it 0 is inferred (it is not an answer on the scale), not documented.
        case preferNotToAnswer = 4

        /// The points the answer adds to the score.
        public var points: Int { self == .preferNotToAnswer ? 0 : rawValue }
    }

    /// The risk band of a score. The raw value on the wire is the instrument's own enumeration,
    /// see ``rawValue(for:)``.
    public enum Risk: String, CaseIterable, Hashable, Sendable {
        /// GAD-7 and PHQ-9 0–4.
        case noneToMinimal
        /// GAD-7 and PHQ-9 5–9.
        case mild
        /// GAD-7 and PHQ-9 10–14.
        case moderate
        /// PHQ-9 only, 15–19.
        case moderatelySevere
        /// GAD-7 15–21, PHQ-9 20–27.
        case severe

        /// HealthKit's raw value: `HKGAD7AssessmentRisk` (noneToMinimal 1, mild 2, moderate 3,
        /// severe 4) or `HKPHQ9AssessmentRisk` (noneToMinimal 1, mild 2, moderate 3,
        /// moderatelySevere 4, severe 5); nil for moderatelySevere on GAD-7, which has no such
        /// band.
        public func rawValue(for instrument: Instrument) -> Int? {
            switch (self, instrument) {
            case (.noneToMinimal, _): 1
            case (.mild, _): 2
            case (.moderate, _): 3
            case (.moderatelySevere, .phq9): 4
            case (.moderatelySevere, .gad7): nil
            case (.severe, .gad7): 4
            case (.severe, .phq9): 5
            }
        }

        /// The band of `score` on `instrument`: the instruments' published cut points (5, 10,
        /// 15, and for PHQ-9 20). UNCONFIRMED: HealthKit's own `HKMinimumScoreFor…AssessmentRisk`
        /// functions are not available to apps, so that HealthKit uses exactly these is not
        /// documented.
        public init(score: Int, instrument: Instrument) {
            switch score {
            case ..<5: self = .noneToMinimal
            case ..<10: self = .mild
            case ..<15: self = .moderate
            case ..<20 where instrument == .phq9: self = .moderatelySevere
            default: self = .severe
            }
        }
    }

    /// The questionnaire.
    public var instrument: Instrument
    /// One answer per question, in question order.
    public var answers: [Answer]

    /// Creates an assessment value.
    public init(instrument: Instrument, answers: [Answer]) {
        self.instrument = instrument
        self.answers = answers
    }

    /// The total score: the sum of the answers' points (GAD-7 0–21, PHQ-9 0–27).
    public var score: Int { answers.reduce(0) { $0 + $1.points } }

    /// The risk band of the score.
    public var risk: Risk { Risk(score: score, instrument: instrument) }
}
