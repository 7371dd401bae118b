import Foundation
import Testing

/// What an app that imports ArculusSDK builds: the SDK and the modules it depends on, and nothing
/// that exists on Linux alone. Every import of a Linux-only module in them (Glibc, Musl,
/// FoundationNetworking) stands under `#if canImport(…)` of that module, and none of them depends
/// on the card side (ArculusCard, CTAP2, ISO7816) or on PC/SC (PCSC, libpcsclite). The one C
/// library below them is OpenSSL, in CardCrypto: the crypto seam an iOS build replaces (README,
/// Architecture).
@Suite("the modules an app imports")
struct AppModuleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../..").standardized
    static let linuxOnly: Set<String> = ["Glibc", "Musl", "FoundationNetworking"]
    static let forbidden: Set<String> = ["ArculusCard", "CTAP2", "ISO7816", "PCSC", "CPCSCLite", "VirtualReader", "Transcript",
                                         "ArculusFidoSDKFramework"]

    /// Target name → its target dependencies, read from Package.swift.
    static func targets() throws -> [String: [String]] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        var result: [String: [String]] = [:]
        let pattern = try NSRegularExpression(pattern: #"\.(?:target|systemLibrary)\(\s*name:\s*"([^"]+)"(?:,\s*dependencies:\s*\[([^\]]*)\])?"#)
        for match in pattern.matches(in: manifest, range: NSRange(manifest.startIndex..., in: manifest)) {
            let name = String(manifest[Range(match.range(at: 1), in: manifest)!])
            let list = Range(match.range(at: 2), in: manifest).map { String(manifest[$0]) } ?? ""
            result[name] = list.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \n\"")) }.filter { !$0.isEmpty }
        }
        return result
    }

    /// ArculusSDK and everything it depends on.
    static func appModules() throws -> Set<String> {
        let graph = try targets()
        var seen: Set<String> = []
        var pending = ["ArculusSDK"]
        while let next = pending.popLast() {
            guard seen.insert(next).inserted else { continue }
            pending += graph[next] ?? []
        }
        return seen
    }

    @Test("ArculusSDK depends on host-side modules only")
    func dependencies() throws {
        let modules = try Self.appModules()
        #expect(modules == ["ArculusSDK", "CTAPClient", "CBOR", "COSE", "CardCrypto", "COpenSSL", "FIDOWire", "JSONSupport", "POSIXSupport"])
        #expect(modules.isDisjoint(with: Self.forbidden))
    }

    @Test("every Linux-only import in them is under #if canImport of that module")
    func imports() throws {
        var checked = 0
        for module in try Self.appModules() where module != "COpenSSL" {
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
                    #expect(!Self.forbidden.contains(imported), "\(file.lastPathComponent) imports \(imported)")
                    if Self.linuxOnly.contains(imported) {
                        checked += 1
                        #expect(conditions.last == "canImport(\(imported))",
                                "\(module)/\(file.lastPathComponent): import \(imported) is not under #if canImport(\(imported))")
                    }
                }
            }
        }
        #expect(checked >= 4, "the Glibc and FoundationNetworking imports were found and checked")
    }
}
