import Foundation
import SalusModel

/// The bounds an import holds a file to, so that memory and time grow with what an export
/// really holds and never with what a hostile file claims. Each one refused is a problem naming
/// the file (or export.xml's line), the size met and the limit.
///
/// The daemon and salusctl use ``standard``; tests pass small values instead of writing
/// gigabytes.
package struct ImportLimits: Sendable, Equatable {
    /// How deep elements may nest below the root `HealthData`. Apple's deepest is 3 (a
    /// `Workout`'s `WorkoutActivity`'s `WorkoutStatistics`); 100,000 nested elements would
    /// otherwise be held, and released, as a chain of 100,000 values.
    package var maximumDepth = 32
    /// The longest attribute value, in bytes. Apple's longest are device descriptions and
    /// metadata values, a few hundred bytes.
    package var maximumAttributeBytes = 1 << 20
    /// The most bytes the XML parser may hold before the markup it is reading ends (a tag with
    /// its attributes, a comment, a processing instruction). Checked after every chunk, so an
    /// endless attribute is refused as it streams in, not once it is whole.
    package var maximumMarkupBytes = 4 << 20
    /// The largest side file (`workout-routes/*.gpx`, `electrocardiograms/*.csv`,
    /// `clinical-records/*.json`), in bytes: a GPX of a day at one location a second is ~20 MB.
    package var maximumSideFileBytes = 64 << 20
    /// The most track points one GPX or TCX file may hold: two days at one point a second. A
    /// 64 MiB file of bare points would otherwise hold about 1.5 million, each kept with its
    /// samples until the file is saved.
    package var maximumActivityPoints = 172_800
    /// The most voltages one electrocardiogram file may hold: the model's own bound (an Apple
    /// Watch recording has 15,360).
    package var maximumElectrocardiogramVoltages = Electrocardiogram.maximumVoltageCount

    /// The limits of the daemon and salusctl.
    package static let standard = ImportLimits()

    /// The standard limits.
    package init() {}
}
