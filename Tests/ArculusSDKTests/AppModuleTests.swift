import Foundation
import Testing
import TestSupport

/// What an app builds: `ArculusSDK`, and `ArculusFidoSDKFramework` (the module with the vendor's
/// iOS framework name), with the modules they depend on — for iOS, nothing that exists on Linux
/// alone. Every import of a Linux-only module in them (Glibc, Musl, FoundationNetworking) stands
/// under `#if canImport(…)` of that module, none of them depends on the card side (ArculusCard,
/// CTAP2, ISO7816) or on PC/SC (PCSC, libpcsclite) on iOS, and the connectors (which need both)
/// come to the framework only on Linux and macOS, by a platform condition in Package.swift. The
/// one C library below them is OpenSSL, in CardCrypto: the crypto seam an iOS build replaces
/// (README, Architecture).
@Suite("the modules an app imports")
struct AppModuleTests {
    static let root = Repository.root
    static let linuxOnly: Set<String> = ["Glibc", "Musl", "FoundationNetworking"]
    static let forbidden: Set<String> = ["ArculusCard", "CTAP2", "ISO7816", "PCSC", "CPCSCLite", "VirtualReader", "Transcript",
                                         "ArculusFidoConnectors"]
    static let hostModules: Set<String> = ["ArculusSDK", "CTAPClient", "CBOR", "COSE", "CardCrypto", "COpenSSL", "FIDOWire",
                                           "JSONSupport", "POSIXSupport"]

    /// A target dependency: its name, and the platforms it is limited to (nil: every platform).
    struct Dependency: Equatable {
        let name: String
        let platforms: [String]?
    }

