#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

// arculus-bench: the emulator's performance benchmark (see BenchOptions.usage; run ./bench.sh).

let arguments = Array(CommandLine.arguments.dropFirst())

if arguments.first == "--responder" {
    do {
        try MinimalResponder(arguments: arguments).run()
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("arculus-bench --responder: \(error)\n".utf8))
        exit(1)
    }
}

if arguments.contains("-h") || arguments.contains("--help") {
    print(BenchOptions.usage)
    exit(0)
}

ChildProcess.stopChildrenOnSignals()
do {
    let options = try BenchOptions(arguments)
    var run = BenchRun(options: options)
    try run.run()
    let markdown = run.report.markdown
    let markdownFile = options.markdownFile ?? options.directory + "/results.md"
    do {
        try markdown.write(toFile: markdownFile, atomically: true, encoding: .utf8)
    } catch {
        FileHandle.standardError.write(Data("cannot write \(markdownFile): \(error)\n".utf8))
    }
    print(options.markdown ? markdown : run.report.text, terminator: "")
    if !options.markdown { print("markdown table written to \(markdownFile)") }
    exit(0)
} catch {
    FileHandle.standardError.write(Data("arculus-bench: \(error)\n".utf8))
    exit(1)
}
