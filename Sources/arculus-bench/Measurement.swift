#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Monotonic nanoseconds (`clock_gettime`, vDSO: a few tens of nanoseconds per call).
@inline(__always)
func monotonicNanoseconds() -> UInt64 {
    var time = timespec()
    clock_gettime(CLOCK_MONOTONIC, &time)
    return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
}

/// Runs `body` and returns how long it took, in nanoseconds. Each workload step times only its
/// own operation with this, so what a step prepares (a platform's request, a fresh PIN token) is
/// not counted.
@inline(__always)
func timed(_ body: () throws -> Void) rethrows -> UInt64 {
    let start = monotonicNanoseconds()
    try body()
    return monotonicNanoseconds() - start
}

/// Something measured in rounds: one step does one operation and returns the nanoseconds its
/// timed part took.
struct Workload {
    let name: String
    let step: () throws -> UInt64
}

/// How long a round lasts and how many there are.
struct RoundPlan {
    /// Rounds per measurement (the median is over these).
    var rounds: Int
    /// Wall time of one round of an in-process workload, in seconds.
    var seconds: Double
    /// Fewest operations in a round, however long they take.
    var minimumOperations: Int

    /// Measures several workloads round-robin, finely: each round gives every workload
    /// `seconds` of wall time, served in slices of about 10 ms taken in turn, so that workloads
    /// compared with each other (an operation and its bound, two cards) see the same machine
    /// load, which other processes vary from one second to the next. A short warm-up of each
    /// comes first. Returns each workload's ops/s of timed time, per round.
    func interleaved(_ workloads: [Workload]) throws -> [Samples] {
        let slice = UInt64(min(0.01, seconds / 4) * 1e9)
        let budget = UInt64(seconds * 1e9)
        func runSlice(_ index: Int, _ operations: inout [Int], _ timedTotal: inout [UInt64], _ wall: inout [UInt64]) throws {
            let start = monotonicNanoseconds()
            repeat {
                timedTotal[index] += try workloads[index].step()
                operations[index] += 1
            } while monotonicNanoseconds() - start < slice
            wall[index] += monotonicNanoseconds() - start
        }
        var ignoredOperations = Array(repeating: 0, count: workloads.count)
        var ignoredTimed = Array(repeating: UInt64(0), count: workloads.count)
        var ignoredWall = ignoredTimed
        for index in workloads.indices { try runSlice(index, &ignoredOperations, &ignoredTimed, &ignoredWall) }

        var rates = Array(repeating: [Double](), count: workloads.count)
        for _ in 0..<rounds {
            var operations = Array(repeating: 0, count: workloads.count)
            var timedTotal = Array(repeating: UInt64(0), count: workloads.count)
            var wall = timedTotal
            var pending = Array(workloads.indices)
            while !pending.isEmpty {
                for index in pending { try runSlice(index, &operations, &timedTotal, &wall) }
                pending.removeAll { wall[$0] >= budget && operations[$0] >= minimumOperations }
            }
            for index in workloads.indices {
                rates[index].append(Double(operations[index]) / (Double(max(timedTotal[index], 1)) / 1e9))
            }
        }
        return rates.map(Samples.init)
    }
}

/// Per-round results of one measurement (rates, or durations, as the caller decides).
struct Samples {
    let values: [Double]

    init(_ values: [Double]) { self.values = values }

    var median: Double { Self.median(values) }
    var minimum: Double { values.min() ?? .nan }
    var maximum: Double { values.max() ?? .nan }
    var isEmpty: Bool { values.isEmpty }

    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return .nan }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    /// Round-by-round quotient with `other` (same round count): the spread of a ratio.
    func pairwise(_ other: Samples, _ combine: (Double, Double) -> Double) -> Samples {
        Samples(zip(values, other.values).map(combine))
    }

    func map(_ transform: (Double) -> Double) -> Samples {
        Samples(values.map(transform))
    }
}

/// A failed benchmark step: the operation did not do what it is measured doing.
struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
