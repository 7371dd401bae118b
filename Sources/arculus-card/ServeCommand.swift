#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ArculusCard
import CardPage
import VirtualReader

/// `arculus-card serve`: puts the card on a PC/SC virtual reader (vsmartcard's vpcd driver
/// in pcscd) until interrupted. Three steps: read the command line (``ServeOptions``), open the
/// card (``ServedCard``), then serve it with its control channel and signals.
enum ServeCommand: Subcommand {
    static let name = "serve"
    static let summary = "Put the card on a PC/SC virtual reader (pcscd + vsmartcard vpcd)"

    static var declaration: CommandDeclaration {
        CommandDeclaration(
            usage: ["arculus-card serve [--card FILE]... | [--cards N] [--profile NAME|FILE] [--vpcd HOST:PORT] [--slot N]",
                    "                   [--busy-first] [--tap-delay SECONDS] [--pid-file FILE] [--verbose]",
                    "                   [--wait-for-reader SECONDS|forever] [--ready-file FILE]",
                    "                   [--seed HEX] [--record FILE] | --stand-in FILE",
                    "                   [--control PATH | --no-control] [--control-timeout SECONDS]",
                    "                   [--timing off|realistic] [--ui [127.0.0.1:PORT]]"],
            about: """
            Connects the emulated card to the vpcd driver of pcscd (Debian package vsmartcard-vpcd),
            so that it appears in the reader 'Virtual PCD 00 00' (slot 0) or 'Virtual PCD 00 01'
            (slot 1) like a card tapped on an NFC reader. PC/SC applications then reach it as they
            would a real Arculus card: python-fido2's CtapPcscDevice, opensc-tool, pcsc_scan, the
            vendor's desktop SDK. It keeps serving until SIGINT/SIGTERM, and reconnects by itself
            when pcscd is not (yet) running or restarts, or stops talking to the card (stderr says
            why). Several cards (--card given once per card, or --cards N) go on consecutive
            readers from --slot, each with its own control socket; Debian's vpcd has two readers,
            './setup.sh --readers N' configures more (it restarts the machine's pcscd).
            """,
            options: [
                .repeating("--card", "FILE", "The card image: the card's non-volatile memory (credentials, PIN,",
                           "counters). Created from the profile when the file does not exist;",
                           "locked while the card runs. Each change is appended to the image's",
                           "journal and synced before the card answers, so a kill leaves the",
                           "state before or after it (see Docs/CardImage.md).",
                           "Without --card the card lives in memory and is blank every run.",
                           "Given several times: one card per image, on consecutive readers."),
                .valued("--cards", "N", "N cards in memory, on consecutive readers (1 to 16)."),
                .valued("--profile", "NAME|FILE", "The card profile: a built-in name (\(SharedOptions.profileChoices))",
                        "or a profile JSON file. Default: \(CardProfile.default.name).",
                        "For an existing image, the image's profile is used, and a",
                        "different --profile is an error."),
                .valued("--vpcd", "HOST:PORT", "Where the vpcd driver listens. Default 127.0.0.1:35963 ([::1]:PORT",
                        "for IPv6)."),
                .valued("--slot", "N", "Use the driver's slot N: port 35963+N on the --vpcd host",
                        "(Debian's vpcd has slots 0 and 1; setup.sh --readers N adds more).",
                        "With several cards, the first card's slot."),
                .flag("--busy-first", "Answer an NFCCTAP_MSG with P1=80 first with 9100 (\"still",
                      "processing\") so the client polls with NFCCTAP_GETRESPONSE, as slow",
                      "cards do; exercises clients' polling and cancel paths."),
                .valued("--tap-delay", "SECONDS", "How long the card stays off the reader on SIGUSR1. Default 1.",
                        "Keep it at 0.5 or more: pcscd polls every 0.4 s and misses a",
                        "shorter absence."),
                .valued("--pid-file", "FILE", "Write the process id to FILE at start (removed on exit), for signals",
                        "even to a serve still waiting for its reader."),
                .valued("--ready-file", "FILE", "Write FILE once every card is on its reader (see OUTPUT): the",
                        "'card present on …' lines, one per card (removed on exit)."),
                .valued("--wait-for-reader", "SECONDS", "How long the cards may take to come onto their readers the first",
                        "time (default 5; 'forever' waits as long as it takes, for a pcscd",
                        "that is still to start). Past it serve ends with one line saying",
                        "why (no reader configured on the port, another card on the",
                        "reader, no driver answering) and status 69. Later removals and",
                        "pcscd restarts are waited out for ever."),
                .flag("--verbose", "Trace every APDU to stderr: hex, and for CTAP the command name and",
                      "CBOR in diagnostic notation (PIN/UV material and keys abbreviated)."),
                .valued("--seed", "HEX", "A deterministic card: every random value (card secrets, keys,",
                        "credential IDs, PIN tokens) and every ECDSA nonce (RFC 6979) derives",
                        "from HEX, so the same seed, image and commands give the same bytes.",
                        "For tests and transcripts only: the seed reveals every key."),
                .valued("--record", "FILE", "Record every power event and APDU exchange to the transcript FILE",
                        "as it happens (see 'arculus-card transcript --help'). A new FILE",
                        "is created; an existing one gets this recording appended as its",
                        "next session ('# session N …'), which replays on a fresh card of",
                        "its own. Appending needs the same headers (profile, seed) and a",
                        "blank card; with an existing --card image, the image is copied to",
                        "FILE.image for replay, and FILE must be new."),
                .valued("--stand-in", "FILE", "No emulated card: the transcript FILE answers as the card, each",
                        "expected request with its recorded response; requests that do not",
                        "match are reported on stderr and answered 7F (CTAP) / 6F00. The",
                        "recorded signatures verify only for the recorded challenges."),
                .valued("--control", "PATH", "The control socket that 'arculus-card ctl' (or any program writing",
                        "JSON lines to it) uses to steer the card while it runs: tap,",
                        "remove/insert, faults, PIN, counter, credentials, timing. A Unix",
                        "socket, mode 0600, owner only; never on the network; PATH's",
                        "directory must be yours and writable by nobody else. Default: a",
                        "new private directory (mode 0700) in $XDG_RUNTIME_DIR, or else in",
                        "$TMPDIR or /tmp, its path printed and recorded in",
                        "$XDG_RUNTIME_DIR/arculus-card/port-<port>, or else in",
                        "arculus-card-<uid>/port-<port> in $TMPDIR or /tmp, where",
                        "'ctl --slot N' finds it. A socket that cannot be made (or",
                        "recorded) is an error; --no-control serves without one."),
                .flag("--no-control", "No control socket."),
                .valued("--control-timeout", "SECONDS", "How long a control request may wait for the card (default 10).",
                        "One it has not started by then is withdrawn (ctl: nothing was",
                        "changed); one it started and has not finished is answered 'it may",
                        "still have been carried out'. Also how long a control client may",
                        "leave an answer unread before it is disconnected."),
                .valued("--timing", "NAME", "How long operations take: off (default, as fast as possible) or",
                        "realistic (about a physical card: ~110 ms per signature, ~200 ms",
                        "per key generation, ~55 ms per PIN operation, ~4 ms per APDU;",
                        "NFCCTAP_MSG with P1=80 answers 9100 while the card works)."),
                ServePage.option,
            ],
            sections: [
                .init(title: "SIGNALS", body: """
                  SIGUSR1              Take the card off the reader and tap it again after --tap-delay:
                                       applications see it removed and re-inserted, and the card loses
                                       power (so e.g. PIN_AUTH_BLOCKED clears, as after a real removal).
                                       With several cards, every card ('ctl --slot N tap' for one).
                  SIGINT, SIGTERM      Take the card off the reader and exit with status 0.
                """),
                .init(title: "OUTPUT", body: """
                  stdout               'control channel at <path>' once per card, then 'card present on
                                       <reader> (<host:port>)' each time a card is put on the reader, once
                                       pcscd lists it there and an application can connect to it (serve
                                       asks through PC/SC); the reader's name comes from /etc/reader.conf.d.
                                       Where that cannot be asked, 'card on vpcd port N (<host:port>); …'
                                       says why: no pcscd reachable to confirm it, or no reader configured
                                       for the port here.
                  stderr               State changes (waiting for the driver, card removed, and the
                                       control requests that move the card: 'control: remove: …'), every
                                       injected fault as it acts ('! fault injected: …') and, with
                                       --verbose, the APDU trace and each control request; with several
                                       cards each line starts with '[<reader>] '. A control socket that
                                       cannot be made ends serve at once, status 1, with one line
                                       'arculus-card serve: no control channel: …'.
                """),
                .init(title: "EXIT STATUS", body: """
                  0 stopped by SIGINT/SIGTERM; 1 the card, its control socket or a file cannot be made; 64 a bad
                  command line; 69 a card did not come onto its reader within --wait-for-reader.
                """),
                .init(title: "EXAMPLES", body: """
                  arculus-card serve --card ~/arculus.card
                  arculus-card serve --slot 1 --profile arculus-fido2 --verbose
                  kill -USR1 $(cat /run/arculus.pid)    # with --pid-file /run/arculus.pid
                  arculus-card serve --ready-file ready & until [ -e ready ]; do sleep 0.1; done
                  arculus-card serve --slot 1 --control ~/card.sock --timing realistic
                  arculus-card serve --card a.img --card b.img --card c.img --card d.img   # 4 readers
                  arculus-card ctl --slot 3 status       # the card on the 4th reader
                """),
            ])
    }

