import SalusServer
import Testing

@Suite("Malloc arenas")
struct MallocArenasTests {
    @Test("the daemon limits malloc to two arenas, unless MALLOC_ARENA_MAX says otherwise")
    func limit() {
        #expect(MallocArenas.limit(environment: [:]) == 2)
        #expect(MallocArenas.limit(environment: ["MALLOC_ARENA_MAX": "4"]) == nil)
        #expect(MallocArenas.limit(environment: ["MALLOC_ARENA_MAX": ""]) == 2)
    }
}
