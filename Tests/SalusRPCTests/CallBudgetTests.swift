import Testing

@testable import SalusRPC

/// What a call holds against its app's buffered-bytes cap is released once, when its handler
/// returns; something the call started that counts after that (a page read ahead finishing
/// late) must not be counted again, or the app's cap shrinks for good.
@Suite("A call's budget")
struct CallBudgetTests {
    static func ledger() -> ResourceLedger {
        ResourceLedger(limits: .init(
            maxConnections: 8, maxConnectionsPerApp: 8, maxCallsPerApp: 8, maxBufferedBytesPerApp: 1_000, maxOwnerConnections: 8))
    }

    @Test("a reservation after the handler returned is refused and counts nothing; releases before it free what was held, once")
    func closedAfterTheHandler() throws {
        let ledger = Self.ledger()
        let tenant = Tenant.app("org.example.late")
        let budget = CallBudget(ledger: ledger, tenant: tenant)
        try budget.reserve(300, what: "a page")
        budget.release(100)
        #expect(ledger.usage(of: tenant).bufferedBytes == 200)
        budget.releaseAll()
        #expect(ledger.usage(of: tenant).bufferedBytes == 0)
        #expect(throws: RPCError.self) { try budget.reserve(400, what: "a page read ahead, finished late") }
        #expect(ledger.usage(of: tenant).bufferedBytes == 0, "nothing stays counted for a call that has ended")
        budget.release(400)
        budget.releaseAll()
        #expect(ledger.usage(of: tenant).bufferedBytes == 0)
        // Another call of the app has the whole cap.
        let next = CallBudget(ledger: ledger, tenant: tenant)
        try next.reserve(1_000, what: "a page")
        #expect(ledger.usage(of: tenant).bufferedBytes == 1_000)
        next.releaseAll()
    }
}
