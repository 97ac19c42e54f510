/// A workout recorded again by another source: the same run from a second device or service
/// (a watch's FIT file, the GPX Strava made of it, the copy Apple Health synced), which an
/// import does not save as a second workout (docs/import.md, "The same workout from several
/// sources"). It is kept as a sample of its own type, `type`, beside the workout that stays:
/// the same value (activity type, activities, events, totals) under its own source and device,
/// with `alternateOf` naming the kept workout's UUID. Queries of workouts never return it, so
/// an app sees the run once; `salusctl workouts` shows it with the kept one.
package enum WorkoutAlternate {
    /// The type of alternates, registered by the Core plugin (read-only for apps: only an import
    /// makes them).
    package static let type: TypeIdentifier = "org.salus.core.workoutAlternate"
    /// String metadata, required on every alternate: the UUID of the workout it is an alternate of.
    package static let alternateOf = "org.salus.core.alternateOf"
}
