import Testing

@testable import SalusRPC

@Suite("Receive window")
struct ReceiveWindowTests {
    /// Consumes `count` messages of `bytes`; returns each grant with the number consumed when it came.
    private func grants(_ window: inout ReceiveWindow, count: Int, bytes: Int) -> [(after: Int, credits: Int)] {
        var result: [(after: Int, credits: Int)] = []
        for index in 1...count {
            let credits = window.consume(bytes: bytes)
            if credits > 0 { result.append((index, credits)) }
        }
        return result
    }

    @Test("without a byte budget, every half window consumed is granted again")
    func fixed() {
        var window = ReceiveWindow(size: 64)
        let seen = grants(&window, count: 128, bytes: 70)
        #expect(seen.map(\.after) == [32, 64, 96, 128])
        #expect(seen.allSatisfy { $0.credits == 32 })
        var single = ReceiveWindow(size: 1)
        #expect(grants(&single, count: 3, bytes: 70).map(\.credits) == [1, 1, 1])
    }

    @Test("small messages widen the window to the byte budget, capped at the most credits")
    func widens() {
        var window = ReceiveWindow(size: 64, byteBudget: 1 << 20, maximumCredits: 1024)
        let seen = grants(&window, count: 1025, bytes: 70)
        // The first message brings it to 1,024 in flight; then every 512 consumed.
        #expect(seen.map(\.after) == [1, 513, 1025])
        #expect(seen.map(\.credits) == [961, 512, 512])
        #expect(window.target == 1024)
    }

    @Test("large messages keep the announced window; growing messages narrow a widened one")
    func large() {
        var pages = ReceiveWindow(size: 64, byteBudget: 1 << 20, maximumCredits: 1024)
        let seen = grants(&pages, count: 64, bytes: 60_000)
        #expect(seen.map(\.after) == [32, 64])
        #expect(seen.allSatisfy { $0.credits == 32 })

        var window = ReceiveWindow(size: 64, byteBudget: 1 << 20, maximumCredits: 1024)
        _ = grants(&window, count: 1, bytes: 100)
        #expect(window.target == 1024)
        // 16 KiB messages: the average climbs and the budget allows 64 of them.
        var granted = 0
        for _ in 0..<2_000 { granted += window.consume(bytes: 16 * 1024) }
        #expect(window.target == 64)
        // In flight now (1,024 after the first message, plus grants, less what was read): no
        // more than the narrowed target.
        let inFlight = 1024 + granted - 2_000
        #expect(inFlight > 0 && inFlight <= 64, "\(inFlight) in flight")
    }
}
