import Foundation

/// Checks that every Swift example in README.md and Docs/*.md is one of the regions between
/// `// README: <section>` and `// README end` of `ReadmeExamples.swift` (compiled and run here) or
/// of `Tests/Seed/Sources/ReadmeExample/ReadmeExample.swift` (the SDK example, which needs a
/// served card and a FIDO2 server: Tests/Flows/test_seed_code.py runs it), line for line
/// (indentation, blank lines and `import` lines aside): the examples a reader copies are the
/// ones that run. A `Package.swift` block is not code to run; `extract-blocks` checks it, and
/// compiles every other block alone, as written.
func checkReadmeExamplesAreHeld(_ checks: Checks) throws {
    let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    let repository = here.appendingPathComponent("../../../..").standardized
    let guides = try FileManager.default.contentsOfDirectory(atPath: repository.appendingPathComponent("Docs").path)
        .filter { $0.hasSuffix(".md") }.sorted().map { "Docs/" + $0 }
    let examples = try [here.appendingPathComponent("ReadmeExamples.swift"),
                        here.appendingPathComponent("../../../Seed/Sources/ReadmeExample/ReadmeExample.swift").standardized]
        .map { try String(contentsOf: $0, encoding: .utf8) }.joined(separator: "\n")

    var regions: [String: [String]] = [:]
    var current: String?
    for line in examples.split(separator: "\n", omittingEmptySubsequences: false) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("// README: ") {
            let name = String(trimmed.dropFirst("// README: ".count))
            regions[name] = []
            current = name
        } else if trimmed == "// README end" {
            current = nil
        } else if let name = current {
            regions[name, default: []].append(String(line))
        }
    }
    let held = Set(regions.values.map(normalised))

    for document in ["README.md"] + guides {
        let text = try String(contentsOf: repository.appendingPathComponent(document), encoding: .utf8)
        var blocks: [[String]] = []
        var block: [String]?
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if block == nil, line == "```swift" {
                block = []
            } else if let finished = block, line == "```" {
                blocks.append(finished)
                block = nil
            } else {
                block?.append(String(line))
            }
        }
        if document == "README.md" { checks.expect(!blocks.isEmpty, "the README has Swift examples") }
        for example in blocks where !(example.first ?? "").hasPrefix("// swift-tools-version") {
            let lines = normalised(example)
            checks.expect(held.contains(lines),
                          "\(document)'s Swift example starting '\(lines.first ?? "")' is held, as written, in ReadmeExamples.swift")
        }
    }
}

/// The lines without blank ones and `import`s, with the common indentation removed.
private func normalised(_ lines: [String]) -> [String] {
    let kept = lines.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty && !$0.hasPrefix("import ") }
    let indent = kept.map { $0.prefix { $0 == " " }.count }.min() ?? 0
    return kept.map { String($0.dropFirst(indent)) }
}
