/// A state of mind's value, as HealthKit's `HKStateOfMind`: a momentary emotion or a daily mood,
/// its valence from -1 (very unpleasant) to 1 (very pleasant), labels and associations.
///
/// Raw values are HealthKit's. The valence classification is derived from the valence, never
/// stored or taken from a client.
public struct StateOfMind: Hashable, Sendable {
    /// The time frame the reflection concerns; raw values are HealthKit's `HKStateOfMindKind`.
    public enum Kind: Int, CaseIterable, Hashable, Sendable {
        /// How one feels right now (1).
        case momentaryEmotion = 1
        /// How one has felt today (2).
        case dailyMood = 2
    }

    /// A region of pleasantness; raw values are HealthKit's `HKStateOfMindValenceClassification`.
    public enum ValenceClassification: Int, CaseIterable, Hashable, Sendable {
        /// Very unpleasant (1).
        case veryUnpleasant = 1
        /// Unpleasant (2).
        case unpleasant = 2
        /// Slightly unpleasant (3).
        case slightlyUnpleasant = 3
        /// Neutral (4).
        case neutral = 4
        /// Slightly pleasant (5).
        case slightlyPleasant = 5
        /// Pleasant (6).
        case pleasant = 6
        /// Very pleasant (7).
        case veryPleasant = 7

        /// The classification of `valence`, nil outside -1...1 (as HealthKit's
        /// `HKStateOfMindValenceClassificationForValence`).
        ///
        /// Seven bands of equal width 2/7 over -1...1; a valence on a boundary belongs to the band
        /// nearer neutral, so neutral is [-1/7, 1/7]. UNCONFIRMED: Apple documents no thresholds;
        /// these follow HealthKit's implementation as read from its binary (band width 2/7).
        public init?(valence: Double) {
            guard valence.isFinite, (-1.0...1.0).contains(valence) else { return nil }
            let width = 2.0 / 7.0
            func boundary(_ index: Double) -> Double { -1 + index * width }
            if valence < boundary(1) {
                self = .veryUnpleasant
            } else if valence < boundary(2) {
                self = .unpleasant
            } else if valence < boundary(3) {
                self = .slightlyUnpleasant
            } else if valence <= boundary(4) {
                self = .neutral
            } else if valence <= boundary(5) {
                self = .slightlyPleasant
            } else if valence <= boundary(6) {
                self = .pleasant
            } else {
                self = .veryPleasant
            }
        }
    }

    /// A word for a felt experience; raw values are HealthKit's `HKStateOfMindLabel`.
    public enum Label: Int, CaseIterable, Hashable, Sendable {
        /// Amazed (1).
        case amazed = 1
        /// Amused (2).
        case amused = 2
        /// Angry (3).
        case angry = 3
        /// Anxious (4).
        case anxious = 4
        /// Ashamed (5).
        case ashamed = 5
        /// Brave (6).
        case brave = 6
        /// Calm (7).
        case calm = 7
        /// Content (8).
        case content = 8
        /// Disappointed (9).
        case disappointed = 9
        /// Discouraged (10).
        case discouraged = 10
        /// Disgusted (11).
        case disgusted = 11
        /// Embarrassed (12).
        case embarrassed = 12
        /// Excited (13).
        case excited = 13
        /// Frustrated (14).
        case frustrated = 14
        /// Grateful (15).
        case grateful = 15
        /// Guilty (16).
        case guilty = 16
        /// Happy (17).
        case happy = 17
        /// Hopeless (18).
        case hopeless = 18
        /// Irritated (19).
        case irritated = 19
        /// Jealous (20).
        case jealous = 20
        /// Joyful (21).
        case joyful = 21
        /// Lonely (22).
        case lonely = 22
        /// Passionate (23).
        case passionate = 23
        /// Peaceful (24).
        case peaceful = 24
        /// Proud (25).
        case proud = 25
        /// Relieved (26).
        case relieved = 26
        /// Sad (27).
        case sad = 27
        /// Scared (28).
        case scared = 28
        /// Stressed (29).
        case stressed = 29
        /// Surprised (30).
        case surprised = 30
        /// Worried (31).
        case worried = 31
        /// Annoyed (32).
        case annoyed = 32
        /// Confident (33).
        case confident = 33
        /// Drained (34).
        case drained = 34
        /// Hopeful (35).
        case hopeful = 35
        /// Indifferent (36).
        case indifferent = 36
        /// Overwhelmed (37).
        case overwhelmed = 37
        /// Satisfied (38).
        case satisfied = 38
    }

    /// A facet of life a felt experience is associated with; raw values are HealthKit's
    /// `HKStateOfMindAssociation`.
    public enum Association: Int, CaseIterable, Hashable, Sendable {
        /// Community (1).
        case community = 1
        /// Current events (2).
        case currentEvents = 2
        /// Dating (3).
        case dating = 3
        /// Education (4).
        case education = 4
        /// Family (5).
        case family = 5
        /// Fitness (6).
        case fitness = 6
        /// Friends (7).
        case friends = 7
        /// Health (8).
        case health = 8
        /// Hobbies (9).
        case hobbies = 9
        /// Identity (10).
        case identity = 10
        /// Money (11).
        case money = 11
        /// Partner (12).
        case partner = 12
        /// Self care (13).
        case selfCare = 13
        /// Spirituality (14).
        case spirituality = 14
        /// Tasks (15).
        case tasks = 15
        /// Travel (16).
        case travel = 16
        /// Work (17).
        case work = 17
        /// Weather (18).
        case weather = 18
    }

    /// Momentary emotion or daily mood.
    public var kind: Kind
    /// How pleasant, from -1 to 1.
    public var valence: Double
    /// The words chosen, in the person's order.
    public var labels: [Label]
    /// The facets of life chosen, in the person's order.
    public var associations: [Association]

    /// Creates a state of mind value.
    public init(kind: Kind, valence: Double, labels: [Label] = [], associations: [Association] = []) {
        self.kind = kind
        self.valence = valence
        self.labels = labels
        self.associations = associations
    }

    /// The region of pleasantness of `valence`; nil only when the valence is outside -1...1,
    /// which a saved sample never is.
    public var valenceClassification: ValenceClassification? { ValenceClassification(valence: valence) }
}
