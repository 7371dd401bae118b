#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArculusCard
import Synchronization
import Transcript
import VirtualReader

/// `arculus-card serve`: puts the card on a PC/SC virtual reader (vsmartcard's vpcd driver
/// in pcscd) until interrupted.
enum ServeCommand: Subcommand {
    static let name = "serve"
    static let summary = "Put the card on a PC/SC virtual reader (pcscd + vsmartcard vpcd)"

    static var help: String {
        """
        USAGE: arculus-card serve [--card FILE] [--profile NAME|FILE] [--vpcd HOST:PORT] [--slot N]
                                  [--busy-first] [--tap-delay SECONDS] [--pid-file FILE] [--verbose]
                                  [--seed HEX] [--record FILE] | --stand-in FILE
                                  [--control PATH | --no-control] [--timing off|realistic]

        Connects the emulated card to the vpcd driver of pcscd (Debian package vsmartcard-vpcd),
        so that it appears in the reader 'Virtual PCD 00 00' (slot 0) or 'Virtual PCD 00 01'
        (slot 1) like a card tapped on an NFC reader. PC/SC applications then reach it as they
        would a real Arculus card: python-fido2's CtapPcscDevice, opensc-tool, pcsc_scan, the
        vendor's desktop SDK. It keeps serving until SIGINT/SIGTERM, and reconnects by itself
        when pcscd is not (yet) running or restarts.

        OPTIONS:
          --card FILE          The card image: the card's non-volatile memory (credentials, PIN,
                               counters). Created from the profile when the file does not exist;
                               locked while the card runs; written atomically after every change.
                               Without --card the card lives in memory and is blank every run.
          --profile NAME|FILE  The card model: a built-in name (\(CardProfile.builtInNames.joined(separator: ", ")))
                               or a profile JSON file. Default: \(CardProfile.default.name).
                               For an existing image, the image's profile is used, and a
                               different --profile is an error.
          --vpcd HOST:PORT     Where the vpcd driver listens. Default 127.0.0.1:35963 ([::1]:PORT
                               for IPv6).
          --slot N             Use the driver's slot N: port 35963+N on the --vpcd host
                               (Debian's vpcd has slots 0 and 1).
          --busy-first         Answer an NFCCTAP_MSG with P1=80 first with 9100 ("still
                               processing") so the client polls with NFCCTAP_GETRESPONSE, as slow
                               cards do; exercises clients' polling and cancel paths.
          --tap-delay SECONDS  How long the card stays off the reader on SIGUSR1. Default 1.
                               Keep it at 0.5 or more: pcscd polls every 0.4 s and misses a
                               shorter absence.
          --pid-file FILE      Write the process id to FILE (removed on exit).
          --verbose            Trace every APDU to stderr: hex, and for CTAP the command name and
                               CBOR in diagnostic notation (PIN/UV material abbreviated).
          --seed HEX           A deterministic card: every random value (card secrets, keys,
                               credential IDs, PIN tokens) and every ECDSA nonce (RFC 6979) derives
                               from HEX, so the same seed, image and commands give the same bytes.
                               For tests and transcripts only: the seed reveals every key.
          --record FILE        Append every power event and APDU exchange to the transcript FILE
                               as it happens (see 'arculus-card transcript --help'). An existing
                               --card image is first copied to FILE.image for replay.
          --stand-in FILE      No emulated card: the transcript FILE answers as the card, each
                               expected request with its recorded response; requests that do not
                               match are reported on stderr and answered 7F (CTAP) / 6F00.
          --control PATH       The control socket that 'arculus-card ctl' (or any program writing
                               JSON lines to it) uses to steer the card while it runs: tap,
                               remove/insert, faults, PIN, counter, credentials, timing. A Unix
                               socket, mode 0600, owner only; never on the network. Default:
                               $XDG_RUNTIME_DIR/arculus-card-<slot>.sock, or without
                               XDG_RUNTIME_DIR /tmp/arculus-card-<uid>-<port>.sock. The default
                               socket is skipped with a warning if it cannot be made; an
                               explicit --control that cannot be made is an error.
          --no-control         No control socket.
          --timing NAME        How long operations take: off (default, as fast as possible) or
                               realistic (about a physical card: ~110 ms per signature, ~200 ms
                               per key generation, ~55 ms per PIN operation, ~4 ms per APDU;
                               NFCCTAP_MSG with P1=80 answers 9100 while the card works).
          -h, --help           Show this help.

        SIGNALS:
          SIGUSR1              Take the card off the reader and tap it again after --tap-delay:
                               applications see it removed and re-inserted, and the card loses
                               power (so e.g. PIN_AUTH_BLOCKED clears, as after a real removal).
          SIGINT, SIGTERM      Take the card off the reader and exit with status 0.

        OUTPUT:
          stdout               'control channel at <path>' once, then 'card present on <reader>
                               (<host:port>)' each time the card is put on the reader.
          stderr               State changes (waiting for the driver, card removed), every
                               injected fault as it acts ('! fault injected: …') and, with
                               --verbose, the APDU trace and each control request.

        EXAMPLES:
          arculus-card serve --card ~/arculus.card
          arculus-card serve --slot 1 --profile arculus-fido2 --verbose
          kill -USR1 $(cat /run/arculus.pid)    # with --pid-file /run/arculus.pid
          arculus-card serve --slot 1 --control /tmp/card.sock --timing realistic
        """
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try CommandLineOptions(
            arguments,
            valued: ["--card", "--profile", "--vpcd", "--slot", "--tap-delay", "--pid-file",
                     "--seed", "--record", "--stand-in", "--control", "--timing"],
            flags: ["--verbose", "--busy-first", "--no-control"])
        guard options.positionals.isEmpty else {
            throw UsageError("unexpected argument '\(options.positionals[0])'")
        }

        var endpoint = VPCDEndpoint.default
        if let text = options.value("--vpcd") {
            guard let parsed = VPCDEndpoint(parsing: text) else {
                throw UsageError("--vpcd wants HOST:PORT (e.g. 127.0.0.1:35963), not '\(text)'")
            }
            endpoint = parsed
        }
        if let text = options.value("--slot") {
            guard let slot = Int(text), let slotted = endpoint.slot(slot) else {
                throw UsageError("--slot wants a slot number (0, 1, ...), not '\(text)'")
            }
            endpoint = slotted
        }
        var tapDelay = Duration.seconds(1)
        if let text = options.value("--tap-delay") {
            guard let seconds = Double(text), seconds >= 0, seconds <= 3600 else {
                throw UsageError("--tap-delay wants seconds between 0 and 3600, not '\(text)'")
            }
            tapDelay = .milliseconds(Int64((seconds * 1000).rounded()))
        }

        let profile: CardProfile?
        if let name = options.value("--profile") {
            do {
                profile = try CardProfile.named(name)
            } catch {
                throw UsageError("--profile: \(error). Built-in profiles: \(CardProfile.builtInNames.joined(separator: ", ")).")
            }
        } else {
            profile = nil
        }

        var entropy = CardEntropy.system
        if let text = options.value("--seed") {
            guard let seed = [UInt8](hex: text), !seed.isEmpty else {
                throw UsageError("--seed wants hex bytes (e.g. 000102...), not '\(text)'")
            }
            entropy = .seeded(seed)
        }
        var timing = TimingProfile.off
        if let name = options.value("--timing") {
            guard let named = TimingProfile.named(name) else {
                throw UsageError("--timing wants \(TimingProfile.builtIn.map(\.name).joined(separator: " or ")), not '\(name)'")
            }
            timing = named
        }
        if options.flag("--no-control") && options.value("--control") != nil {
            throw UsageError("--control or --no-control, not both")
        }
        let recordPath = options.value("--record")
        let standInPath = options.value("--stand-in")
        if standInPath != nil,
           recordPath != nil || options.value("--seed") != nil || options.value("--card") != nil || profile != nil {
            throw UsageError("--stand-in answers from a transcript: it takes no --card, --profile, --seed or --record")
        }

        let readerCard: any ReaderCard
        var emulatedCard: VirtualCard?
        var standIn: TranscriptStandIn?
        var recorder: TranscriptRecorder?
        var cardName: String
        do {
            if let standInPath {
                let transcriptCard = try TranscriptStandIn(fileAt: standInPath)
                transcriptCard.onMismatch = { Console.error("\($0)") }
                standIn = transcriptCard
                readerCard = transcriptCard
                cardName = "stand-in for \(standInPath)"
            } else {
                var imageReference = "blank"
                if let recordPath {
                    // Snapshot the image before the card opens (and may change) it.
                    imageReference = try TranscriptRecorder.imageReference(forImageAt: options.value("--card"),
                                                                           recordingTo: recordPath)
                }
                let frontOptions = CardFront.Options(busyFirst: options.flag("--busy-first"))
                let card: VirtualCard
                if let path = options.value("--card") {
                    card = try VirtualCard(imageAt: path, profile: profile, frontOptions: frontOptions, entropy: entropy)
                } else {
                    card = try VirtualCard(profile: profile ?? .default, frontOptions: frontOptions, entropy: entropy)
                }
                cardName = "\(card.profile.name) card" + (options.value("--card").map { " from \($0)" } ?? " (in memory)")
                card.timing = timing
                card.control.onFaultInjected = { Console.error("! \($0)") }
                emulatedCard = card
                if let recordPath {
                    let profileReference = options.value("--profile").map { name in
                        CardProfile.builtInNames.contains(name) ? name : Transcript.relativePath(of: name, fromFolderOf: recordPath)
                    }
                    let transcriptRecorder = try TranscriptRecorder(
                        card: card, profile: profileReference, image: imageReference,
                        source: "arculus-card serve via vpcd (\(endpoint))", recordingTo: recordPath)
                    recorder = transcriptRecorder
                    readerCard = transcriptRecorder
                    cardName += ", recording to \(recordPath)"
                } else {
                    readerCard = card
                }
            }
        } catch {
            Console.error("arculus-card serve: cannot open the card: \(error)")
            return ExitStatus.failure
        }

        let pidFile = options.value("--pid-file")
        if let pidFile {
            guard writePIDFile(pidFile) else {
                Console.error("arculus-card serve: cannot write the pid file \(pidFile): \(String(cString: strerror(errno)))")
                return ExitStatus.failure
            }
        }
        defer {
            if let pidFile { unlink(pidFile) }
        }

        let bridge = VPCDBridge(card: readerCard, endpoint: endpoint,
                                trace: traceHook(endpoint: endpoint, verbose: options.flag("--verbose")))
        Console.error("arculus-card serve: \(cardName) for vpcd at \(endpoint)")
        emulatedCard?.control.onLeaveField = { away in bridge.removeAndTap(after: away) }
        var controlChannel: ControlChannel?
        if !options.flag("--no-control") {
            let path = options.value("--control") ?? ControlChannel.defaultPath(for: endpoint)
            let handler = ControlChannelHandler(card: emulatedCard, bridge: bridge)
            if options.flag("--verbose") { handler.trace = { Console.error($0) } }
            do {
                controlChannel = try ControlChannel(path: path, handler: handler) { bridge.perform($0) }
            } catch {
                guard options.value("--control") == nil else {
                    Console.error("arculus-card serve: \(error)")
                    return ExitStatus.failure
                }
                Console.error("arculus-card serve: no control channel: \(error)")
            }
        }
        if let controlChannel {
            controlChannel.start()
            Console.output("control channel at \(controlChannel.path)")
        }
        defer { controlChannel?.stop() }

        // Signals are relayed to a thread, never handled in the signal handler: the relay only
        // asks the bridge to stop or re-tap, which the bridge does between two APDUs.
        let delay = tapDelay
        let relay = SignalRelay(signals: [SIGINT, SIGTERM, SIGUSR1]) { number in
            if number == SIGUSR1 {
                bridge.removeAndTap(after: delay)
            } else {
                bridge.stop()
            }
        }

        bridge.run()
        withExtendedLifetime(relay) {}
        if let standIn { Console.error(standIn.summary) }
        if let error = recorder?.fileError { Console.error("arculus-card serve: recording stopped: \(error)") }
        return ExitStatus.success
    }

