import Testing

@testable import SalusPluginHost

@Suite("Reverse-DNS and media-type names")
struct NamingTests {
    @Test(arguments: ["org.example", "org.example.migraine.severity", "com.acme-labs.x_1", "io.x.Y"])
    func acceptsReverseDNS(_ name: String) {
        #expect(Naming.isReverseDNS(name))
    }

    @Test(arguments: ["", "migraine", "Org.example", ".org.example", "org..example", "org.example.", "org.ex ample", "HKQuantityTypeIdentifierStepCount", "1org.example"])
    func refusesOthers(_ name: String) {
        #expect(!Naming.isReverseDNS(name))
    }

    @Test func areas() {
        for area in ["vitals", "lab", "state-of-mind", "area51"] { #expect(Naming.isArea(area), "\(area)") }
        for area in ["", "Vitals", "1lab", "-x", "body fat", "vitals.heart", "état"] { #expect(!Naming.isArea(area), "\(area)") }
    }

    @Test func mediaTypes() {
        #expect(Naming.isMediaType("image/jpeg"))
        #expect(Naming.isMediaType("application/pdf"))
        #expect(!Naming.isMediaType("jpeg"))
        #expect(!Naming.isMediaType("image/"))
        #expect(!Naming.isMediaType("image/jpeg/x"))
    }
}
