@testable import arculus_card
import Foundation
import Testing
import TestSupport

/// Each subcommand is declared once (``CommandDeclaration``): its help is written from the
/// declaration and its command line read by it. These hold that an option a help names is one the
/// command takes, and that every option it takes is in its help.
@Suite("the command line's declarations")
struct CommandDeclarationTests {
    /// `--option` words in command `name`'s help, leaving out what belongs to another command:
    /// `arculus-card <other> …` to the end of its quote or line, quoted `'serve --…'`, and setup.sh's.
    static func optionWords(_ text: String, of name: String) -> Set<String> {
        var text = text
        let quoted = try! NSRegularExpression(pattern: #"'(?:serve |ctl )[^']*'|setup\.sh --[a-z-]+"#)
        text = quoted.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "")
        let other = try! NSRegularExpression(pattern: "arculus-card (?!" + name + #"\b)[a-z][a-z-]*[^'\n]*"#)
        text = other.stringByReplacingMatches(in: text, range: NSRange(text.startIndex..., in: text), withTemplate: "")
        let word = try! NSRegularExpression(pattern: #"(?<![\w-])--[a-z][a-z0-9-]*"#)
        return Set(word.matches(in: text, range: NSRange(text.startIndex..., in: text)).map { String(text[Range($0.range, in: text)!]) })
    }

    static let commands = Subcommands.all.map { $0.name }

    static func declaration(_ name: String) throws -> CommandDeclaration {
        try #require(Subcommands.all.first { $0.name == name }).declaration
    }

    @Test("every option a help names is declared, and every declared option is in the help", arguments: commands)
    func helpNamesWhatParses(name: String) throws {
        let declaration = try Self.declaration(name)
        let declared = Set(declaration.allOptions.flatMap(\.names).map(\.name))
        let named = Self.optionWords(declaration.help, of: name).subtracting(["--help"])
        #expect(named.subtracting(declared).isEmpty, "\(name) --help names options it does not take: \(named.subtracting(declared).sorted())")
        #expect(declared.subtracting(named).isEmpty, "\(name) takes options its help does not show: \(declared.subtracting(named).sorted())")
    }

    @Test("every declared option parses, with a value when it takes one, and a second one only when it repeats", arguments: commands)
    func declaredOptionsParse(name: String) throws {
        let declaration = try Self.declaration(name)
        for (option, takesValue, repeats) in declaration.allOptions.flatMap(\.names) {
            let once = takesValue ? [option, "x"] : [option]
            let parsed = try declaration.parse(once)
            #expect(takesValue ? parsed.value(option) == "x" || parsed.values(option) == ["x"] : parsed.flag(option), "\(name) \(option)")
            #expect(throws: UsageError.self, "\(name): \(option) given twice") {
                if !repeats { _ = try declaration.parse(once + once) } else { throw UsageError("repeats") }
            }
        }
        #expect(throws: UsageError.self) { _ = try declaration.parse(["--no-such-option"]) }
    }

    @Test("an action reads exactly its options: its own and the command's it accepts")
    func actionsReadTheirOptions() throws {
        let pcsc = PCSCCommand.declaration
        #expect(try pcsc.parse(["--from", "apdus.txt", "--output", "t"], action: "record").value("--from") == "apdus.txt")
        #expect(throws: UsageError("unknown option --from")) { _ = try pcsc.parse(["--from", "apdus.txt"], action: "send") }
        #expect(throws: UsageError("unknown option --reader")) { _ = try pcsc.parse(["--reader", "r"], action: "list") }
        for operation in SDKOperation.all {
            let names = operation.options.map(\.name)
            let parsed = try SDKCommand.declaration.parse(names.flatMap { name in
                operation.options.first { $0.name == name }?.value == nil ? [name] : [name, "x"]
            } + ["--card-image", "c.img"], action: operation.name)
            #expect(parsed.given.isSuperset(of: Set(names)), "sdk \(operation.name) takes \(names)")
        }
    }

    @Test("every option an SDK operation takes is declared, with its help")
    func sdkOptionsDeclared() {
        let declared = Set(SDKCommand.operationOptions.flatMap(\.names).map(\.name))
        let used = Set(SDKOperation.all.flatMap { $0.options.map(\.name) })
        #expect(used == declared)
    }

    @Test("no command reads its command line past its declaration")
    func oneParser() throws {
        let folder = Repository.root.appendingPathComponent("Sources/arculus-card")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        #expect(files.count > 30)
        for file in files where !["CommandDeclaration.swift", "CommandLineOptions.swift"].contains(file) {
            let text = try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
            #expect(!text.contains("CommandLineOptions("), "\(file) builds its own option parser")
        }
    }
}
