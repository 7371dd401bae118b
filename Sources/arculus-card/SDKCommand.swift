import ArculusCard
import ArculusFidoConnectors
import ArculusSDK
import Dispatch
import Synchronization

/// `arculus-card sdk <operation>`: the SDK-shaped operations of the vendor's Arculus FIDO SDK
/// (setPin, registerCardOnly, ...) and its two flows, for teams in any language. Runs them with
/// the host-side CTAP2 client against an in-process card image or a card on a PC/SC reader, and
/// prints JSON on stdout. The operations are the table ``SDKOperation/all``; the help is in
/// `SDKCommand+Help.swift`, the card connectors in their own files.
enum SDKCommand: Subcommand {
    static let name = "sdk"
    static let summary = "Run an SDK operation (setPin, registerCardOnly, ...) against a card image or a PC/SC reader"

    static func run(_ arguments: [String]) throws -> Int32 {
        let known = SDKOperation.all.map(\.name).joined(separator: ", ")
        guard let name = arguments.first, !name.hasPrefix("-") else { throw UsageError("name an operation: \(known)") }
        let rest = Array(arguments.dropFirst())
        guard let operation = SDKOperation.named(name) else {
            if CommandLineOptions.asksForHelp(rest) { throw HelpRequest() }
            throw UsageError("unknown operation '\(name)'. Known: \(known)")
        }
        let options = try declaration.parse(rest, action: operation.name)
        guard options.positionals.isEmpty else { throw UsageError("unexpected argument '\(options.positionals[0])'") }
        for required in operation.required where options.value(required) == nil {
            throw UsageError("\(name) needs \(required)")
        }
        if options.flag("--strict-rp"), options.value("--rp-id") == nil {
            throw UsageError("\(name) --strict-rp needs --rp-id: the card signs for that RP ID only")
        }
        let connector: any CardConnector
        do {
            connector = try makeConnector(options)
        } catch let unavailable as CardUnavailable {
            return report(ArculusFidoError(.unknown, during: operation.operation, "\(unavailable.description)"))
        }
        var timeouts = CardTimeouts()
        if let wait = try options.seconds("--wait-for-card"), wait > 0 { timeouts.tap = .milliseconds(Int64(wait * 1000)) }
        let invocation = SDKInvocation(operation: name, options: options, sdk: ArculusFido(card: connector, timeouts: timeouts),
                                       timeout: try options.seconds("--timeout") ?? 30)
        switch runBlocking({ () async throws(ArculusFidoError) -> String in try await operation.perform(invocation) }) {
        case .success(let output):
            Console.output(output)
            return ExitStatus.success
        case .failure(let error):
            return report(error)
        }
    }

    /// An SDK error in the command line's terms: its JSON on stdout, its message on stderr;
    /// status 65 for a caller's mistake (700 Invalid Input), else 1.
    private static func report(_ error: ArculusFidoError) -> Int32 {
        Console.output(error.json(.commandLine).text)
        let message = error.text(.commandLine)
        guard error.code != .invalidInput else {
            Console.error("arculus-card \(message)")
            return ExitStatus.dataError
        }
        Console.error("arculus-card \(message) [\(error.code)]")
        return ExitStatus.failure
    }

    // MARK: - The card

    /// The card the options name: an image's in-process card, or the card on a reader.
    private static func makeConnector(_ options: CommandLineOptions) throws -> any CardConnector {
        let image = options.value("--card-image")
        let reader = options.value("--reader")
        switch (image, reader) {
        case (nil, nil):
            throw UsageError("say where the card is: --card-image FILE or --reader NAME")
        case (.some, .some):
            throw UsageError("--card-image and --reader exclude each other")
        case (let path?, nil):
            guard options.value("--wait-for-card") == nil else { throw UsageError("--wait-for-card goes with --reader") }
            if let problem = CardFileCheck.imageProblem(path) { throw UsageError("--card-image \(path) \(problem)") }
            if let profile = options.value("--profile"), let problem = CardFileCheck.profileProblem(profile) {
                throw UsageError("--profile \(profile) \(problem)")
            }
            let cardOptions = try CardOptions(options, image: "--card-image")
            var removeAfter: Int?
            if let text = options.value("--remove-card-after") {
                guard let count = Int(text), count >= 0 else {
                    throw UsageError("--remove-card-after wants a number of APDUs, not '\(text)'")
                }
                removeAfter = count
            }
            let connector: VirtualCardConnector
            do {
                connector = VirtualCardConnector(card: try cardOptions.open())
            } catch let error as CardImageError {
                // A file that is not an image, or an image of another card than --profile asks
                // for, is the command line's mistake; a locked, damaged or unreadable one is not.
                switch error.reason {
                case .notACardImage, .profileMismatch, .unsupportedVersion: throw UsageError("--card-image: \(error)")
                default: throw CardUnavailable("cannot open the card image: \(error)")
                }
            } catch {
                throw CardUnavailable("cannot open the card image: \(error)")
            }
            connector.leavesFieldAfter = removeAfter
            return connector
        case (nil, let name?):
            guard options.value("--profile") == nil else { throw UsageError("--profile goes with --card-image") }
            guard options.value("--remove-card-after") == nil else { throw UsageError("--remove-card-after goes with --card-image") }
            return PCSCCardConnector(reader: name, waitsForCard: (try options.seconds("--wait-for-card") ?? 0) > 0)
        }
    }

    /// Runs async SDK work to completion from the synchronous command line.
    private static func runBlocking<T: Sendable>(
        _ body: @escaping @Sendable () async throws(ArculusFidoError) -> T
    ) -> Result<T, ArculusFidoError> {
        let outcome = Mutex<Result<T, ArculusFidoError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task {
            let result: Result<T, ArculusFidoError>
            do throws(ArculusFidoError) {
                result = .success(try await body())
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else { preconditionFailure("the task signalled without a result") }
        return result
    }
}

extension ExitStatus {
    /// A value on the command line that the SDK refuses before touching the card (sysexits.h
    /// EX_DATAERR): 700 Invalid Input.
    static let dataError: Int32 = 65
}

/// A card image that cannot be opened: reported like a failed operation.
private struct CardUnavailable: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