    static func run(_ arguments: [String]) throws -> Int32 {
        let options = try ServeOptions(arguments)
        var cards: [ServedCard] = []
        for index in options.cards.indices {
            do {
                cards.append(try ServedCard(options, index: index))
            } catch {
                let which = options.cards.count > 1 ? " \(options.cards[index].imagePath ?? "#\(index + 1)")" : ""
                Console.error("arculus-card serve: cannot open the card\(which): \(error)")
                return ExitStatus.failure
            }
        }
        var pidFile: PIDFile?
        if let path = options.pidFile {
            do {
                pidFile = try PIDFile(path: path)
            } catch {
                Console.error("arculus-card serve: cannot write the pid file \(path): \(error)")
                return ExitStatus.failure
            }
        }
        defer { pidFile?.remove() }
        let readiness = ServeReadiness(endpoints: cards.indices.map(options.endpoint(ofCard:)), wait: options.waitForReader,
                                       readyFile: options.readyFile)
        defer { readiness.finish() }
        let status = serve(cards, options, readiness)
        return readiness.exitStatus ?? status
    }

    /// Serves `cards` on their readers until SIGINT/SIGTERM, each card with a bridge (a thread)
    /// and a control channel of its own.
    private static func serve(_ cards: [ServedCard], _ options: ServeOptions, _ readiness: ServeReadiness) -> Int32 {
        var bridges: [VPCDBridge] = []
        var controlChannels: [ControlChannel] = []
        defer { for channel in controlChannels { channel.stop() } }
        let pageFeeds = ServePage.feeds(options)
        for (index, card) in cards.enumerated() {
            let endpoint = options.endpoint(ofCard: index)
            let label = cards.count > 1 ? ServeTrace.readerName(for: endpoint) : nil
            let bridge = VPCDBridge(card: card.readerCard, endpoint: endpoint,
                                    trace: ServePage.trace(ServeTrace.hook(endpoint: endpoint, verbose: options.verbose, label: label,
                                                                           readiness: { readiness.observe($0, card: index) }),
                                                           feed: pageFeeds?[index]))
            card.attach(to: bridge)
            do {
                if let channel = try startControlChannel(card, bridge: bridge, endpoint: endpoint, label: label, options) {
                    controlChannels.append(channel)
                }
            } catch {
                Console.error("arculus-card serve: no control channel: \(error)")
                return ExitStatus.failure
            }
            Console.error("arculus-card serve: \(card.name) for vpcd at \(endpoint)")
            bridges.append(bridge)
        }
        let page: CardPageServer?
        do {
            page = try ServePage.start(options, cards: cards, bridges: bridges, feeds: pageFeeds)
        } catch {
            Console.error("arculus-card serve: no card page: \(error)")
            return ExitStatus.failure
        }
        defer { page?.stop() }

        // Signals are relayed to a thread, never handled in the signal handler: the relay only
        // asks the bridges to stop or re-tap, which each does between two APDUs or, while its card
        // waits (ServedCard.attach), at once.
        let delay = options.tapDelay
        let all = bridges
        let relay = SignalRelay(signals: [SIGINT, SIGTERM, SIGUSR1]) { number in
            for bridge in all {
                if number == SIGUSR1 { bridge.removeAndTap(after: delay) } else { bridge.stop() }
            }
        }
        readiness.start { for bridge in all { bridge.stop() } }
        for bridge in bridges.dropFirst() { bridge.start() }
        bridges[0].run()
        for bridge in bridges.dropFirst() {
            bridge.stop()
            bridge.wait()
        }
        withExtendedLifetime(relay) {}
        if let standIn = cards[0].standIn { Console.error(standIn.summary) }
        if let error = cards[0].recorder?.fileError { Console.error("arculus-card serve: recording stopped: \(error)") }
        return ExitStatus.success
    }

    /// The control channel, started; nil with --no-control. One that cannot be made, at the
    /// default place or at --control, is an error: serve never runs with a control socket the
    /// user cannot trust or reach.
    private static func startControlChannel(_ card: ServedCard, bridge: VPCDBridge, endpoint: VPCDEndpoint, label: String?,
                                            _ options: ServeOptions) throws -> ControlChannel? {
        let handler = ControlChannelHandler(card: card.emulated, bridge: bridge)
        let prefix = label.map { "[\($0)] " } ?? ""
        if options.verbose { handler.trace = { Console.error(prefix + $0) } }
        handler.log = { Console.error(prefix + $0) }
        let executor: ControlChannel.Executor = { bridge.perform($0) }
        let channel: ControlChannel
        switch options.control {
        case .none: return nil
        case .defaultPath:
            channel = try ControlChannel(defaultFor: endpoint, handler: handler, requestTimeout: options.controlTimeout, executor: executor)
        case .path(let path):
            channel = try ControlChannel(path: path, handler: handler, requestTimeout: options.controlTimeout, executor: executor)
        }
        channel.start()
        Console.output("control channel at \(channel.path)")
        return channel
    }
}
