@testable import arculus_card
import Foundation
import Testing
import TestSupport

// Every file the command line takes, given as every kind of wrong file, through the built
// binary as a user runs it: the answer is one line in the user's terms. Findings (a new user's
// first hour): `transcript import-pcsc-spy nothere.log` printed `Error Domain=NSCocoaErrorDomain
// Code=260 …`, `replay DIR` `(NSCocoaErrorDomain error 256.)`, `profile show bad.json`
// `DecodingError.keyNotFound: … CodingKeys(…)`, `replay --card-image garbage.img` named its own
// temporary copy.

/// What a file argument is: what it holds when it is right, and whether the command reads it,
/// writes it, or takes a directory or a socket there.
enum FileRole: Sendable {
    /// A file read.
    case input(SampleKind)
    /// A file written.
    case output
    /// A directory written into (or, with `probe fixtures --check`, read).
    case directory
    /// A control socket.
    case socket
}

/// The right file of each kind, from the repository's fixtures or made by the binary.
enum SampleKind: String, CaseIterable, Sendable {
    case image, profile, transcript, fingerprint, spyLog, rules, apdus, pem, credential
}

/// The ways a file argument can be wrong.
enum WrongFile: String, CaseIterable, Sendable {
    case missing, unreadable, directory, empty, truncated, foreign
    /// An output's ways: a file in a directory that does not exist, a directory, a directory this
    /// process may not write.
    case missingDirectory, unwritableDirectory
}

/// One file argument: the command line with `@@` where the file goes.
struct FileArgument: CustomStringConvertible, Sendable {
    /// What the declaration calls it: `serve --card`, `probe diff A.json`.
    let name: String
    let arguments: [String]
    let role: FileRole
    /// The wrong kinds the command takes as right (a missing or empty card image is a new card, a
    /// missing socket path is where serve makes its socket): only a leak is looked for.
    var accepts: Set<WrongFile> = []
    /// The command goes to a card (PC/SC) before it writes the file: only a leak is looked for.
    var reachesCardFirst = false

    var description: String { name }

    var wrongFiles: [WrongFile] {
        switch role {
        case .input: [.missing, .unreadable, .directory, .empty, .truncated, .foreign]
        case .output: [.missingDirectory, .unwritableDirectory, .directory]
        case .directory: [.missing, .unwritableDirectory, .empty]
        case .socket: [.missing, .directory, .empty]
        }
    }
}

@Suite("every file argument, given every kind of wrong file, answers one line in the user's terms")
struct FileArgumentSweepTests {
    static let repository = Repository.root.path
    static let binary = Repository.cardBinary.path

    /// A loopback port nothing listens on, with a short wait: serve ends by itself.
    static let noReader = ["--no-control", "--vpcd", "127.0.0.1:9", "--wait-for-reader", "0.2"]
    static let transcript = repository + "/Fixtures/transcripts/reset.transcript"
    static let fingerprint = repository + "/Fixtures/fingerprints/arculus-fido21.fingerprint.json"
    static let spyLog = repository + "/Fixtures/pcsc-spy/fido2-get-info-pin-retries.txt"

