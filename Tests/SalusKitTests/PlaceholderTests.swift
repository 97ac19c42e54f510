import Testing
@testable import SalusKit

@Test func salusKitLinks() {
    #expect(SalusEndpoint.appSocketPath.isEmpty == false)
}
