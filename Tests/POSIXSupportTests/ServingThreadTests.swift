import POSIXSupport
import Synchronization
import Testing

/// A polling server's thread: its resources closed exactly once, by whoever comes first.
@Suite("ServingThread: start, stop and the one close")
struct ServingThreadTests {
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
        func bump() { value.add(1, ordering: .sequentiallyConsistent) }
        var count: Int { value.load(ordering: .sequentiallyConsistent) }
    }

    @Test("stopped before it ran: stop closes, once however often it is called, and a later start runs nothing")
    func stopWithoutThread() {
        let serving = ServingThread()
        let closes = Counter(), runs = Counter()
        serving.stop(closing: closes.bump)
        serving.stop(closing: closes.bump)
        serving.closeUnlessRunning(closes.bump)
        serving.start { runs.bump() }
        serving.stop(closing: closes.bump)
        #expect(closes.count == 1 && runs.count == 0 && serving.isStopping)
    }

    @Test("running: the loop sees the stop through the wake pipe and closes as it ends; stop waits for it and closes nothing more")
    func stopWithThread() {
        let serving = ServingThread()
        let closes = Counter(), runs = Counter()
        serving.start {
            runs.bump()
            while !serving.isStopping { serving.wake.wait(upTo: .seconds(10)) }
            serving.close(closes.bump)
        }
        serving.start { runs.bump() }
        serving.stop(closing: closes.bump)
        #expect(runs.count == 1 && closes.count == 1)
        serving.stop(closing: closes.bump)
        serving.closeUnlessRunning(closes.bump)
        #expect(closes.count == 1)
    }
}
