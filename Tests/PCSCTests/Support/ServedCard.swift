import Foundation
import PCSC
import Synchronization
import Testing
import TestSupport

/// Where the emulator runs for these tests: vpcd slot 1 (port 35964), reader "Virtual PCD 00 01",
/// away from slot 0 where a developer may keep a card of their own. `ARCULUS_SLOT` chooses
/// another slot, as for the interop tests. pcscd is asked once per test process.
let virtualReader = VPCDReader(slotFrom: "ARCULUS_SLOT", default: 1) { try? PCSCContext().readers() }

/// One `arculus-card serve --slot 1 --card <temp> --profile P` process: an emulated card on the
/// virtual reader, blank, in a temporary folder of its own.
final class ServedCard {
    /// The `arculus-card` these tests serve.
    static let binary = Repository.cardBinary

    let profile: String
    private var process: ChildProcess?
    private let folder: URL

    /// Starts the card and waits until pcscd sees it and it is this process's card (its
    /// getInfo AAGUID is the profile's), so that a stray card process on slot 1 is reported
    /// instead of silently tested.
    init(profile: String, aaguid: [UInt8]) throws {
        guard virtualReader.reachable else { throw TestFailure(virtualReader.unavailable) }
        guard FileManager.default.isExecutableFile(atPath: Self.binary.path) else {
            throw TestFailure("no arculus-card binary at \(Self.binary.path): build it with `swift build --build-tests`, or set ARCULUS_CARD")
        }
        self.profile = profile
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pcsc-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let process = try ChildProcess(
            executable: Self.binary.path,
            arguments: ["serve", "--slot", "\(virtualReader.slot)", "--card", folder.appendingPathComponent("card.img").path,
                        "--profile", profile])
        self.process = process
        let present = DispatchSemaphore(value: 0)
        let seen = Mutex("")
        process.output.readabilityHandler = { handle in
            let chunk = String(decoding: handle.availableData, as: UTF8.self)
            let complete = seen.withLock { text in
                text += chunk
                return text.contains("card present on")
            }
            if complete {
                handle.readabilityHandler = nil
                present.signal()
            }
        }
        do {
            // Until serve says the card is on the reader, it may not have its signal handlers
            // yet; stopping it earlier could go unnoticed.
            guard present.wait(timeout: .now() + 10) == .success else {
                throw TestFailure("arculus-card serve never put the card on vpcd slot \(virtualReader.slot)")
            }
            try waitForOurCard(aaguid: aaguid)
        } catch {
            stop()
            throw error
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// Takes the card off the reader (SIGTERM) and waits until pcscd has seen it go, so that
    /// the next test's card is a new insertion.
    func stop() {
        guard let process, process.isRunning else { return }
        process.signal(SIGTERM)
        if !process.waitForExit(timeout: .seconds(10)) {
            Issue.record("arculus-card serve (pid \(process.pid)) ignored SIGTERM for 10 s; killed")
            process.signal(SIGKILL)
            _ = process.waitForExit(timeout: .seconds(5))
        }
        process.output.readabilityHandler = nil
        guard let context = try? PCSCContext() else { return }
        let deadline = ContinuousClock.now.advanced(by: .seconds(5))
        while ContinuousClock.now < deadline,
              (try? context.status(ofReaders: [virtualReader.name]).first?.isCardPresent) == true {
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    private func waitForOurCard(aaguid: [UInt8]) throws {
        let context = try PCSCContext()
        guard try context.waitForCardPresent(reader: virtualReader.name, timeout: .seconds(10)) else {
            throw TestFailure("the card never appeared in \(virtualReader.name)")
        }
        // pcscd may still be powering the card up right after it appears.
        var lastError: (any Error)?
        for _ in 0..<50 {
            do {
                let card = try context.connect(reader: virtualReader.name)
                defer { try? card.disconnect() }
                let exchange = ISO7816Exchange(card)
                _ = try exchange.transmitFollowingResponseChain(PCSCCardTests.select)
                let info = try exchange.transmitFollowingResponseChain(PCSCCardTests.getInfo)
                guard PCSCCardTests.aaguid(inGetInfo: info) == aaguid else {
                    throw TestFailure("the card in \(virtualReader.name) is not the one this test started (AAGUID differs): "
                        + "another card process holds vpcd slot \(virtualReader.slot); stop it")
                }
                return
            } catch let error as TestFailure {
                throw error
            } catch {
                lastError = error
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
        throw TestFailure("cannot talk to the card in \(virtualReader.name): \(lastError.map { "\($0)" } ?? "?")")
    }
}
