@testable import arculus_card
import Testing

/// serve's control-socket options, read before anything starts.
@Suite("serve's control options")
struct ServeOptionsTests {
    @Test("--control, --no-control and --control-timeout")
    func controlOptions() throws {
        let defaults = try ServeOptions([])
        #expect(defaults.control == .defaultPath)
        #expect(defaults.controlTimeout == .seconds(10))
        let explicit = try ServeOptions(["--control", "/run/card.sock", "--control-timeout", "1.5"])
        #expect(explicit.control == .path("/run/card.sock"))
        #expect(explicit.controlTimeout == .milliseconds(1500))
        #expect(try ServeOptions(["--no-control"]).control == ServeOptions.Control.none)
        #expect(throws: UsageError("--control or --no-control, not both")) { try ServeOptions(["--no-control", "--control", "x"]) }
        #expect(throws: UsageError("--control-timeout is for the control socket; --no-control has none")) {
            try ServeOptions(["--no-control", "--control-timeout", "2"])
        }
        #expect(throws: UsageError("--control-timeout wants at least 0.1 seconds")) { try ServeOptions(["--control-timeout", "0.05"]) }
        #expect(throws: UsageError("--control-timeout wants seconds between 0 and 3600, not 'soon'")) {
            try ServeOptions(["--control-timeout", "soon"])
        }
    }

    @Test("--wait-for-reader: 5 s unless given, 'forever' for no bound; --ready-file")
    func readinessOptions() throws {
        let defaults = try ServeOptions([])
        #expect(defaults.waitForReader == .seconds(5))
        #expect(defaults.readyFile == nil)
        #expect(try ServeOptions(["--wait-for-reader", "forever"]).waitForReader == nil)
        #expect(try ServeOptions(["--wait-for-reader", "2.5"]).waitForReader == .milliseconds(2500))
        #expect(try ServeOptions(["--ready-file", "/run/ready"]).readyFile == "/run/ready")
        for refused in ["0", "-1", "3601", "never", ""] {
            #expect(throws: UsageError("--wait-for-reader wants seconds (above 0, at most 3600) or 'forever', not '\(refused)'")) {
                try ServeOptions(["--wait-for-reader", refused])
            }
        }
    }

    @Test("a wait is said in seconds to the millisecond")
    func secondsText() {
        #expect(Duration.seconds(5).secondsText == "5 s")
        #expect(Duration.milliseconds(1500).secondsText == "1.5 s")
        #expect(Duration.milliseconds(250).secondsText == "0.25 s")
    }
}
