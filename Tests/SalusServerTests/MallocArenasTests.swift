import SalusServer
import Testing

@Suite("Malloc arenas")
struct MallocArenasTests {
    @Test("the daemon limits malloc to one arena, unless MALLOC_ARENA_MAX says otherwise")
    func limit() {
        #expect(MallocArenas.limit(environment: [:]) == 1)
        #expect(MallocArenas.limit(environment: ["MALLOC_ARENA_MAX": "4"]) == nil)
        #expect(MallocArenas.limit(environment: ["MALLOC_ARENA_MAX": ""]) == 1)
    }
}