    /// Every file argument of every command. `coversTheDeclarations` holds it complete.
    static let all: [FileArgument] = [
        .init(name: "serve --card", arguments: ["serve", "--card", "@@"] + noReader, role: .input(.image), accepts: [.missing, .empty]),
        .init(name: "serve --profile", arguments: ["serve", "--profile", "@@"] + noReader, role: .input(.profile)),
        .init(name: "serve --stand-in", arguments: ["serve", "--stand-in", "@@"] + noReader, role: .input(.transcript)),
        .init(name: "serve --record", arguments: ["serve", "--record", "@@"] + noReader,
              role: .input(.transcript), accepts: [.missing, .empty]),
        .init(name: "serve --pid-file", arguments: ["serve", "--pid-file", "@@"] + noReader, role: .output),
        .init(name: "serve --ready-file", arguments: ["serve", "--ready-file", "@@"] + noReader, role: .output, reachesCardFirst: true),
        .init(name: "serve --control", arguments: ["serve", "--control", "@@", "--vpcd", "127.0.0.1:9", "--wait-for-reader", "0.2"],
              role: .socket, accepts: [.missing]),
        .init(name: "profile show NAME|FILE", arguments: ["profile", "show", "@@"], role: .input(.profile)),
        .init(name: "attestation --fixtures", arguments: ["attestation", "generate", "--fixtures", "@@", "--swift-source", "{work}/m.swift"],
              role: .directory),
        .init(name: "attestation --swift-source", arguments: ["attestation", "generate", "--fixtures", "{work}", "--swift-source", "@@"],
              role: .output),
        .init(name: "replay FILE", arguments: ["replay", "@@"], role: .input(.transcript)),
        .init(name: "replay --card-image", arguments: ["replay", transcript, "--card-image", "@@"], role: .input(.image), accepts: [.empty]),
        .init(name: "replay --profile", arguments: ["replay", transcript, "--profile", "@@"], role: .input(.profile)),
        .init(name: "transcript show FILE", arguments: ["transcript", "show", "@@"],
              role: .input(.transcript), accepts: [.empty, .truncated]),
        .init(name: "transcript check FILE", arguments: ["transcript", "check", "@@"], role: .input(.transcript)),
        .init(name: "transcript import-pcsc-spy LOG", arguments: ["transcript", "import-pcsc-spy", "@@"], role: .input(.spyLog)),
        .init(name: "transcript --output", arguments: ["transcript", "import-pcsc-spy", spyLog, "--output", "@@"], role: .output),
        .init(name: "sdk --card-image", arguments: ["sdk", "info", "--card-image", "@@"], role: .input(.image), accepts: [.missing, .empty]),
        .init(name: "sdk --profile", arguments: ["sdk", "info", "--card-image", "{work}/new.img", "--profile", "@@"], role: .input(.profile)),
        .init(name: "pcsc --from", arguments: ["pcsc", "record", "--from", "@@", "--output", "{work}/r.transcript", "--reader", "nowhere"],
              role: .input(.apdus), accepts: [.truncated]),
        .init(name: "pcsc --profile", arguments: ["pcsc", "record", "--profile", "@@", "--output", "{work}/r.transcript", "--reader",
                                                  "nowhere", "00A4040000"], role: .input(.profile)),
        .init(name: "pcsc --output", arguments: ["pcsc", "record", "--output", "@@", "--reader", "nowhere", "00A4040000"], role: .output,
              reachesCardFirst: true),
        .init(name: "pcsc --base", arguments: ["pcsc", "capture-profile", "--output", "{work}/p.json", "--base", "@@", "--reader", "nowhere"],
              role: .input(.profile)),
        .init(name: "pcsc --out", arguments: ["pcsc", "probe", "--out", "@@", "--reader", "nowhere"], role: .output, reachesCardFirst: true),
        .init(name: "probe diff A.json", arguments: ["probe", "diff", "@@", fingerprint], role: .input(.fingerprint)),
        .init(name: "probe diff B.json", arguments: ["probe", "diff", fingerprint, "@@"], role: .input(.fingerprint)),
        .init(name: "probe --rules", arguments: ["probe", "diff", fingerprint, fingerprint, "--rules", "@@"],
              role: .input(.rules), accepts: [.empty, .truncated]),
        .init(name: "probe profile CARD.json", arguments: ["probe", "profile", "@@", "--out", "{work}/learned.json", "--no-timing"],
              role: .input(.fingerprint)),
        .init(name: "probe --out", arguments: ["probe", "profile", fingerprint, "--out", "@@", "--no-timing"], role: .output),
        .init(name: "probe --emulate", arguments: ["probe", "--emulate", "@@", "--no-timing"], role: .input(.fingerprint)),
        .init(name: "probe --profile", arguments: ["probe", "--profile", "@@", "--out", "{work}/fp.json", "--no-timing"], role: .input(.profile)),
        .init(name: "probe --dir", arguments: ["probe", "fixtures", "--dir", "@@", "--check"], role: .directory),
        .init(name: "image --card", arguments: ["image", "pin", "--card", "@@"], role: .input(.image), accepts: [.empty]),
        .init(name: "image --profile", arguments: ["image", "create", "--card", "{work}/c.img", "--profile", "@@"], role: .input(.profile)),
        .init(name: "image --credential @FILE", arguments: ["image", "credentials", "add", "--card", "{work}/d.img", "--credential", "@@@"],
              role: .input(.credential)),
        .init(name: "image --credential key=PEM-FILE",
              arguments: ["image", "credentials", "add", "--card", "{work}/d.img", "--credential", "rp=example.com,user=bob,key=@@"],
              role: .input(.pem)),
        .init(name: "ctl --control", arguments: ["ctl", "--control", "@@", "status"], role: .socket),
        .init(name: "ctl --credential @FILE", arguments: ["ctl", "--control", "{work}/none.sock", "credentials", "add", "--credential", "@@@"],
              role: .input(.credential)),
    ]

