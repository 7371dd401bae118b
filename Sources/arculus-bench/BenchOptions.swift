#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command line of `arculus-bench` (see `usage`).
struct BenchOptions {
    var quick = false
    var markdown = false
    var markdownFile: String?
    var rounds = 5
    var seconds = 0.3
    var pcscSeconds = 0.5
    var slot = 1
    /// vpcd's TCP port for the slot when it is not 35963 + slot (a differently configured vpcd).
    var vpcdPort: Int?
    var serveBinary: String?
    var directory = ".build/bench"
    var skipPCSC = false
    /// Only the pcscd rows (and the in-process APDU rows they compare with): for profiling the bridge.
    var pcscOnly = false
    /// Only the in-process operations whose name contains this (no replay, no pcscd): for profiling.
    var only: String?
    /// Only cards with this storage (profiling).
    var storage: String?

    static let usage = """
        USAGE: arculus-bench [--quick] [--markdown] [--markdown-file FILE] [--rounds N] [--seconds S]
                             [--pcsc-seconds S] [--slot N] [--vpcd-port PORT] [--serve PATH] [--dir DIR] [--no-pcsc]
                             [--pcsc-only] [--only TEXT] [--storage memory|file]
               arculus-bench --responder PORT [--atr HEX] [--answer COMMANDHEX=RESPONSEHEX]...

        Measures the emulated card in this process (each CTAP operation beside the OpenSSL work it
        cannot avoid, on a near-empty card and one holding 10,000 credentials, in memory and on a
        card image file), through pcscd + vpcd (beside a minimal responder answering the same
        bytes, on a second free reader at the same time, APDU by APDU, or else in turn on the same
        one), the start-up of `arculus-card serve`, serve's memory, several cards busy at once
        (with 2 and 4 free readers: `./setup.sh --readers 4`, or VPCD_READERS=4 Tests/isolated.sh)
        and transcript replay; prints medians of several rounds with min–max and PASS/MISS beside
        each target. Run it through ./bench.sh (release build).

        OPTIONS:
          --quick              A ~20 s smoke run (3 short rounds).
          --markdown           Print the results as one markdown table (progress goes to stderr).
          --markdown-file FILE Also write the markdown table to FILE (default DIR/results.md).
          --rounds N           Rounds per measurement (default 5; 3 with --quick).
          --seconds S          Wall time of one in-process round (default 0.3).
          --pcsc-seconds S     Wall time of one pcscd round-trip round (default 0.5).
          --slot N             vpcd slot for the pcscd rows (default 1: 'Virtual PCD 00 01', port 35964).
          --vpcd-port PORT     vpcd's port for that slot when it is not 35963 + N (own reader.conf).
          --serve PATH         The arculus-card binary (default: next to this one).
          --dir DIR            Where card images and logs go (default .build/bench); must be a real
                               disk for the durability rows to mean anything.
          --no-pcsc            Skip the rows through pcscd.
          --pcsc-only          Only the rows through pcscd (and the in-process APDU rows they compare with).
          --only TEXT          Only the in-process operations whose name contains TEXT (no replay, no
                               pcscd), e.g. to profile one: perf record -g arculus-bench --only getInfo
          --storage memory|file Only the cards with that storage (with --only, for profiling).
          --responder PORT     Run only the minimal vpcd responder (used by the benchmark itself).
        """

    init(_ arguments: [String]) throws {
        var index = 0
        func value(_ name: String) throws -> String {
            index += 1
            guard index < arguments.count else { throw BenchError("\(name) wants a value") }
            return arguments[index]
        }
        var rounds: Int?
        var seconds: Double?
        var pcscSeconds: Double?
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "--quick": quick = true
            case "--markdown": markdown = true
            case "--markdown-file": markdownFile = try value(argument)
            case "--rounds":
                guard let number = Int(try value(argument)), number >= 1 else { throw BenchError("--rounds wants a number ≥ 1") }
                rounds = number
            case "--seconds":
                guard let number = Double(try value(argument)), number > 0 else { throw BenchError("--seconds wants seconds > 0") }
                seconds = number
            case "--pcsc-seconds":
                guard let number = Double(try value(argument)), number > 0 else { throw BenchError("--pcsc-seconds wants seconds > 0") }
                pcscSeconds = number
            case "--slot":
                guard let number = Int(try value(argument)), (0...15).contains(number) else { throw BenchError("--slot wants 0...15") }
                slot = number
            case "--vpcd-port":
                guard let number = Int(try value(argument)), (1...65535).contains(number) else { throw BenchError("--vpcd-port wants a port") }
                vpcdPort = number
            case "--serve": serveBinary = try value(argument)
            case "--dir": directory = try value(argument)
            case "--no-pcsc": skipPCSC = true
            case "--pcsc-only": pcscOnly = true
            case "--only": only = try value(argument)
            case "--storage":
                let name = try value(argument)
                guard name == "memory" || name == "file" else { throw BenchError("--storage wants memory or file") }
                storage = name
            default: throw BenchError("unknown option '\(argument)'\n\n\(Self.usage)")
            }
            index += 1
        }
        if quick {
            self.rounds = 3
            self.seconds = 0.04
            self.pcscSeconds = 0.1
        }
        if let rounds { self.rounds = rounds }
        if let seconds { self.seconds = seconds }
        if let pcscSeconds { self.pcscSeconds = pcscSeconds }
    }
}