    /// The reader name pcscd gives vpcd's slot behind `endpoint` (Debian's configuration:
    /// friendly name "Virtual PCD", first reader, slot = port - 35963).
    static func readerName(for endpoint: VPCDEndpoint) -> String {
        let slot = Int(endpoint.port) - Int(VPCDEndpoint.basePort)
        guard slot >= 0 && slot < 256 else { return "the vpcd reader" }
        let hex = String(slot, radix: 16, uppercase: true)
        return "Virtual PCD 00 " + (hex.count < 2 ? "0" + hex : hex)
    }

    /// What the bridge's events print: state changes always, the APDU trace with --verbose.
    private static func traceHook(endpoint: VPCDEndpoint, verbose: Bool) -> @Sendable (VPCDBridge.Event) -> Void {
        let formatter = Mutex(APDUTraceFormatter())
        let reader = readerName(for: endpoint)
        return { event in
            switch event {
            case .waitingForDriver(let endpoint, let reason):
                Console.error("waiting for the vpcd driver at \(endpoint) (\(reason)); is pcscd running with vsmartcard-vpcd? retrying")
            case .connected(let endpoint):
                Console.output("card present on \(reader) (\(endpoint))")
            case .disconnected(let reason):
                formatter.withLock { $0.reset() }
                if reason != .stopped { Console.error("card off the reader: \(reason)") }
            case .powerOn, .powerOff, .reset:
                formatter.withLock { $0.reset() }
                if verbose { Console.error("- \(event)") }
            case .atr:
                break  // polled every ~0.4 s: too frequent to trace
            case .exchange(let command, let response, let elapsed):
                if verbose {
                    let lines = formatter.withLock { $0.lines(command: command, response: response, elapsed: elapsed) }
                    Console.error(lines.joined(separator: "\n"))
                }
            case .stopped:
                Console.error("arculus-card serve: stopped")
            }
        }
    }

    /// Writes our pid to `path` through a temporary file and a rename, so a reader never
    /// sees a half-written file.
    private static func writePIDFile(_ path: String) -> Bool {
        let temporary = path + ".tmp.\(getpid())"
        guard let file = fopen(temporary, "w") else { return false }
        let written = fputs("\(getpid())\n", file) >= 0
        let closed = fclose(file) == 0
        guard written, closed, rename(temporary, path) == 0 else {
            unlink(temporary)
            return false
        }
        return true
    }
}