    /// Options whose value the declarations write as a path but which name no file here.
    static let notFiles: Set<String> = ["sdk --begin-endpoint", "sdk --complete-endpoint", "sdk --backend-path"]

    /// `serve --card`, `probe diff A.json`, … : every option of every declaration whose value is a
    /// file (FILE, NAME|FILE, DIR, PATH, LOG, X.json) and every such positional of its usage lines.
    static func declaredFileArguments() -> Set<String> {
        var names: Set<String> = []
        let fileWord = try! NSRegularExpression(pattern: #"^\[?(NAME\|FILE|FILE|DIR|PATH|LOG|[A-Z]+\.json)(\.\.\.)?\]?(\.\.\.)?$"#)
        func isFileWord(_ word: String) -> Bool {
            fileWord.firstMatch(in: word, range: NSRange(word.startIndex..., in: word)) != nil
        }
        for command in Subcommands.all {
            let declaration = command.declaration
            for option in declaration.allOptions {
                for (name, takesValue, _) in option.names where takesValue {
                    let value = option.label.split(separator: " ").drop { !$0.hasPrefix(name) }.dropFirst().first.map(String.init) ?? ""
                    if isFileWord(value.trimmingCharacters(in: CharacterSet(charactersIn: ","))) { names.insert("\(command.name) \(name)") }
                }
            }
            for line in declaration.usage {
                let words = line.split(separator: " ").map(String.init)
                guard let start = words.firstIndex(of: command.name) else { continue }
                var action: String?
                for index in words.indices.dropFirst(start + 1) {
                    let word = words[index]
                    let previous = words[index - 1]
                    if action == nil, word.first?.isLowercase == true { action = word }
                    let bare = previous.trimmingCharacters(in: CharacterSet(charactersIn: "(["))
                    let takenByOption = bare.hasPrefix("--") && !previous.hasSuffix("]")
                    guard isFileWord(word), !takenByOption, !word.hasSuffix("]") || word.hasPrefix("[") else { continue }
                    let positional = word.trimmingCharacters(in: CharacterSet(charactersIn: "[]."))
                    names.insert([command.name, action, positional].compactMap { $0 }.joined(separator: " "))
                }
            }
        }
        return names.subtracting(notFiles)
    }

    @Test("the sweep covers every file argument the declarations have")
    func coversTheDeclarations() {
        let swept = Set(Self.all.map { $0.name.split(separator: " ").prefix(2).joined(separator: " ") })
            .union(Self.all.map(\.name))
        let missing = Self.declaredFileArguments().filter { !swept.contains($0) }
        #expect(missing.isEmpty, "file arguments the sweep does not give wrong files: \(missing.sorted())")
        #expect(Self.declaredFileArguments().contains("serve --card"), "the declarations are read")
        #expect(Self.declaredFileArguments().contains("probe diff A.json"), "the usage lines are read")
    }

    @Test("each wrong file: no Foundation or Decodable text, no temporary path; a refusal is one line naming the file",
          arguments: all)
    func wrongFiles(argument: FileArgument) throws {
        let run = try SweepRun()
        defer { run.remove() }
        for wrong in argument.wrongFiles {
            let file = try run.make(wrong, for: argument.role)
            guard let (status, stdout, stderr) = try run.binary(argument.arguments, file: file, asOtherUser: wrong == .unreadable
                                                                || wrong == .unwritableDirectory) else { continue }
            let context = "\(argument) given \(wrong.rawValue) (\(status)):\n\(stdout)\(stderr)"
            // The work folder and the checkout (which may itself be under /tmp) are the user's own
            // paths; anything else under the temporary directory is a leak.
            let output = (stdout + stderr).replacingOccurrences(of: run.folder, with: "WORK")
                .replacingOccurrences(of: FileArgumentSweepTests.repository, with: "REPOSITORY")
            for leak in ["NSCocoaErrorDomain", "Error Domain=", "DecodingError", "CodingKeys", "The operation could not be completed",
                         "Foundation.", "Swift."] {
                #expect(!output.contains(leak), "\(leak): \(context)")
            }
            #expect(!output.contains(NSTemporaryDirectory()) && !output.contains("/tmp/"), "a temporary path: \(context)")
            #expect((0...125).contains(status), "a crash or a signal: \(context)")
            guard !argument.reachesCardFirst, status != 0 else { continue }
            if argument.accepts.contains(wrong) { continue }
            let lines = stderr.split(separator: "\n").filter { !$0.hasPrefix("Run 'arculus-card ") }
            #expect(lines.count == 1, "not one line: \(context)")
            #expect(stderr.contains(file), "the line does not name the file: \(context)")
        }
    }
}

/// One sweep's folder (every user may enter it: the unreadable cases run as `nobody`), its right
/// files, and the runs.
final class SweepRun {
    let folder: String
    private let isRoot = getuid() == 0
    private var samples: [SampleKind: String] = [:]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("arculus-sweep-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
        let root = FileArgumentSweepTests.repository
        samples = [
            .profile: root + "/Fixtures/profiles/arculus-fido21.json", .transcript: FileArgumentSweepTests.transcript,
            .fingerprint: FileArgumentSweepTests.fingerprint, .spyLog: FileArgumentSweepTests.spyLog,
            .pem: root + "/Fixtures/attestation/emulator-batch.key.pem",
        ]
        let image = folder + "/sample.img"
        _ = try binary(["image", "create", "--card", image, "--pin", "123456"], file: "", asOtherUser: false)
        samples[.image] = image
        for (kind, text) in [(SampleKind.rules, "ignore getInfo\nignore select*\n"), (.apdus, "00A4040008A0000006472F0001\n# SELECT\n00CA000000\n"),
                             (.credential, #"{"rpId":"example.com","userHandle":"dXNlcg","isResidentCredential":true}"#)] {
            let path = folder + "/sample.\(kind.rawValue)"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            samples[kind] = path
        }
    }

    func remove() {
        try? FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder + "/closed")
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The wrong file, made afresh at a path in the folder.
    func make(_ wrong: WrongFile, for role: FileRole) throws -> String {
        let manager = FileManager.default
        for name in ["arg", "closed"] { try? manager.removeItem(atPath: folder + "/" + name) }
        let path = folder + "/arg"
        let right: String? = if case .input(let kind) = role { samples[kind] } else { nil }
        let bytes = try right.map { try Data(contentsOf: URL(fileURLWithPath: $0)) } ?? Data()
        switch wrong {
        case .missing:
            return path
        case .missingDirectory:
            return folder + "/nowhere/arg"
        case .unreadable:
            try bytes.write(to: URL(fileURLWithPath: path))
            try manager.setAttributes([.posixPermissions: 0], ofItemAtPath: path)
            return path
        case .unwritableDirectory:
            try manager.createDirectory(atPath: folder + "/closed", withIntermediateDirectories: false, attributes: [.posixPermissions: 0o555])
            return folder + "/closed/arg"
        case .directory:
            try manager.createDirectory(atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o777])
            return path
        case .empty:
            try Data().write(to: URL(fileURLWithPath: path))
            return path
        case .truncated:
            try bytes.prefix(bytes.count * 2 / 3).write(to: URL(fileURLWithPath: path))
            return path
        case .foreign:
            // Another kind's right file: a profile where a transcript goes, a transcript where a
            // fingerprint goes, … (the last kind gets the first's).
            guard case .input(let kind) = role else { return path }
            let kinds = SampleKind.allCases
            let other = kinds[(kinds.firstIndex(of: kind)! + 1) % kinds.count]
            try Data(contentsOf: URL(fileURLWithPath: samples[other]!)).write(to: URL(fileURLWithPath: path))
            return path
        }
    }