    /// Target name → its dependencies, read from Package.swift: each `.target(`, `.systemLibrary(`,
    /// `.executableTarget(` or `.testTarget(` call, its `name:` and the elements of its
    /// `dependencies:` list (a name, or `.target(name:condition: .when(platforms: [...]))`).
    static func targets() throws -> [String: [Dependency]] {
        let manifest = Array(try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8))
        var result: [String: [Dependency]] = [:]
        let starts = [".target(", ".systemLibrary(", ".executableTarget(", ".testTarget("]
        var index = 0
        while index < manifest.count {
            guard let start = starts.first(where: { manifest[index...].starts(with: Array($0)) }),
                  let call = enclosed(manifest, from: index + start.count - 1, open: "(", close: ")") else {
                index += 1
                continue
            }
            let text = String(call)
            if let name = firstQuoted(after: "name:", in: text) {
                result[name] = dependencies(in: text)
            }
            index += start.count + call.count
        }
        return result
    }

    /// The text between the bracket at `from` and its match.
    static func enclosed(_ text: [Character], from: Int, open: Character, close: Character) -> ArraySlice<Character>? {
        var depth = 0
        var quoted = false
        for position in from..<text.count {
            let character = text[position]
            if character == "\"" { quoted.toggle() }
            guard !quoted else { continue }
            if character == open { depth += 1 }
            if character == close {
                depth -= 1
                if depth == 0 { return text[(from + 1)..<position] }
            }
        }
        return nil
    }

    static func firstQuoted(after label: String, in text: String) -> String? {
        guard let range = text.range(of: label) else { return nil }
        let rest = text[range.upperBound...]
        guard let open = rest.firstIndex(of: "\"") else { return nil }
        let afterOpen = rest.index(after: open)
        guard let close = rest[afterOpen...].firstIndex(of: "\"") else { return nil }
        return String(rest[afterOpen..<close])
    }

    static func dependencies(in call: String) -> [Dependency] {
        guard let range = call.range(of: "dependencies:") else { return [] }
        let characters = Array(call[range.upperBound...])
        guard let open = characters.firstIndex(of: "["), let list = enclosed(characters, from: open, open: "[", close: "]") else { return [] }
        var elements: [String] = []
        var current = ""
        var depth = 0
        for character in list {
            if "([".contains(character) { depth += 1 }
            if ")]".contains(character) { depth -= 1 }
            if character == ",", depth == 0 {
                elements.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        elements.append(current)
        return elements.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }.compactMap { element in
            guard let name = element.hasPrefix("\"") ? String(element.dropFirst().prefix { $0 != "\"" }) : firstQuoted(after: "name:", in: element) else {
                return nil
            }
            guard let platforms = element.range(of: "platforms:") else { return Dependency(name: name, platforms: nil) }
            let listed = element[platforms.upperBound...].split(whereSeparator: { ",[]() .".contains($0) }).map(String.init)
                .filter { $0.first?.isLowercase == true }
            return Dependency(name: name, platforms: listed)
        }
    }

    /// `module` and everything it depends on when built for `platform`.
    static func closure(of module: String, for platform: String) throws -> Set<String> {
        let graph = try targets()
        var seen: Set<String> = []
        var pending = [module]
        while let next = pending.popLast() {
            guard seen.insert(next).inserted else { continue }
            pending += (graph[next] ?? []).filter { $0.platforms == nil || $0.platforms!.contains(platform) }.map(\.name)
        }
        return seen
    }

    @Test("the manifest reader sees the framework's platform condition")
    func manifest() throws {
        let graph = try Self.targets()
        #expect(graph["ArculusFidoSDKFramework"] == [Dependency(name: "ArculusSDK", platforms: nil), Dependency(name: "CTAPClient", platforms: nil),
                                                     Dependency(name: "ArculusFidoConnectors", platforms: ["linux", "macOS"])])
        #expect(graph["ArculusFidoConnectors"]?.map(\.name) == ["ArculusSDK", "ArculusCard", "CTAPClient", "PCSC", "FIDOWire"])
        #expect(graph["ArculusSDK"]?.allSatisfy { $0.platforms == nil } == true)
    }

    @Test("ArculusSDK depends on host-side modules only")
    func dependencies() throws {
        let modules = try Self.closure(of: "ArculusSDK", for: "iOS")
        #expect(modules == Self.hostModules)
        #expect(modules.isDisjoint(with: Self.forbidden))
        #expect(try Self.closure(of: "ArculusSDK", for: "linux") == modules)
    }

    @Test("ArculusFidoSDKFramework builds for iOS without PC/SC or the card side; on Linux it brings the connectors")
    func framework() throws {
        let iOS = try Self.closure(of: "ArculusFidoSDKFramework", for: "iOS")
        #expect(iOS == Self.hostModules.union(["ArculusFidoSDKFramework"]))
        #expect(iOS.isDisjoint(with: Self.forbidden))
        let linux = try Self.closure(of: "ArculusFidoSDKFramework", for: "linux")
        #expect(linux.isSuperset(of: ["ArculusFidoConnectors", "PCSC", "ArculusCard"]), "ArculusFido() finds a PC/SC card on Linux")
        #expect(try Self.closure(of: "arculus-card", for: "linux").isSuperset(of: ["ArculusFidoConnectors"]))
        #expect(try !Self.closure(of: "arculus-card", for: "linux").contains("ArculusFidoSDKFramework"),
                "the command line imports the connectors, not the app's framework")
    }

    @Test("every Linux-only import in them is under #if canImport of that module; the framework's connectors too")
    func imports() throws {
        var checked = 0
        var conditional: Set<String> = Self.linuxOnly
        conditional.insert("ArculusFidoConnectors")
        for module in try Self.closure(of: "ArculusFidoSDKFramework", for: "iOS") where module != "COpenSSL" {
            let folder = Self.root.appendingPathComponent("Sources/\(module)")
            let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)?
                .compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" } ?? []
            #expect(!files.isEmpty, "\(module) has sources")
            for file in files {
                var conditions: [String] = []
                for line in try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                    if line.hasPrefix("#if ") { conditions.append(String(line.dropFirst(4))) }
                    if line.hasPrefix("#elseif ") { conditions[conditions.count - 1] = String(line.dropFirst(8)) }
                    if line == "#endif" { conditions.removeLast() }
                    let words = line.split(separator: " ").map(String.init)
                    guard let index = words.firstIndex(of: "import"), index + 1 < words.count else { continue }
                    let imported = words[index + 1]
                    if conditional.contains(imported) {
                        checked += 1
                        #expect(conditions.last == "canImport(\(imported))",
                                "\(module)/\(file.lastPathComponent): import \(imported) is not under #if canImport(\(imported))")
                    } else {
                        #expect(!Self.forbidden.contains(imported), "\(file.lastPathComponent) imports \(imported)")
                    }
                }
            }
        }
        #expect(checked >= 6, "the Glibc, FoundationNetworking and connector imports were found and checked")
    }
}
