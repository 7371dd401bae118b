@testable import arculus_card
import Testing

/// serve's `--ui [127.0.0.1:PORT]`: a flag with an optional address, loopback only.
@Suite("serve's card page option")
struct ServeOptionsUITests {
    @Test("--ui alone, with an address after it or after '=', and beside other options")
    func addresses() throws {
        #expect(try ServeOptions([]).page == nil)
        #expect(try ServeOptions(["--ui"]).page == .init(port: 0))
        #expect(try ServeOptions(["--ui", "127.0.0.1:8080"]).page == .init(port: 8080))
        #expect(try ServeOptions(["--ui=:9000"]).page == .init(port: 9000))
        #expect(try ServeOptions(["--ui", "9001", "--verbose"]).page == .init(port: 9001))
        let beside = try ServeOptions(["--ui", "--cards", "2"])
        #expect(beside.page == .init(port: 0))
        #expect(beside.cards.count == 2)
    }

    @Test("an address off loopback, a bad port, a second --ui and a stray word are refused")
    func refusals() {
        #expect(throws: UsageError("--ui listens on loopback only: give 127.0.0.1:PORT, not '0.0.0.0:80'")) {
            try ServeOptions(["--ui", "0.0.0.0:80"])
        }
        #expect(throws: UsageError("--ui listens on loopback only: give 127.0.0.1:PORT, not 'localhost:80'")) {
            try ServeOptions(["--ui=localhost:80"])
        }
        #expect(throws: UsageError("--ui wants a port from 0 to 65535 in '127.0.0.1:70000'")) {
            try ServeOptions(["--ui", "127.0.0.1:70000"])
        }
        #expect(throws: UsageError("--ui is given twice")) { try ServeOptions(["--ui", "--ui"]) }
        #expect(throws: UsageError("unexpected argument 'stray'")) { try ServeOptions(["--verbose", "stray"]) }
    }
}