    /// Runs the binary with `@@` replaced by `file` (`@@@`: `@FILE`) and `{work}` by the folder;
    /// `asOtherUser` as `nobody` when this is root (else as this user: the mode denies it
    /// already). Nil when the case cannot be made here (root without setpriv).
    func binary(_ arguments: [String], file: String, asOtherUser: Bool) throws -> (Int32, String, String)? {
        let expanded = arguments.map { argument in
            argument.replacingOccurrences(of: "@@@", with: "@" + file).replacingOccurrences(of: "@@", with: file)
                .replacingOccurrences(of: "{work}", with: folder)
        }
        let process = Process()
        var command = [FileArgumentSweepTests.binary] + expanded
        if asOtherUser && isRoot {
            guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return nil }
            command = ["/usr/bin/setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"] + command
            // An instrumented binary writes its coverage where LLVM_PROFILE_FILE says: under swift
            // test that is root's folder, which nobody cannot write (and the runtime's complaint
            // would be a second line of output); test.sh names a folder every user can write.
            if let profile = ProcessInfo.processInfo.environment["ARCULUS_PROFILE_FILE"], !profile.isEmpty {
                command = ["/usr/bin/env", "LLVM_PROFILE_FILE=\(profile)"] + command
            }
        }
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return (status, String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self))
    }
}
